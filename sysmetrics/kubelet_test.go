package sysmetrics

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestKubeletPod reads two pages a real kubelet (1.34) served 1.77 s
// apart, with a pod spinning one core: the first primes, the same page
// again brings no newer reading and yields nothing, the second gives one
// core and the pod's working set.
func TestKubeletPod(t *testing.T) {
	a, err := os.ReadFile("testdata/kubelet-1.34-a.txt")
	require.NoError(t, err)
	b, err := os.ReadFile("testdata/kubelet-1.34-b.txt")
	require.NoError(t, err)
	src := NewKubeletPod("cap", RoleDatabase, serve(t, a, a, b), "default", "cap", nil)
	now := time.Now()
	for i := range 2 {
		_, ok, err := src.Sample(now.Add(time.Duration(i) * time.Second))
		require.NoError(t, err)
		require.False(t, ok, "scrape %d brings nothing newer", i+1)
	}
	s, ok, err := src.Sample(now.Add(2 * time.Second))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "cap", s.Host)
	require.Equal(t, RoleDatabase, s.Role)
	// (4.497183292 - 2.731248939) s of CPU over 1.766 s of the kubelet's
	// clock: one core.
	require.InDelta(t, 100, s.CPUPercent, 0.5)
	require.InDelta(t, 2.2528e6, s.MemoryBytes, 1)
	require.True(t, s.DiskReadBps != s.DiskReadBps, "no disk figures per pod: NaN")

	_, _, err = NewKubeletPod("x", RoleDatabase, serve(t, a), "default", "other", nil).Sample(now)
	require.ErrorContains(t, err, "no pod_cpu_usage_seconds_total with a timestamp for pod default/other")
}
