package sizing

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/analysis/cost"
	"github.com/dbarena/dbarena/results"
)

// searched is a results directory of one database at two sizes, each
// searched at p99 <= 5 ms: 250m met 1,000 and missed 1,100 (p99 8 ms);
// 500m met 2,000 (p99 3 ms) and missed 2,100.
func searched() *results.Data {
	d := &results.Data{Dir: "r"}
	d.Manifest.SLO = &results.SLO{Bounds: []results.SLOBound{{Percentile: "p99", MaxMs: 5}}, Achieved: 0.95}
	for _, z := range []struct {
		size      string
		cpus      float64
		met, miss float64
		p99       float64
	}{{"250m", 0.25, 1000, 1100, 4000}, {"500m", 0.5, 2000, 2100, 3000}} {
		name := "redis-" + z.size
		d.Manifest.Targets = append(d.Manifest.Targets, results.TargetInfo{Name: name, Base: "redis", Size: z.size, CPUs: z.cpus, Nodes: 1, MemoryBytes: 1 << 30})
		s := results.Search{ID: name + ".c", Target: name, Workload: "c", Objective: "p99 <= 5 ms", Rate: z.met, Ceiling: z.miss, Resolved: true, Resolution: 0.05}
		for _, p := range []struct {
			rate, p99 float64
			outcome   string
		}{{z.met, z.p99, "met"}, {z.miss, 8000, "missed"}} {
			id := s.ID + ".target=" + fmt.Sprint(p.rate)
			s.Probes = append(s.Probes, results.SearchProbe{Trial: id, Rate: p.rate, Achieved: p.rate, Outcome: p.outcome})
			d.Trials = append(d.Trials, results.Trial{ID: id, Target: name, Workload: "c", TargetRate: p.rate, Throughput: p.rate,
				Latency: results.Latency{P99: p.p99}, Status: results.StatusCompleted})
		}
		d.Manifest.Searches = append(d.Manifest.Searches, s)
	}
	return d
}

func pricing(t *testing.T) Pricing {
	cat, err := cost.Default()
	require.NoError(t, err)
	return Pricing{Catalogue: cat, PerCore: DefaultPerCore, PerGiB: DefaultPerGiB}
}

func TestReadGroupsSizesAndPricesThem(t *testing.T) {
	groups, err := Read([]*results.Data{searched()}, nil, pricing(t))
	require.NoError(t, err)
	require.Len(t, groups, 1)
	g := groups[0]
	require.Equal(t, "redis", g.Database)
	require.Equal(t, "p99 <= 5 ms", g.Objective)
	require.Len(t, g.Sizes, 2)
	require.Equal(t, Measured{Label: "250m", Cores: 0.25, Rate: 1000, Ceiling: 1100, Monthly: g.Sizes[0].Monthly}, g.Sizes[0])
	// 0.25 vCPU and 1 GiB at GCP's N2D rates, for 730 hours.
	require.InDelta(t, (0.25*0.027502+0.003686)*730, g.Sizes[0].Monthly, 1e-9)
	require.InDelta(t, 4.0, g.Memory, 1e-12, "1 GiB on a quarter core: 4 GiB a core")
}

func TestReadJudgesAnew(t *testing.T) {
	// At p99 <= 3.5 ms, 250m's met probe (p99 4 ms) misses: nothing met.
	// 500m's (3 ms) still meets.
	slo := &results.SLO{Bounds: []results.SLOBound{{Percentile: "p99", MaxMs: 3.5}}}
	groups, err := Read([]*results.Data{searched()}, slo, pricing(t))
	require.NoError(t, err)
	g := groups[0]
	require.Equal(t, "p99 <= 3.5 ms", g.Objective)
	require.Equal(t, 0.0, g.Sizes[0].Rate)
	require.Equal(t, 1000.0, g.Sizes[0].Ceiling)
	require.Empty(t, g.Sizes[0].Refusal, "nothing met is an answer, not a refusal")
	require.Equal(t, 2000.0, g.Sizes[1].Rate)
	require.Contains(t, g.Notes[0], "lower bound")
	// Looser, at 10 ms: the misses meet too.
	slo.Bounds[0].MaxMs = 10
	groups, err = Read([]*results.Data{searched()}, slo, pricing(t))
	require.NoError(t, err)
	require.Equal(t, 1100.0, groups[0].Sizes[0].Rate)
	require.Equal(t, 0.0, groups[0].Sizes[0].Ceiling)
}

func TestReadRefusesWhatTheClientMade(t *testing.T) {
	for _, c := range []struct {
		flag    results.Flag
		refused bool
	}{
		{"host-saturated: this machine was at 199% CPU of 200%", true},
		{"client-bound: only 0.6 of 2 workers were waiting on the database", true},
		{"not-steady: throughput fell 30% over the window", true},
		{"pacing: the load generator started operations late", false},
	} {
		d := searched()
		d.Trials[0].Flags = []results.Flag{c.flag} // 250m's met probe
		groups, err := Read([]*results.Data{d}, nil, pricing(t))
		require.NoError(t, err)
		got := groups[0].Sizes[0].Refusal
		if c.refused {
			require.Contains(t, got, "redis-250m.c.target=1000", c.flag)
			require.Contains(t, got, string(c.flag))
		} else {
			require.Empty(t, got, c.flag)
		}
	}
	// A search whose last probe proved nothing and met nothing.
	d := searched()
	s := &d.Manifest.Searches[0]
	s.Rate, s.Stop = 0, "3 probes at 2,753 ops/s in a row proved nothing of the database"
	s.Probes = []results.SearchProbe{{Trial: "x", Rate: 2753, Outcome: "unfair"}}
	groups, err := Read([]*results.Data{d}, nil, pricing(t))
	require.NoError(t, err)
	require.Contains(t, groups[0].Sizes[0].Refusal, "could not judge the database: 3 probes")
}

func TestReadErrors(t *testing.T) {
	_, err := Read([]*results.Data{{Dir: "empty"}}, nil, pricing(t))
	require.ErrorContains(t, err, "no rate searches")
	d := searched()
	d.Manifest.Searches[1].Objective = "p99 <= 9 ms"
	_, err = Read([]*results.Data{d}, nil, pricing(t))
	require.ErrorContains(t, err, "give the objective to judge them all by (--p99)")
	// Unknown price entries leave the cost unknown, not zero.
	p := pricing(t)
	p.PerCore = "no-such-entry"
	groups, err := Read([]*results.Data{searched()}, nil, p)
	require.NoError(t, err)
	require.True(t, math.IsNaN(groups[0].Sizes[0].Monthly))
}

func TestConfirm(t *testing.T) {
	slo := &results.SLO{Bounds: []results.SLOBound{{Percentile: "p99", MaxMs: 5}}}
	row := func(tput, p99 float64, flags ...results.Flag) results.Trial {
		return results.Trial{Throughput: tput, Latency: results.Latency{P99: p99}, Status: results.StatusCompleted, Flags: flags}
	}
	for _, c := range []struct {
		row  results.Trial
		want Confirmation
		why  string
	}{
		{row(1000, 5000), Confirmed, "p99 <= 5 ms held"},
		{row(1000, 5001), NotConfirmed, "p99 5.00 ms > 5 ms"},
		{row(950, 1000), Confirmed, "served 950 of 1,000"},
		{row(949, 1000), NotConfirmed, "served 94% of the rate, below the 95% a run must serve"},
		{row(1000, 1000, "pacing: late"), Confirmed, "held"},
		{row(1000, 1000, "host-saturated: 199% of 200%"), Unjudged, "proves nothing of the database: host-saturated"},
		{row(1000, 5000, "interfered: other processes took 30% of core 1"), Confirmed, "held"},
		{row(1000, 5001, "interfered: other processes took 30% of core 1"), Unjudged, "p99 5.00 ms > 5 ms, while interfered: other processes took 30%"},
		{row(949, 1000, "interfered: other processes took 30% of core 1"), Unjudged, "below the 95% a run must serve, while interfered"},
		{results.Trial{Status: results.StatusFailed, StatusReason: "connection refused"}, NotConfirmed, "the run failed: connection refused"},
	} {
		got, why := Confirm(c.row, 1000, slo)
		require.Equal(t, c.want, got, why)
		require.Contains(t, why, c.why)
	}
	require.Equal(t, "could not confirm", Unjudged.String())
	require.Equal(t, "not confirmed", NotConfirmed.String())
}

func TestGroupThreads(t *testing.T) {
	g := Group{Sizes: []Measured{{Rate: 1000, Threads: 4}, {Rate: 2000, Threads: 12}, {Rate: 0, Threads: 99}}}
	require.Equal(t, 18, g.Threads(3000, 2), "6 workers per 1,000 ops/s at most")
	require.Equal(t, 8, g.Threads(100, 8), "at least the run's threads")
}
