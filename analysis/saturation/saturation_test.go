package saturation

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func sweep(xs ...float64) []Point {
	pts := make([]Point, len(xs))
	for i, x := range xs {
		pts[i] = Point{N: float64(int(1) << i), X: x}
	}
	return pts
}

func TestSaturated(t *testing.T) {
	require.False(t, Saturated([]float64{100, 190, 350}, 0.05, 2))
	require.True(t, Saturated([]float64{100, 190, 350, 360, 365}, 0.05, 2), "+2.9% then +1.4%")
	require.False(t, Saturated([]float64{100, 190, 350, 360, 400}, 0.05, 2), "the last step gained 11%")
	require.True(t, Saturated([]float64{100, 190, 350, 300}, 0.05, 1), "a drop is no gain")
	require.False(t, Saturated([]float64{100}, 0.05, 1), "too few points")
}

func TestFind(t *testing.T) {
	s, err := Find(sweep(100, 190, 350, 360, 365, 340), 0.05, 2)
	require.NoError(t, err)
	require.Equal(t, 2, s.Index, "from N=4 on, two steps each gained under 5%")
	require.Equal(t, 4, s.MaxIndex)
	s, err = Find(sweep(100, 200, 400), 0.05, 1)
	require.NoError(t, err)
	require.Equal(t, -1, s.Index, "still scaling")
	_, err = Find([]Point{{N: 2, X: 1}, {N: 1, X: 2}}, 0.05, 1)
	require.ErrorContains(t, err, "sorted by N")
	_, err = Find(sweep(1, 2), 0.05, 0)
	require.ErrorContains(t, err, "k >= 1")
}

func TestKneeIsMaximumPower(t *testing.T) {
	pts := []Point{
		{N: 1, X: 1000, Latency: 1.0},  // power 1000
		{N: 2, X: 1900, Latency: 1.05}, // 1810
		{N: 4, X: 3400, Latency: 1.2},  // 2833
		{N: 8, X: 4200, Latency: 1.9},  // 2211
		{N: 16, X: 4400, Latency: 3.6}, // 1222
	}
	k, err := Knee(pts)
	require.NoError(t, err)
	require.Equal(t, 2, k)
	_, err = Knee([]Point{{N: 1, X: 1}})
	require.ErrorContains(t, err, "no point has a positive latency")
}

func TestMaxAtSLO(t *testing.T) {
	pts := []RatePoint{
		{Target: 1000, Achieved: 1000, Latency: 2},
		{Target: 2000, Achieved: 1990, Latency: 4},
		{Target: 4000, Achieved: 3990, Latency: 12}, // misses the 10 ms SLO
		{Target: 8000, Achieved: 5000, Latency: 8},  // does not keep up
	}
	x, i := MaxAtSLO(pts, 10, 0.95)
	require.Equal(t, 1990.0, x)
	require.Equal(t, 1, i)
	_, i = MaxAtSLO(pts, 1, 0.95)
	require.Equal(t, -1, i)
}

func TestLatencyAtShare(t *testing.T) {
	pts := []Point{{N: 1, X: 1000, Latency: 1}, {N: 2, X: 2000, Latency: 2}, {N: 4, X: 4000, Latency: 6}, {N: 8, X: 3000, Latency: 20}}
	l, err := LatencyAtShare(pts, 0.75) // 3000 ops/s: between 2000 (2 ms) and 4000 (6 ms)
	require.NoError(t, err)
	require.InDelta(t, 4.0, l, 1e-12, "the falling part after the maximum is not used")
	l, err = LatencyAtShare(pts, 1)
	require.NoError(t, err)
	require.Equal(t, 6.0, l)
	l, err = LatencyAtShare(pts, 0.1)
	require.NoError(t, err)
	require.Equal(t, 1.0, l, "below the first point: its latency")
	_, err = LatencyAtShare(pts, 1.5)
	require.ErrorContains(t, err, "share 1.5")
}

// TestEnough pins the share from both sides: a point just below it is
// passed over for the next.
func TestEnough(t *testing.T) {
	pts := []Point{{N: 1, X: 3000}, {N: 2, X: 6000}, {N: 4, X: 9499}, {N: 8, X: 9500}, {N: 16, X: 10000}, {N: 32, X: 9800}}
	i, err := Enough(pts, 0.95)
	require.NoError(t, err)
	require.Equal(t, 3, i, "9,500 is 95%% of 10,000; 9,499 is not")
	pts[2].X = 9500
	i, err = Enough(pts, 0.95)
	require.NoError(t, err)
	require.Equal(t, 2, i)
	_, err = Enough(pts, 0)
	require.Error(t, err)
	_, err = Enough(nil, 0.95)
	require.Error(t, err)
}
