package littles

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSize(t *testing.T) {
	p, err := Size(100_000, 2*time.Millisecond, 1.5, 64, 128)
	require.NoError(t, err)
	require.InDelta(t, 200.0, p.Concurrency, 1e-9)
	require.Equal(t, 300, p.Threads)
	require.Equal(t, 3, p.Loaders, "300 threads over loaders of 128")
	require.InDelta(t, 32_000.0, p.Reachable, 1e-6)
	s := p.String()
	require.Contains(t, s, "100,000 ops/s at 2ms mean latency keeps 200.0 operations in flight")
	require.Contains(t, s, "at least 200 threads")
	require.Contains(t, s, "300 threads, i.e. 3 loader(s) of 128 threads")
	require.Contains(t, s, "With 64 threads: at most 32,000 ops/s")
	require.Contains(t, s, "too few")

	p, err = Size(1000, time.Millisecond, 1, 8, 0)
	require.NoError(t, err)
	require.Equal(t, 1, p.Threads)
	require.Contains(t, p.String(), "8,000 ops/s at this latency; enough")
}

func TestSizeRejectsBadInput(t *testing.T) {
	_, err := Size(0, 0, 0.5, -1, 0)
	require.ErrorContains(t, err, "throughput 0")
	require.ErrorContains(t, err, "latency 0s")
	require.ErrorContains(t, err, "headroom 0.5")
	require.ErrorContains(t, err, "threads")
}

func TestSizeOverflow(t *testing.T) {
	for name, c := range map[string]struct {
		throughput, headroom float64
		latency              time.Duration
		perLoader            int
		want                 string
	}{
		"1e300 ops/s for an hour": {throughput: 1e300, latency: time.Hour, headroom: 1.5, want: "needs 5.4e+303 threads: more than a thread count can hold"},
		"1e16 ops/s for an hour":  {throughput: 1e16, latency: time.Hour, headroom: 1.5, want: "needs 5.4e+19 threads"},
		"infinite headroom":       {throughput: 100, latency: time.Millisecond, headroom: math.Inf(1), want: "headroom +Inf"},
		"huge headroom":           {throughput: 100, latency: time.Millisecond, headroom: 1e308, want: "more than a thread count can hold"},
		"just fits":               {throughput: 1e15, latency: time.Hour, headroom: 1, perLoader: 1},
	} {
		t.Run(name, func(t *testing.T) {
			p, err := Size(c.throughput, c.latency, c.headroom, 0, c.perLoader)
			if c.want == "" {
				require.NoError(t, err)
				require.Positive(t, p.Threads)
				require.Equal(t, p.Threads, p.Loaders, "one thread per loader")
				require.NotContains(t, p.String(), "-9223372036854775808")
				return
			}
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestGroup(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		require.Equal(t, want, group(in))
	}
}
