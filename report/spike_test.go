package report

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// spikeRun is a run of three stages, 4 -> 40 -> 4 threads, in whole
// 1-s intervals: a baseline of 1,000 ops/s at p99 2 ms, a spike at p99
// 50 ms, then two intervals back at the baseline, one at p99 9 ms, and
// the baseline for good. With fragments, the collector's interval after
// each stage boundary is cut short there (the ticker keeps its own
// phase): 40 µs holding one operation, at 25,000 ops/s and p99 2 ms.
func spikeRun(fragments bool) *results.Data {
	t0 := start()
	d := &results.Data{Manifest: results.Manifest{Format: results.FormatVersion, Start: t0}}
	d.Trials = append(d.Trials, results.Trial{ID: "r", Kind: results.KindRun, Target: "x", Workload: "c", Start: t0, End: t0.Add(15 * time.Second)})
	for i, th := range []int{4, 40, 4} {
		d.Trials = append(d.Trials, results.Trial{ID: "r.stage" + string(rune('1'+i)), Kind: results.KindStage, Target: "x", Workload: "c",
			Threads: th, Throughput: 1000, Duration: 5 * time.Second, Latency: results.Latency{P50: 500, P99: 2000}})
	}
	add := func(elapsed, length time.Duration, stage int, ops int64, p99us float64) {
		p := results.Point{Trial: "r", Time: t0.Add(elapsed), Elapsed: elapsed, Length: length, Op: results.AllOps, Ops: ops,
			Stage: stage, Latency: results.Latency{P50: p99us / 4, P99: p99us}}
		p.SetRates()
		d.Points = append(d.Points, p)
	}
	const frag = 40 * time.Microsecond
	p99 := []float64{2000, 2000, 2000, 2000, 2000, 50000, 50000, 50000, 50000, 50000, 2100, 2000, 9000, 2000, 2000, 2000}
	for i := range 16 {
		stage := min(i/5+1, 3)
		from, length := time.Duration(i)*time.Second, time.Second
		if fragments && i%5 == 0 && i > 0 {
			add(from+frag, frag, stage, 1, 2000)
			from, length = from+frag, time.Second-frag
		}
		add(from+length, length, stage, 1000, p99[i])
	}
	return d
}

// TestSpikeRecoveryOnWholeIntervals: the recovery is judged on whole
// intervals: the fragment after the spike's end, one operation in 40
// µs, does not count as the first of three recovered intervals.
func TestSpikeRecoveryOnWholeIntervals(t *testing.T) {
	want := spikeSection(spikeRun(false))
	require.Len(t, want, 1)
	require.Contains(t, want[0].Recovery, "Recovered 3s after the spike")
	got := spikeSection(spikeRun(true))
	require.Len(t, got, 1)
	require.Equal(t, want[0].Recovery, got[0].Recovery)
}
