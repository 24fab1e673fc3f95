package sysmetrics

import (
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// onlineCPUs counts the cpuN lines of /proc/stat: the machine's cores,
// which the process's affinity mask (CPUCount) may narrow.
func onlineCPUs(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/stat")
	require.NoError(t, err)
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "cpu") && !strings.HasPrefix(line, "cpu ") {
			n++
		}
	}
	require.Positive(t, n)
	return n
}

// loopback sends n bytes to itself over a TCP connection on 127.0.0.1
// and returns once they have all been received.
func loopback(t *testing.T, n int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	got := make(chan int64, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- 0
			return
		}
		defer c.Close()
		k, _ := io.Copy(io.Discard, c)
		got <- k
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	_, err = c.Write(make([]byte, n))
	require.NoError(t, err)
	require.NoError(t, c.Close())
	select {
	case k := <-got:
		require.Equal(t, int64(n), k)
	case <-time.After(10 * time.Second):
		t.Fatal("loopback transfer did not finish")
	}
}

func TestMachine(t *testing.T) {
	src := NewMachine("here")
	require.Equal(t, "here", src.Name())
	require.Equal(t, RoleMachine, src.Role())
	start := time.Now()
	_, ok, err := src.Sample(start)
	require.NoError(t, err)
	require.False(t, ok)
	loopback(t, 8<<20)
	spin(300 * time.Millisecond)
	time.Sleep(time.Until(start.Add(500 * time.Millisecond)))
	now := time.Now()
	s, ok, err := src.Sample(now)
	require.NoError(t, err)
	require.True(t, ok)
	t.Logf("machine: %+v", s)
	require.Equal(t, RoleMachine, s.Role)
	require.Equal(t, "here", s.Host)
	require.Greater(t, s.CPUPercent, 0.0, "this test spun a core")
	require.LessOrEqual(t, s.CPUPercent, 100*float64(onlineCPUs(t))*1.05)
	require.Positive(t, s.MemoryBytes)
	// lo counts each byte once received and once sent.
	dt := now.Sub(start).Seconds()
	require.GreaterOrEqual(t, s.NetRxBps*dt, float64(8<<20), "the 8 MiB sent over lo show up")
	require.GreaterOrEqual(t, s.NetTxBps*dt, float64(8<<20))
	for _, v := range []float64{s.DiskReadBps, s.DiskWriteBps, s.DiskReadIOPS, s.DiskWriteIOPS} {
		require.False(t, math.IsNaN(v))
		require.GreaterOrEqual(t, v, 0.0)
	}
}

func TestMachineFixtureErrors(t *testing.T) {
	dir := t.TempDir()
	m := &machine{procRoot: dir, sysRoot: dir, name: "fixture"}
	_, _, err := m.Sample(time.Now())
	require.ErrorContains(t, err, "fixture")
	require.ErrorIs(t, err, os.ErrNotExist)

	require.NoError(t, os.WriteFile(dir+"/stat", []byte("garbage\n"), 0o644))
	_, _, err = m.Sample(time.Now())
	require.ErrorContains(t, err, dir+"/stat", "a parse error names the file")
}

func TestMachineRatesFromFixtures(t *testing.T) {
	dir := t.TempDir()
	proc, sys := dir+"/proc", dir+"/sys"
	require.NoError(t, os.MkdirAll(proc+"/net", 0o755))
	// sdb is named like a disk but absent from /sys/block: not counted.
	require.NoError(t, os.MkdirAll(sys+"/block/sda", 0o755))
	write := func(cpu string, rsect, wsect, rops, wops, rx, tx int) {
		files := map[string]string{
			"stat":    cpu + "\ncpu0 0 0 0 0 0 0 0 0 0 0\n",
			"meminfo": "MemTotal:       1000 kB\nMemFree:         100 kB\nMemAvailable:    400 kB\n",
			"diskstats": fmt.Sprintf("   8 0 sda %d 0 %d 0 %d 0 %d 0 0 0 0\n   8 1 sda1 %[1]d 0 %[2]d 0 %[3]d 0 %[4]d 0 0 0 0\n   8 16 sdb 9 0 9 0 9 0 9 0 0 0 0\n",
				rops, rsect, wops, wsect),
			"net/dev": fmt.Sprintf("Inter-|\n face |\n    lo: %d 0 0 0 0 0 0 0 %d 0 0 0 0 0 0 0\n  eth0: %[1]d 0 0 0 0 0 0 0 %[2]d 0 0 0 0 0 0 0\n", rx, tx),
		}
		for name, text := range files {
			require.NoError(t, os.WriteFile(proc+"/"+name, []byte(text), 0o644))
		}
	}
	m := &machine{procRoot: proc, sysRoot: sys, name: "fixture"}
	t0 := time.Unix(1000, 0)
	write("cpu  100 0 50 1000 10 0 0 0 0 0", 10, 20, 1, 2, 1000, 2000)
	_, ok, err := m.Sample(t0)
	require.NoError(t, err)
	require.False(t, ok)
	// Two seconds later: 300 busy ticks (user, nice, system, softirq,
	// steal), idle and iowait moved too but are not busy.
	write("cpu  250 10 100 1500 90 0 45 45 0 0", 410, 820, 5, 10, 3000, 2500)
	s, ok, err := m.Sample(t0.Add(2 * time.Second))
	require.NoError(t, err)
	require.True(t, ok)
	require.InDelta(t, 150.0, s.CPUPercent, 1e-9)
	require.Equal(t, 600.0*1024, s.MemoryBytes)
	require.InDelta(t, 400*512/2.0, s.DiskReadBps, 1e-9, "sda alone, 512-byte sectors")
	require.InDelta(t, 800*512/2.0, s.DiskWriteBps, 1e-9)
	require.InDelta(t, 2.0, s.DiskReadIOPS, 1e-9)
	require.InDelta(t, 4.0, s.DiskWriteIOPS, 1e-9)
	require.InDelta(t, 2*2000/2.0, s.NetRxBps, 1e-9, "lo and eth0")
	require.InDelta(t, 2*500/2.0, s.NetTxBps, 1e-9)
}
