package experiment

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// calRamp is a calibration that chose threads, with the throughput at each
// count.
func calRamp(threads int, points map[int]float64) *results.Calibration {
	c := &results.Calibration{Threads: threads}
	for _, n := range []int{1, 2, 4, 8, 16, 32, 64} {
		if x, ok := points[n]; ok {
			c.Points = append(c.Points, results.CalibrationPoint{Threads: n, Throughput: x})
		}
	}
	return c
}

// groupOf is a group of targets with the given calibrations.
func groupOf(cals ...*results.Calibration) *group {
	s := &runState{}
	g := &group{s: s}
	for i, c := range cals {
		s.manifest.Targets = append(s.manifest.Targets, results.TargetInfo{Calibration: c})
		g.runs = append(g.runs, &targetRun{s: s, index: i})
	}
	return g
}

// TestCommonThreads: targets run one count where it keeps each within
// 90% of its best by its own ramp, the count whose worst share is the
// highest; otherwise each its own. Both sides of the 90%.
func TestCommonThreads(t *testing.T) {
	// The A/A pair: noise chose 16 for one and 8 for the other; both
	// are within 10% of their best at 16.
	one := calRamp(16, map[int]float64{4: 17000, 8: 28000, 16: 30000, 32: 27000})
	two := calRamp(8, map[int]float64{4: 18000, 8: 29500, 16: 27000, 32: 28000})
	n, ok := groupOf(one, two).commonThreads()
	require.True(t, ok)
	require.Equal(t, 8, n, "at 8 one keeps 93%, two 100%; at 16 two keeps 91.5%: 8's worst share is higher")
	// PostgreSQL past its best at 8, Cassandra needing 64.
	pg := calRamp(8, map[int]float64{4: 17390, 8: 21576, 16: 17026, 32: 19866, 64: 14020})
	cas := calRamp(64, map[int]float64{8: 13583, 16: 16849, 32: 14914, 64: 17827})
	_, ok = groupOf(pg, cas).commonThreads()
	require.False(t, ok)
	// At the edge: 90% of the best shares, just under does not.
	a := calRamp(16, map[int]float64{8: 900, 16: 1000})
	b := calRamp(8, map[int]float64{8: 1000, 16: 900})
	n, ok = groupOf(a, b).commonThreads()
	require.True(t, ok)
	require.Equal(t, 16, n, "a tie goes to the larger count")
	b = calRamp(8, map[int]float64{8: 1000, 16: 899})
	a = calRamp(16, map[int]float64{8: 899, 16: 1000})
	_, ok = groupOf(a, b).commonThreads()
	require.False(t, ok)
	// A ramp that stopped before the count has no share of it.
	short := calRamp(8, map[int]float64{4: 900, 8: 1000})
	_, ok = groupOf(calRamp(32, map[int]float64{8: 950, 16: 990, 32: 1000}), short).commonThreads()
	require.True(t, ok, "both have 8")
	require.Zero(t, shareAt(short, 64))
}

// TestCommonThreadsAfterTheRampIsMeasuredOn: the Redis A/A pair whose
// ramps chose 4 (stopping at 16) and 64 shares no count until the short
// ramp is measured on to 64; then both keep 90% of their best there.
func TestCommonThreadsAfterTheRampIsMeasuredOn(t *testing.T) {
	short := calRamp(4, map[int]float64{1: 20000, 2: 38000, 4: 60000, 8: 61000, 16: 62000})
	long := calRamp(64, map[int]float64{1: 19000, 2: 37000, 4: 50000, 8: 55000, 16: 58000, 32: 60000, 64: 63000})
	_, ok := groupOf(short, long).commonThreads()
	require.False(t, ok, "at 4 the long ramp keeps 79%; the short one never reached 64")
	short.Points = append(short.Points, results.CalibrationPoint{Threads: 32, Throughput: 61500}, results.CalibrationPoint{Threads: 64, Throughput: 60000})
	n, ok := groupOf(short, long).commonThreads()
	require.True(t, ok)
	require.Equal(t, 64, n, "at 64 the short ramp keeps 97%, the long one 100%")
}
