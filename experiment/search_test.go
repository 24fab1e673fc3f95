package experiment

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/analysis/capacity"
	"github.com/dbarena/dbarena/results"
)

// TestJudgeProbe holds each rule of a probe's judgement on both sides of
// its threshold: the bound, the share of the rate served, the 10%
// borderline, the busy workers (90%, once per rate, on a miss), the
// harness's lateness that would close a miss, and the flags that make a
// probe the client's (a met probe stays met: the client only added).
func TestJudgeProbe(t *testing.T) {
	slo := &results.SLO{Bounds: []results.SLOBound{{Percentile: "p99", MaxMs: 5}}, Achieved: 0.95}
	row := func(served, p99ms, concurrency float64, flags ...results.Flag) results.Trial {
		return results.Trial{Status: results.StatusCompleted, Throughput: served, Concurrency: concurrency,
			Latency: results.Latency{P99: p99ms * 1e3, Mean: 1e3}, Flags: flags}
	}
	paced := func(r results.Trial, p99us float64) results.Trial {
		r.Pacing.P99 = p99us
		return r
	}
	loaders := func(r results.Trial, workers int) results.Trial {
		r.Threads = workers
		return r
	}
	for name, c := range map[string]struct {
		row        results.Trial
		boosted    bool
		outcome    capacity.Outcome
		borderline bool
		why        string
	}{
		"met":                          {row: row(1000, 3, 1), outcome: capacity.Met},
		"p99 4.4 ms: clear":            {row: row(1000, 4.4, 1), outcome: capacity.Met},
		"p99 4.6 ms: met, borderline":  {row: row(1000, 4.6, 1), outcome: capacity.Met, borderline: true},
		"p99 5.0 ms: met at the bound": {row: row(1000, 5, 1), outcome: capacity.Met, borderline: true},
		"p99 5.4 ms: missed, border":   {row: row(1000, 5.4, 1), outcome: capacity.Missed, borderline: true, why: "p99 5.40 ms > 5 ms"},
		"p99 6 ms: missed":             {row: row(1000, 6, 1), outcome: capacity.Missed, why: "p99 6.00 ms > 5 ms"},
		"served 95%":                   {row: row(950, 3, 1), outcome: capacity.Met},
		"served 94%":                   {row: row(940, 3, 1), outcome: capacity.Missed, why: "served 94% of the rate, below the 95% a run must serve"},
		"failed by the error policy": {row: results.Trial{Status: results.StatusFailed, StatusReason: "2% of operations failed", Throughput: 900},
			outcome: capacity.Unfair, why: "the database failed: 2% of operations failed"},
		"pacing flag, met: conservative": {row: row(1000, 3, 1, results.Flagf(results.FlagPacing, "late")), outcome: capacity.Met},
		"pacing explains the miss": {row: paced(row(1000, 5.2, 1, results.Flagf(results.FlagPacing, "late")), 300), outcome: capacity.Unfair,
			why: "p99 5.20 ms > 5 ms, and without the harness's lateness (p99 0.30 ms) the latency would have met the bound"},
		"a miss beyond the pacing": {row: paced(row(1000, 5.4, 1, results.Flagf(results.FlagPacing, "late")), 300), outcome: capacity.Missed, borderline: true, why: "p99 5.40 ms > 5 ms"},
		"not steady":               {row: row(1000, 3, 1, results.Flagf(results.FlagNotSteady, "moved")), outcome: capacity.Unfair, why: "not-steady: moved"},
		"host saturated, met":      {row: row(1000, 3, 1, results.Flagf(results.FlagHostSaturated, "busy")), outcome: capacity.Met},
		"host saturated, missed":   {row: row(1000, 6, 1, results.Flagf(results.FlagHostSaturated, "busy")), outcome: capacity.Unfair, why: "host-saturated: busy"},
		// Other processes took a share of the cores: a miss may be
		// theirs and is probed again; a rate met despite them is met.
		"interfered, met":         {row: row(1000, 3, 1, results.Flagf(results.FlagInterfered, "steal 58%%")), outcome: capacity.Met},
		"interfered, missed":      {row: row(1000, 6, 1, results.Flagf(results.FlagInterfered, "steal 58%%")), outcome: capacity.Unfair, why: "interfered: steal 58%"},
		"target missed":           {row: row(900, 3, 1, results.Flagf(results.FlagTargetMissed, "below")), outcome: capacity.Missed, why: "served 90% of the rate, below the 95% a run must serve"},
		"workers 9 of 10, missed": {row: row(1000, 6, 9), outcome: capacity.Unfair, why: "workers nearly all busy (Little's law: 9.0 of 10 in use): operations waited for a free one"},
		"workers 8.9/10, missed":  {row: row(1000, 6, 8.9), outcome: capacity.Missed, why: "p99 6.00 ms > 5 ms"},
		"workers 9 of 10, met":    {row: row(1000, 3, 9), outcome: capacity.Met},
		// Two loaders of 10 workers each: 12 in use is not all busy.
		"two loaders, 12 of 20": {row: loaders(row(1000, 6, 12), 20), outcome: capacity.Missed, why: "p99 6.00 ms > 5 ms"},
		"two loaders, 18 of 20": {row: loaders(row(1000, 6, 18), 20), outcome: capacity.Unfair, why: "workers nearly all busy (Little's law: 18.0 of 20 in use): operations waited for a free one"},
		"busy, boosted":         {row: row(1000, 6, 10), boosted: true, outcome: capacity.Missed, why: "p99 6.00 ms > 5 ms"},
	} {
		t.Run(name, func(t *testing.T) {
			p := judgeProbe(c.row, 1000, 10, slo, c.boosted)
			require.Equal(t, c.outcome, p.Outcome, "why: %s", p.Why)
			require.Equal(t, c.why, p.Why)
			if c.outcome == capacity.Met {
				require.InDelta(t, c.row.Latency.P99/5e3, p.Score, 1e-9, "the score is the p99 against its bound")
			}
			if c.outcome != capacity.Unfair && c.row.Status != results.StatusFailed {
				require.Equal(t, c.borderline, p.Borderline)
			}
		})
	}
}

// TestDescribeSearch words a search's answer, resolved or not.
func TestDescribeSearch(t *testing.T) {
	s := results.Search{Objective: "p99 <= 5 ms", Closed: 6000, Rate: 4212, Ceiling: 4400, Resolved: true, Resolution: 0.05,
		Probes: []results.SearchProbe{{Rate: 3000, Outcome: "met"}, {Rate: 6000, Outcome: "missed", Why: "p99 40.00 ms > 5 ms"},
			{Rate: 4400, Outcome: "missed", Why: "p99 6.21 ms > 5 ms"}, {Rate: 4212, Outcome: "met"}}}
	require.Equal(t, "highest rate at p99 <= 5 ms: 4,212 ops/s; 4,400 ops/s missed (p99 6.21 ms > 5 ms): resolved to 4.5% in 4 probes", s.Describe())
	s.Resolved, s.Stop = false, "the probes ran out (4)"
	require.Equal(t, "highest rate at p99 <= 5 ms: 4,212 ops/s; 4,400 ops/s missed (p99 6.21 ms > 5 ms): not resolved to 5% (the probes ran out (4))", s.Describe())
	s.Rate, s.Stop = 0, "no rate met the objective down to 2 ops/s"
	require.Equal(t, "no rate met p99 <= 5 ms (no rate met the objective down to 2 ops/s; 4 probes, closed loop 6,000 ops/s)", s.Describe())
	// Nothing met and nothing missed: every probe unfair or failed.
	s.Ceiling, s.Stop = 0, "the database stopped answering"
	s.Probes = []results.SearchProbe{{Rate: 3000, Outcome: "unfair"}, {Rate: 3000, Outcome: "unfair"}}
	require.Equal(t, "no rate could be judged at p99 <= 5 ms (the database stopped answering; 2 probes, none of them fair)", s.Describe())
}

// TestProbeScoreOfAShortfall: a probe that served too little scores the
// shortfall when it is worse than its latency.
func TestProbeScoreOfAShortfall(t *testing.T) {
	slo := &results.SLO{Bounds: []results.SLOBound{{Percentile: "p99", MaxMs: 5}}, Achieved: 0.95}
	p := judgeProbe(results.Trial{Status: results.StatusCompleted, Throughput: 475, Latency: results.Latency{P99: 2e3}}, 1000, 10, slo, false)
	require.Equal(t, capacity.Missed, p.Outcome)
	require.InDelta(t, 2, p.Score, 1e-9, "0.95 x 1000 / 475")
	p = judgeProbe(results.Trial{Status: results.StatusCompleted, Throughput: 475, Latency: results.Latency{P99: 15e3}}, 1000, 10, slo, false)
	require.InDelta(t, 3, p.Score, 1e-9, "the p99's 15 ms over 5 is worse")
}
