package report

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// TestRatioInterval checks the interval of a ratio of means: centred on
// the ratio in log space, above zero however noisy, and absent with one
// repetition.
func TestRatioInterval(t *testing.T) {
	a := &cell{n: 3, mean: 200, std: 10}
	b := &cell{n: 3, mean: 100, std: 5}
	lo, hi, ok := ratioInterval(a, b)
	require.True(t, ok)
	require.InDelta(t, 2, math.Sqrt(lo*hi), 1e-9, "the log interval is centred on the ratio")
	require.Less(t, lo, 2.0)
	require.Greater(t, hi, 2.0)
	// 5% noise on each side, 3 repetitions: df about 4, t about 2.78,
	// a log standard error of sqrt(2 * 0.05^2 / 3).
	se := math.Sqrt(2 * 0.05 * 0.05 / 3)
	require.InDelta(t, math.Log(hi/2)/se, 2.776, 0.01)

	noisy := &cell{n: 2, mean: 100, std: 90}
	lo, _, ok = ratioInterval(a, noisy)
	require.True(t, ok)
	require.Positive(t, lo, "a ratio's interval never reaches zero")

	_, _, ok = ratioInterval(a, &cell{n: 1, mean: 100, std: math.NaN()})
	require.False(t, ok, "one repetition: no interval")
}

// TestGroupWarnings folds one kind's warnings on many trials into one
// line naming them, and keeps the run's status first.
func TestGroupWarnings(t *testing.T) {
	var ws []warning
	for _, id := range []string{"pg.c.1", "pg.c.2", "redis.c.1", "redis.c.2", "redis.b.1"} {
		ws = append(ws, warning{Subject: id, Text: string(results.Flagf(results.FlagHostSaturated, "this machine was at %s", id))})
	}
	ws = append(ws, warning{Subject: "pg.b.1", Text: string(results.ErrorsFlag(1, 10))},
		warning{Subject: "manifest", Text: "note"}, warning{Subject: "run", Text: "interrupted"})
	got := groupWarnings(ws)
	require.Len(t, got, 4)
	require.Equal(t, "run", got[0].Subject)
	require.Equal(t, "host-saturated on 5 trials (pg.c.1, pg.c.2, redis.c.1 and 2 more)", got[1].Subject)
	require.Equal(t, "first: this machine was at pg.c.1", got[1].Text)
	require.Equal(t, "pg.b.1", got[2].Subject)
	require.Equal(t, "manifest", got[3].Subject)
}

// TestVerdictSeparatesLatencyLeaders: a target that loses on throughput
// but wins on p99 is named as the p99 leader.
func TestVerdictSeparatesLatencyLeaders(t *testing.T) {
	v := Verdict(fullFixture().write(t))
	lines := strings.Split(v, "\n")
	require.Equal(t, "throughput: postgres is fastest on 2 of 3 workloads, cassandra on 1", lines[0])
	require.Equal(t, "p99 latency: postgres lowest on all 3", lines[1], "cassandra leads b's throughput, postgres its p99")
	require.Contains(t, v, "1.1x* [0.9x, 1.3x] postgres: not distinguishable from 1x", "the client-bound trial's ratio is marked")
}
