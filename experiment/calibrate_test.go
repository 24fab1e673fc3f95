package experiment

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
)

// feed gives the ramp one stage's intervals of calibrationInterval each,
// rate operations per second at 1 ms.
func feed(r *ramp, stage int, start time.Time, rate float64) time.Time {
	n := int(calibrationStage / calibrationInterval)
	for i := range n {
		res := measure.NewResults([]string{"READ"}, false)
		ops := int(rate * calibrationInterval.Seconds())
		for range ops {
			_ = res[0].Service.RecordValue(int64(time.Millisecond))
		}
		from := start.Add(time.Duration(i) * calibrationInterval)
		r.Interval(&runner.Interval{Stage: stage, Start: from, End: from.Add(calibrationInterval), Results: res})
	}
	return start.Add(calibrationStage)
}

// TestRampChoosesTheFewestNearTheMost: the ramp leaves each stage's
// settling out, stops once two doublings in a row add under 5%, and
// chooses the fewest threads within 95% of the most, both sides of it.
func TestRampChoosesTheFewestNearTheMost(t *testing.T) {
	for name, tc := range map[string]struct {
		four    float64
		threads int
	}{
		"4 threads at 95% of the most (9,596 of 10,100)": {9596, 4},
		"4 threads just under it (9,592)":                {9592, 8},
	} {
		t.Run(name, func(t *testing.T) {
			stopped := 0
			r := &ramp{stages: calibrationStages(), stop: func() { stopped++ }}
			at := time.Unix(1000, 0)
			for i, rate := range []float64{3000, 6000, tc.four, 9990, 10100, 10200} {
				at = feed(r, i, at, rate)
				if stopped > 0 {
					break
				}
			}
			require.Equal(t, 1, stopped, "4 -> 8 and 8 -> 16 threads add under 5%: the ramp stops as 32 begin")
			cal, err := r.choose("a")
			require.NoError(t, err)
			require.Len(t, cal.Points, 5, "32 threads were never measured")
			require.Equal(t, tc.threads, cal.Threads)
			require.InDelta(t, tc.four, cal.Points[2].Throughput, 4.1, "throughput after each stage's first 0.5 s")
			require.InDelta(t, 1000, cal.Points[2].P99, 10, "p99 in µs")
		})
	}
}

// TestDescribeCalibration is the line the run prints.
func TestDescribeCalibration(t *testing.T) {
	require.Equal(t, "threads 1: 3000 ops/s, 2: 6000 ops/s; chose 2, the fewest reaching 95% of the most (6000 ops/s)",
		describeCalibration(&results.Calibration{Points: []results.CalibrationPoint{{Threads: 1, Throughput: 3000}, {Threads: 2, Throughput: 6000}},
			Threads: 2, Share: 0.95}))
}

// TestRampMeasuredNothing: a ramp that saw no stage after its settling
// chooses nothing and says why.
func TestRampMeasuredNothing(t *testing.T) {
	r := &ramp{stages: calibrationStages(), stop: func() {}}
	_, err := r.choose("a")
	require.ErrorContains(t, err, "the ramp measured no stage")
}

// TestRampMeasuredOnHoldsEveryStage: a ramp measured on past where the
// flat rule stopped it (to the count another target chose) is not
// stopped by that rule, however flat, and gives every count a point.
func TestRampMeasuredOnHoldsEveryStage(t *testing.T) {
	stages := []runner.Stage{{Duration: calibrationStage, Threads: 32}, {Duration: calibrationStage, Threads: 64}}
	stopped := 0
	r := &ramp{stages: stages, stop: func() { stopped++ }, keepOn: true}
	at := time.Unix(1000, 0)
	for i := range stages {
		at = feed(r, i, at, 10000)
	}
	require.Zero(t, stopped)
	pts := r.points()
	require.Len(t, pts, 2)
	require.Equal(t, 64, pts[1].Threads)
	// The same flat throughput from 1 worker stops the ramp.
	r = &ramp{stages: calibrationStages(), stop: func() { stopped++ }}
	at = time.Unix(1000, 0)
	for i := range 4 {
		at = feed(r, i, at, 10000)
	}
	require.Equal(t, 1, stopped)
}
