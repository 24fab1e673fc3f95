package experiment

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/experiment/spec"
)

func TestSweepTrackerStopsASaturatedSweep(t *testing.T) {
	tg := &spec.Target{Name: "pg"}
	wl := &spec.Workload{Name: "c"}
	step := func(threads int, extra ...spec.KV) *spec.Step {
		params := append([]spec.KV{{Key: "threads", Value: fmt.Sprint(threads)}}, extra...)
		return &spec.Step{Kind: spec.Run, Target: tg, Workload: wl, Params: params}
	}
	tr := newSweepTracker(spec.RunSettings{Until: spec.UntilSaturated, SaturationGain: 0.05, SaturationSteps: 2})
	// Two repetitions per point; means 100, 200, 205, 208: the steps to
	// 4 and 8 threads each gain under 5%, so 16 and 32 are skipped.
	for _, p := range []struct {
		threads int
		xs      []float64
	}{{1, []float64{90, 110}}, {2, []float64{200, 200}}, {4, []float64{205, 205}}, {8, []float64{207, 209}}} {
		for _, x := range p.xs {
			_, skip := tr.saturated(step(p.threads))
			require.False(t, skip, "threads=%d", p.threads)
			tr.record(step(p.threads), x)
		}
	}
	at, skip := tr.saturated(step(16))
	require.True(t, skip)
	require.Equal(t, "8", at)
	_, skip = tr.saturated(step(32))
	require.True(t, skip)
	// Another matrix point is another sweep.
	_, skip = tr.saturated(step(16, spec.KV{Key: "requestdistribution", Value: "uniform"}))
	require.False(t, skip)

	off := newSweepTracker(spec.RunSettings{})
	off.record(step(1), 1)
	off.record(step(2), 1)
	off.record(step(4), 1)
	_, skip = off.saturated(step(8))
	require.False(t, skip, "without until: saturated every point runs")
}
