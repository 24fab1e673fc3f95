package objective

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

func p99(ms float64) results.Latency { return results.Latency{P50: 1e3 * ms / 4, P99: 1e3 * ms} }

// TestJudgeThresholds pins each part of the judgement from both sides:
// the share of the rate served, each bound, and the borderline band.
func TestJudgeThresholds(t *testing.T) {
	slo := &results.SLO{Bounds: []results.SLOBound{{Percentile: "p99", MaxMs: 5}}, Achieved: 0.95}
	for _, c := range []struct {
		name             string
		rate, throughput float64
		lat              results.Latency
		met, borderline  bool
		why              string
	}{
		{"served the share", 1000, 950, p99(1), true, false, ""},
		{"just short of it", 1000, 949.9, p99(1), false, false, "served 94% of the rate, below the 95% a run must serve"},
		{"unthrottled serves what it serves", 0, 10, p99(1), true, false, ""},
		{"at the bound", 1000, 1000, p99(5), true, true, ""},
		{"just over it", 1000, 1000, p99(5.001), false, true, "p99 5.00 ms > 5 ms"},
		{"at the borderline band's edge", 1000, 1000, p99(4.5), true, true, ""},
		{"below the band", 1000, 1000, p99(4.49), true, false, ""},
		{"both missed, the rate first", 1000, 500, p99(9), false, false, "served 50% of the rate, below the 95% a run must serve, p99 9.00 ms > 5 ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := Judge(slo, c.rate, c.throughput, c.lat, 0)
			require.Equal(t, c.met, j.Met(), j.Why())
			require.Equal(t, c.borderline, j.Borderline)
			require.Equal(t, c.why, j.Why())
		})
	}
}

// TestJudgeScoreAndSlack: the score is the worst figure against its
// bound; the slack is how far under its bound the missed latency would
// come without the load generator's lateness.
func TestJudgeScoreAndSlack(t *testing.T) {
	slo := &results.SLO{Bounds: []results.SLOBound{{Percentile: "p99", MaxMs: 5}, {Percentile: "p50", MaxMs: 1}}, Achieved: 0.9}
	j := Judge(slo, 1000, 450, p99(6), 2000)
	require.InDelta(t, 2, j.Score, 1e-9, "0.9 x 1000 asked against 450 served is the worst")
	require.True(t, j.LatencyMissed)
	require.InDelta(t, 1, j.Slack, 1e-9, "p99 6 ms less 2 ms of lateness is 1 ms under 5")
	j = Judge(slo, 1000, 1000, p99(2), 0)
	require.True(t, math.IsInf(j.Slack, 1))
	require.InDelta(t, 0.5, j.Score, 1e-9, "p50 0.5 ms of 1, p99 2 of 5")
}

// TestJudgeEdges: no objective judges the rate alone at the default
// share; a percentile the results do not hold is never met.
func TestJudgeEdges(t *testing.T) {
	require.True(t, Judge(nil, 1000, 950, p99(100), 0).Met())
	require.False(t, Judge(nil, 1000, 949, p99(1), 0).Met())
	odd := &results.SLO{Bounds: []results.SLOBound{{Percentile: "p42", MaxMs: 5}}}
	require.False(t, Judge(odd, 0, 1, p99(1), 0).Met())
	require.True(t, math.IsNaN(Value(odd.Bounds[0], p99(1))))
	for i, p := range Percentiles() {
		l := results.Latency{P50: 1, P90: 2, P95: 3, P99: 4, P999: 5}
		require.InDelta(t, float64(i+1)/1e3, Value(results.SLOBound{Percentile: p}, l), 1e-12, p)
	}
}

// TestShareAndInherit: an objective's own share, or the default; an
// objective given afresh keeps the share the measured run asked for.
func TestShareAndInherit(t *testing.T) {
	require.Equal(t, DefaultAchieved, Share(nil))
	require.Equal(t, DefaultAchieved, Share(&results.SLO{}))
	require.Equal(t, 0.8, Share(&results.SLO{Achieved: 0.8}))
	asked := &results.SLO{Bounds: []results.SLOBound{{Percentile: "p99", MaxMs: 2}}}
	got := Inherit(asked, &results.SLO{Achieved: 0.8})
	require.Equal(t, 0.8, got.Achieved)
	require.Zero(t, asked.Achieved, "the objective asked is not changed")
	require.Equal(t, 0.7, Inherit(&results.SLO{Achieved: 0.7}, &results.SLO{Achieved: 0.8}).Achieved)
	require.Nil(t, Inherit(nil, &results.SLO{Achieved: 0.8}))
}

// TestSame compares objectives by their bounds, never their text.
func TestSame(t *testing.T) {
	a := &results.SLO{Bounds: []results.SLOBound{{Percentile: "p99", MaxMs: 5}, {Percentile: "p50", MaxMs: 1}}, Achieved: 0.9}
	b := &results.SLO{Bounds: []results.SLOBound{{Percentile: "p50", MaxMs: 1}, {Percentile: "p99", MaxMs: 5}}}
	require.True(t, Same(a, b))
	b.Bounds[1].MaxMs = 5.5
	require.False(t, Same(a, b))
	require.False(t, Same(a, &results.SLO{Bounds: a.Bounds[:1]}))
	require.False(t, Same(a, nil))
	require.True(t, Same(nil, nil))
}
