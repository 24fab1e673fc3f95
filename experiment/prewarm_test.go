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

// TestBlocksStopOnceSixAgree: a climbing JVM is warmed until six
// five-second blocks in a row agree within 5%, and no sooner; a plateau
// of three blocks inside a climb (Cassandra's, measured on one core) does
// not end it.
func TestBlocksStopOnceSixAgree(t *testing.T) {
	stopped := 0
	b := &blocks{per: 5, stop: func() { stopped++ }}
	at := time.Unix(0, 0)
	rates := []int{685, 762, 861, 976, 1017, 1168, 1209, 1166, 1400, 1600, 1590, 1610, 1600, 1620, 1605, 1595, 9999}
	for _, rate := range rates {
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
	require.Len(t, b.rates, 15, "1,168, 1,209 and 1,166 agree but sit in a climb; 1,590 to 1,605 are six that agree")
}

// TestAgreeThresholds pins the 5% from both sides, on the drift and on
// the spread, and the six blocks.
func TestAgreeThresholds(t *testing.T) {
	// Six blocks on a line: drift = (last - first) / mean.
	require.True(t, agree([]float64{975, 985, 995, 1005, 1015, 1025}), "a drift of 5.0%")
	require.False(t, agree([]float64{974, 984.4, 994.8, 1005.2, 1015.6, 1026}), "a drift of 5.2%")
	// No drift, a dip in the middle: a CV of 4.2%, then 5.9%.
	require.True(t, agree([]float64{1000, 1000, 920, 920, 1000, 1000}))
	require.False(t, agree([]float64{1000, 1000, 890, 890, 1000, 1000}), "a spread of 5.9%")
	require.False(t, agree([]float64{1000, 1000, 1000, 1000, 1000}), "five blocks are not enough")
}

// TestDescribePrewarm is the line the run prints.
func TestDescribePrewarm(t *testing.T) {
	require.Equal(t, "warm after 15s: 3900, 4000, 4050 ops/s in 5s blocks",
		describePrewarm(&results.Prewarm{Blocks: []float64{3900, 4000, 4050}, BlockSeconds: 5, Settled: true}))
	require.Equal(t, "still moving after 10s, the warm-up's limit: 1000, 2000 ops/s in 5s blocks; the trials' own warm-ups go on from there",
		describePrewarm(&results.Prewarm{Blocks: []float64{1000, 2000}, BlockSeconds: 5}))
}
