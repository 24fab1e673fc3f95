package spike_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/analysis/spike"
)

// series makes one interval a second: p99s and rates per second, the
// stage changing at the given seconds.
func series(stageAt []int, p99 []float64, rate []float64) []spike.Interval {
	var out []spike.Interval
	stage := 0
	for i := range p99 {
		for stage+1 < len(stageAt) && i >= stageAt[stage+1] {
			stage++
		}
		out = append(out, spike.Interval{Start: time.Duration(i) * time.Second, Stage: stage, P99Ms: p99[i], Rate: rate[i]})
	}
	return out
}

func TestRecovery(t *testing.T) {
	stages := []spike.Stage{{Threads: 4, Rate: 1000, P99Ms: 2}, {Threads: 404, Rate: 3000, P99Ms: 40}, {Threads: 4, Rate: 900, P99Ms: 5}}
	// Seconds 0-4 baseline, 5-9 spike, 10- after: p99 stays high for 3 s
	// (a queue draining), then 2.1 ms (within 20% of 2) from second 13.
	p99 := []float64{2, 2, 2, 2, 2, 30, 40, 40, 40, 40, 30, 10, 3, 2.1, 2.1, 2.2, 2.0, 2.0}
	rate := []float64{1000, 1000, 1000, 1000, 1000, 3000, 3000, 3000, 3000, 3000, 700, 900, 950, 1000, 990, 980, 1000, 1000}
	r := spike.Analyze(stages, series([]int{0, 5, 10}, p99, rate), 0, 0)
	require.Equal(t, 1, r.Spike)
	require.Equal(t, 0, r.Baseline)
	require.True(t, r.Recovered)
	require.Equal(t, 3*time.Second, r.After, "from second 10, when the spike ended, to second 13")
	require.Contains(t, r.Text, "recovered 3s after the spike (stage 2) ended")

	// A blip inside the good run restarts the count.
	p99[14] = 9
	r = spike.Analyze(stages, series([]int{0, 5, 10}, p99, rate), 0, 0)
	require.Equal(t, 5*time.Second, r.After, "seconds 15, 16, 17")

	// Never back: latency stays high.
	for i := 10; i < len(p99); i++ {
		p99[i] = 8
	}
	r = spike.Analyze(stages, series([]int{0, 5, 10}, p99, rate), 0, 0)
	require.False(t, r.Recovered)
	require.Contains(t, r.Text, "did not recover")

	// Throughput counts too: fast but too few operations is not back.
	p99 = []float64{2, 2, 2, 2, 2, 30, 40, 40, 40, 40, 2, 2, 2, 2, 2, 2}
	rate = []float64{1000, 1000, 1000, 1000, 1000, 3000, 3000, 3000, 3000, 3000, 100, 100, 100, 1000, 1000, 1000}
	r = spike.Analyze(stages, series([]int{0, 5, 10}, p99, rate), 0, 0)
	require.Equal(t, 3*time.Second, r.After)
}

func TestRecoveryNeedsStagesAroundTheSpike(t *testing.T) {
	for name, c := range map[string]struct {
		stages []spike.Stage
		want   string
	}{
		"one stage":   {[]spike.Stage{{Threads: 4}}, "a single stage"},
		"spike first": {[]spike.Stage{{Threads: 40}, {Threads: 4}}, "no baseline"},
		"spike last":  {[]spike.Stage{{Threads: 4}, {Threads: 8}, {Threads: 40}}, "nothing was measured after it"},
	} {
		r := spike.Analyze(c.stages, nil, 0, 0)
		require.False(t, r.Recovered, name)
		require.Contains(t, r.Text, c.want, name)
	}
	// Paced stages: the load is the rate, not the threads.
	r := spike.Analyze([]spike.Stage{{Threads: 64, Target: 1000, Rate: 1000, P99Ms: 1}, {Threads: 64, Target: 9000}, {Threads: 64, Target: 1000}}, nil, 0, 0)
	require.Equal(t, 1, r.Spike)
}
