package sysmetrics

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSummarize(t *testing.T) {
	t0 := time.Unix(100, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	nan := math.NaN()
	ss := []Sample{
		{Time: at(-1), Host: "db", Role: RoleDatabase, CPUPercent: 9999, MemoryBytes: 9999, DiskWriteBps: 9999},
		{Time: at(0), Host: "db", Role: RoleDatabase, CPUPercent: 50, MemoryBytes: 10, DiskReadBps: 1, DiskWriteBps: 100, NetRxBps: nan, NetTxBps: nan},
		{Time: at(1000), Host: "loader", Role: RoleLoader, CPUPercent: 190, MemoryBytes: nan, DiskWriteBps: 4, NetRxBps: nan, NetTxBps: nan},
		{Time: at(1000), Host: "db", Role: RoleDatabase, CPUPercent: nan, MemoryBytes: 30, DiskReadBps: 2, DiskWriteBps: 200, NetRxBps: nan, NetTxBps: nan},
		{Time: at(2000), Host: "db", Role: RoleDatabase, CPUPercent: 150, MemoryBytes: 20, DiskReadBps: 3, DiskWriteBps: 600, NetRxBps: nan, NetTxBps: nan},
		{Time: at(2001), Host: "db", Role: RoleDatabase, CPUPercent: 9999, MemoryBytes: 9999, DiskWriteBps: 9999},
		{Time: at(2500), Host: "cassandra-2", Role: RoleDatabase, CPUPercent: 1},
		{Time: at(1500), Host: "machine", Role: RoleMachine, CPUPercent: 120, MemoryBytes: 5, NetRxBps: 10, NetTxBps: 30,
			NetLink: "veth0", NetLinkBps: 900, NetLinkCapacityBps: 1000},
		{Time: at(1600), Host: "machine", Role: RoleMachine, CPUPercent: 80, MemoryBytes: 7, NetRxBps: 20, NetTxBps: 50,
			NetLink: "veth0", NetLinkBps: 1000, NetLinkCapacityBps: 1000},
		{Time: at(1700), Host: "machine", Role: RoleMachine, CPUPercent: nan, MemoryBytes: 7, NetRxBps: nan, NetTxBps: nan,
			NetLink: "eth0", NetLinkBps: 99, NetLinkCapacityBps: 100},
	}
	got := Summarize(ss, at(0), at(2000))
	require.Len(t, got, 3, "cassandra-2 has no sample in the window")
	nanStats := func(st Stats) Stats {
		// NaN != NaN: compare NaN figures by replacing them with -1.
		for _, f := range []*float64{&st.MeanCPU, &st.MaxCPU, &st.MaxMemory, &st.MeanDiskReadBps,
			&st.MeanDiskWriteBps, &st.MeanNetRxBps, &st.MeanNetTxBps, &st.MeanNetLinkBps, &st.NetLinkCapacityBps} {
			if math.IsNaN(*f) {
				*f = -1
			}
		}
		return st
	}
	want := []Stats{
		// Both ends of the window count; the NaN CPU is left out of the
		// mean and the maximum, not read as 0.
		{Host: "db", Role: RoleDatabase, Samples: 3, MeanCPU: 100, MaxCPU: 150, MaxMemory: 30,
			MeanDiskReadBps: 2, MeanDiskWriteBps: 300, MeanNetRxBps: -1, MeanNetTxBps: -1, MeanNetLinkBps: -1, NetLinkCapacityBps: -1},
		{Host: "loader", Role: RoleLoader, Samples: 1, MeanCPU: 190, MaxCPU: 190, MaxMemory: -1,
			MeanDiskReadBps: 0, MeanDiskWriteBps: 4, MeanNetRxBps: -1, MeanNetTxBps: -1, MeanNetLinkBps: -1, NetLinkCapacityBps: -1},
		// The link busiest in most samples, not the one busiest once.
		{Host: "machine", Role: RoleMachine, Samples: 3, MeanCPU: 100, MaxCPU: 120, MaxMemory: 7,
			MeanNetRxBps: 15, MeanNetTxBps: 40, NetLink: "veth0", MeanNetLinkBps: 950, NetLinkCapacityBps: 1000},
	}
	for i := range got {
		require.Equal(t, want[i], nanStats(got[i]))
	}
	require.Empty(t, Summarize(ss, at(3000), at(4000)))
	require.Empty(t, Summarize(nil, at(0), at(4000)))
}

func TestRater(t *testing.T) {
	t0 := time.Unix(100, 0)
	var r rater
	_, ok := r.next(counters{cpuSeconds: 1, diskWrite: 100, netRx: math.NaN()}, t0)
	require.False(t, ok, "priming")
	_, ok = r.next(counters{cpuSeconds: 1.001, diskWrite: 5000, netRx: math.NaN()}, t0.Add(5*time.Millisecond))
	require.False(t, ok, "5 ms is too short to say anything")
	s, ok := r.next(counters{cpuSeconds: 3, diskWrite: 50, memory: 7, netRx: math.NaN()}, t0.Add(2*time.Second))
	require.True(t, ok)
	require.Equal(t, t0.Add(2*time.Second), s.Time)
	require.InDelta(t, 100.0, s.CPUPercent, 1e-9, "the rate spans the 2 s since the priming")
	require.Zero(t, s.DiskWriteBps, "a counter that went down gives 0, not a negative rate")
	require.Equal(t, 7.0, s.MemoryBytes, "memory is a level")
	require.True(t, math.IsNaN(s.NetRxBps))
}

func TestCPUCount(t *testing.T) {
	// Go's NumCPU reads the same affinity mask at start-up.
	require.Equal(t, runtime.NumCPU(), CPUCount())
}

func TestDirSize(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a"), make([]byte, 100_000), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "b"), make([]byte, 50_000), 0o644))
	before, err := DirSize(dir)
	require.NoError(t, err)
	require.GreaterOrEqual(t, before, int64(150_000))
	require.Less(t, before, int64(300_000))

	// A 1 GiB sparse file occupies (almost) nothing.
	f, err := os.Create(filepath.Join(dir, "sparse"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(1<<30))
	require.NoError(t, f.Close())
	// A hard link (a Cassandra snapshot) adds no storage.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "snapshots"), 0o755))
	require.NoError(t, os.Link(filepath.Join(dir, "a"), filepath.Join(dir, "snapshots", "a")))
	after, err := DirSize(dir)
	require.NoError(t, err)
	require.Less(t, after-before, int64(64<<10), "only the new directory's and the empty file's blocks")

	_, err = DirSize(filepath.Join(dir, "missing"))
	require.ErrorContains(t, err, "missing")
	require.ErrorIs(t, err, os.ErrNotExist)
}
