package experiment

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
)

// second gives the observer one one-second interval of n operations.
func second(o runner.Observer, at time.Time, n int) {
	res := measure.NewResults([]string{"READ"}, false)
	for range n {
		_ = res[0].Service.RecordValue(int64(time.Millisecond))
	}
	o.Interval(&runner.Interval{Start: at, End: at.Add(time.Second), Results: res})
}

// TestBlocksStopOnceThreeAgree: a climbing JVM is warmed until three
// five-second blocks in a row agree within 5%, and no sooner.
func TestBlocksStopOnceThreeAgree(t *testing.T) {
	stopped := 0
	b := &blocks{per: 5, stop: func() { stopped++ }}
	at := time.Unix(0, 0)
	for _, rate := range []int{1000, 2000, 3000, 3900, 4000, 4050, 9999} {
		for range 5 {
			second(b, at, rate)
			at = at.Add(time.Second)
		}
		if stopped > 0 {
			break
		}
	}
	require.Equal(t, 1, stopped)
	require.True(t, b.settled)
	require.Equal(t, []float64{1000, 2000, 3000, 3900, 4000, 4050}, b.rates, "3,900, 4,000 and 4,050 agree; 3,000 to 4,000 did not")
}

// TestAgreeThresholds pins the 5% from both sides, on the drift and on
// the spread.
func TestAgreeThresholds(t *testing.T) {
	// Three blocks on a line: drift = (last - first) / mean.
	require.True(t, agree([]float64{975, 1000, 1025}), "a drift of 5.0%")
	require.False(t, agree([]float64{974, 1000, 1026}), "a drift of 5.2%")
	// No drift, a dip in the middle: a CV of 2.9%, then 6.0%.
	require.True(t, agree([]float64{1000, 950, 1000}))
	require.False(t, agree([]float64{1000, 900, 1000}), "a spread of 6.0%")
	require.False(t, agree([]float64{1000, 1000}), "two blocks are not enough")
}

// TestDescribePrewarm is the line the run prints.
func TestDescribePrewarm(t *testing.T) {
	require.Equal(t, "warm after 15s: 3900, 4000, 4050 ops/s in 5s blocks",
		describePrewarm(&results.Prewarm{Blocks: []float64{3900, 4000, 4050}, BlockSeconds: 5, Settled: true}))
	require.Equal(t, "still moving after 10s, the warm-up's limit: 1000, 2000 ops/s in 5s blocks; the trials' own warm-ups go on from there",
		describePrewarm(&results.Prewarm{Blocks: []float64{1000, 2000}, BlockSeconds: 5}))
}
