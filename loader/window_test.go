package loader

import (
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/measure/hlog"
	"github.com/dbarena/dbarena/merge"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
)

func packed(t *testing.T, n int) *hdrhistogram.PackedHistogram {
	t.Helper()
	h := hdrhistogram.NewPacked(1, int64(time.Hour), 3)
	for i := range n {
		require.NoError(t, h.RecordValue(int64(1000*(i+1))))
	}
	return h
}

// TestMergedWindowKeepsWarmupApart: a window where a loader's warm-up
// ended holds both phases' tags; each gets rows of its own, the measured
// part's failures leave out data-integrity checks, and are scaled to the
// operations the loaders counted.
func TestMergedWindowKeepsWarmupApart(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	m := &merge.Result{Start: start, Window: time.Second}
	ws := []merge.Window{
		{Start: start, Tag: hlog.Tag{Op: "READ"}.String(), Hist: packed(t, 10)},
		{Start: start, Tag: hlog.Tag{Kind: hlog.Failed, Op: "READ"}.String(), Hist: packed(t, 4)},
		{Start: start, Tag: hlog.Tag{Kind: hlog.Failed, Op: runner.VerifySeries}.String(), Hist: packed(t, 3)},
		{Start: start, Tag: hlog.Tag{Kind: hlog.Pacing}.String(), Hist: packed(t, 10)},
		{Start: start, Tag: hlog.Tag{Warmup: true, Op: "READ"}.String(), Hist: packed(t, 5)},
	}
	parts := window("t", m, start, ws, 0.5)
	require.Len(t, parts, 2)
	warm, meas := parts[0], parts[1]
	require.True(t, warm.Warm)
	require.False(t, meas.Warm)
	all := func(p Part) results.Point { return p.Points[len(p.Points)-1] }
	require.EqualValues(t, 5, all(warm).Ops)
	require.True(t, all(warm).Warmup)
	require.EqualValues(t, 12, all(meas).Ops, "10 successes and 4 failed parts counted as 2 operations")
	require.EqualValues(t, 2, all(meas).Errors, "VERIFY mismatches are not operations' failures")
	require.EqualValues(t, 10, meas.All.TotalCount())
	require.Positive(t, all(meas).Pacing.P50)
	require.False(t, all(meas).Warmup)
}

// TestMergedBatchLatencyLabelled: loaders whose INSERT latencies were
// their batches' make a merged INSERT labelled the same; loaders that
// did not batch, one left unlabelled.
func TestMergedBatchLatencyLabelled(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	h := measure.NewHistogram()
	for i := range 2000 {
		require.NoError(t, h.RecordValue(int64(1000*(i%100+1))))
	}
	m := &merge.Result{Start: start, Window: time.Second, Totals: map[string]*hdrhistogram.Histogram{hlog.Tag{Op: "INSERT"}.String(): h}}
	sum := func(batch int) results.Summary {
		var s results.Summary
		s.Measured.Operations = 1000
		s.Measured.Ops = []measure.OpSummary{{Name: "INSERT", OK: 1000, BatchOf: batch}}
		return s
	}
	cfg := runner.Config{Phase: runner.Load, BatchSize: 100}
	for batch, want := range map[int]int{100: 100, 0: 0} {
		r := Result(m, []results.Summary{sum(batch), sum(batch)}, cfg)
		var got int
		for _, op := range r.Measured.Ops {
			if op.Name == "INSERT" {
				got = op.BatchOf
			}
		}
		require.Equal(t, want, got, "loaders batching %d", batch)
	}
}
