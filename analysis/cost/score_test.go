package cost

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScore works the bare-metal versus cloud study's normalisation by
// hand on three targets:
//
//	target  ops/s    $/month  ops/s per $  score           p99 ms  ms x $  latency score
//	a       100,000  1,000    100          100x100/200=50  2       2,000   100x1,000/2,000=50
//	b       150,000  3,000    50           25              1       3,000   33.3
//	c       20,000   100      200          100             10      1,000   100
func TestScore(t *testing.T) {
	got, err := Score([]Entry{
		{Name: "a", Throughput: 100_000, MonthlyCost: 1_000, LatencyMs: 2},
		{Name: "b", Throughput: 150_000, MonthlyCost: 3_000, LatencyMs: 1},
		{Name: "c", Throughput: 20_000, MonthlyCost: 100, LatencyMs: 10},
	})
	require.NoError(t, err)
	require.Len(t, got, 3)
	month := 730.0 * 3600 // seconds
	for i, want := range []struct {
		name                            string
		opsPerDollar, perMillion, score float64
		rank                            int
		latDollar, latScore             float64
		latRank                         int
	}{
		// Cost per million: $1,000 / (100,000 ops/s x 2,628,000 s) x 1e6.
		{"a", 100, 1_000 / (100_000 * month) * 1e6, 50, 2, 2_000, 50, 2},
		{"b", 50, 3_000 / (150_000 * month) * 1e6, 25, 3, 3_000, 100.0 / 3, 3},
		{"c", 200, 100 / (20_000 * month) * 1e6, 100, 1, 1_000, 100, 1},
	} {
		r := got[i]
		require.Equal(t, want.name, r.Name, "results keep the order given")
		require.InDelta(t, want.opsPerDollar, r.OpsPerDollar, 1e-9)
		require.InDelta(t, want.perMillion, r.CostPerMillion, 1e-15)
		require.InDelta(t, want.score, r.Score, 1e-9)
		require.Equal(t, want.rank, r.Rank)
		require.InDelta(t, want.latDollar, r.LatencyDollar, 1e-9)
		require.InDelta(t, want.latScore, r.LatencyScore, 1e-9)
		require.Equal(t, want.latRank, r.LatencyRank)
	}
	// a: $0.0038 per million operations.
	require.InDelta(t, 0.0038051750380517503, got[0].CostPerMillion, 1e-15)
}

func TestScoreTiesAndMissingLatency(t *testing.T) {
	got, err := Score([]Entry{
		{Name: "x", Throughput: 1_000, MonthlyCost: 10, LatencyMs: 5},
		{Name: "y", Throughput: 2_000, MonthlyCost: 20},
		{Name: "z", Throughput: 500, MonthlyCost: 10, LatencyMs: 5},
	})
	require.NoError(t, err)
	// x and y both buy 100 ops/s per dollar: both rank 1, z ranks 3.
	require.Equal(t, []int{1, 1, 3}, []int{got[0].Rank, got[1].Rank, got[2].Rank})
	require.Equal(t, []float64{100, 100, 50}, []float64{got[0].Score, got[1].Score, got[2].Score})
	// y has no latency: no latency figures; x and z tie at 5 x 10 = 50.
	require.Zero(t, got[1].LatencyDollar)
	require.Zero(t, got[1].LatencyScore)
	require.Zero(t, got[1].LatencyRank)
	require.Equal(t, []int{1, 1}, []int{got[0].LatencyRank, got[2].LatencyRank})
	require.Equal(t, []float64{100, 100}, []float64{got[0].LatencyScore, got[2].LatencyScore})
}

func TestScoreRejects(t *testing.T) {
	for name, tc := range map[string]struct {
		in   []Entry
		want []string
	}{
		"none":                {nil, []string{"price-performance: no entries"}},
		"negative throughput": {[]Entry{{Name: "a", Throughput: -1, MonthlyCost: 1}}, []string{"a: throughput -1 ops/s: want a number above 0"}},
		"zero throughput":     {[]Entry{{Name: "a", Throughput: 0, MonthlyCost: 1}}, []string{"a: throughput 0 ops/s"}},
		"zero cost":           {[]Entry{{Name: "a", Throughput: 1}}, []string{"a: monthly cost 0: want a price above 0"}},
		"infinite cost":       {[]Entry{{Name: "a", Throughput: 1, MonthlyCost: math.Inf(1)}}, []string{"a: monthly cost +Inf"}},
		"NaN throughput":      {[]Entry{{Name: "a", Throughput: math.NaN(), MonthlyCost: 1}}, []string{"a: throughput NaN"}},
		"negative latency":    {[]Entry{{Name: "a", Throughput: 1, MonthlyCost: 1, LatencyMs: -2}}, []string{"a: latency -2 ms"}},
		"unnamed and twice": {[]Entry{{Throughput: 1}, {Name: "b", Throughput: 1, MonthlyCost: 1}, {Name: "b", Throughput: 1, MonthlyCost: 1}},
			[]string{"entry 1: monthly cost 0", "b: name given twice"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Score(tc.in)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
		})
	}
}

// TestScaling weighs scaling out as the Postgres versus ScyllaDB study
// did: 1 node, 10,000 ops/s for $500 a month, to 3 nodes, 24,000 ops/s
// for $1,500. Throughput gained 24,000/10,000 - 1 = 140%, cost added
// 1,500/500 - 1 = 200%, efficiency 1.4/2 = 0.7; the added $1,000 bought
// 14,000 ops/s, 14 per dollar against the first node's 20.
func TestScaling(t *testing.T) {
	s, err := Scaling(
		Entry{Name: "pg-1", Throughput: 10_000, MonthlyCost: 500},
		Entry{Name: "pg-3", Throughput: 24_000, MonthlyCost: 1_500})
	require.NoError(t, err)
	require.Equal(t, "pg-1", s.From)
	require.Equal(t, "pg-3", s.To)
	require.InDelta(t, 1.4, s.ThroughputGain, 1e-12)
	require.InDelta(t, 2.0, s.CostAdded, 1e-12)
	require.InDelta(t, 0.7, s.Efficiency, 1e-12)
	require.InDelta(t, 14.0, s.MarginalOpsPerDollar, 1e-12)

	_, err = Scaling(Entry{Name: "a", Throughput: 1, MonthlyCost: 5}, Entry{Name: "b", Throughput: 2, MonthlyCost: 5})
	require.ErrorContains(t, err, "scaling a to b: both cost 5 a month")
	_, err = Scaling(Entry{Name: "a", Throughput: -1, MonthlyCost: 5}, Entry{Name: "b", Throughput: 2, MonthlyCost: 6})
	require.ErrorContains(t, err, "scaling: a: throughput -1")
}
