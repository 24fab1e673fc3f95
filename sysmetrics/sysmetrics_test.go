package sysmetrics

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseStatWithOddCommandName(t *testing.T) {
	line := []byte("1234 (my (odd) ) name) S 42 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 100 1000 10")
	ppid, ticks, err := parseStat(line)
	require.NoError(t, err)
	require.Equal(t, 42, ppid)
	require.Equal(t, 300.0, ticks)
	_, _, err = parseStat([]byte("1234 no parens"))
	require.Error(t, err)
}

func TestNodeExporterRatesFromFixtures(t *testing.T) {
	body := [2][]byte{}
	for i := range body {
		b, err := os.ReadFile(filepath.Join("testdata", fmt.Sprintf("scrape%d.txt", i+1)))
		require.NoError(t, err)
		body[i] = b
	}
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Write(body[min(n, 1)])
		n++
	}))
	defer srv.Close()
	src := NewNodeExporter("db-1", RoleDatabase, srv.URL+"/metrics", nil)
	t0 := time.Unix(1000, 0)
	_, ok, err := src.Sample(t0)
	require.NoError(t, err)
	require.False(t, ok, "the first scrape primes")
	s, ok, err := src.Sample(t0.Add(2 * time.Second))
	require.NoError(t, err)
	require.True(t, ok)
	// busy: cpu0 user+1 system+0.5, cpu1 user+1 = 2.5 s over 2 s.
	require.InDelta(t, 125.0, s.CPUPercent, 1e-9)
	require.InDelta(t, 6442450944.0, s.MemoryBytes, 1e-3)
	require.InDelta(t, 2000.0, s.DiskReadBps, 1e-9, "loop devices are left out (and their drop is not negative)")
	require.InDelta(t, 4000.0, s.DiskWriteBps, 1e-9)
	require.InDelta(t, 2.0, s.DiskReadIOPS, 1e-9)
	require.InDelta(t, 10.0, s.DiskWriteIOPS, 1e-9)
	require.InDelta(t, 1000.0, s.NetRxBps, 1e-9)
	require.InDelta(t, 500.0, s.NetTxBps, 1e-9)
	require.Equal(t, "db-1", s.Host)
}

func TestExpositionEscapesAndErrors(t *testing.T) {
	b, err := os.ReadFile("testdata/scrape1.txt")
	require.NoError(t, err)
	ms, err := parseExposition(bytesReader(b))
	require.NoError(t, err)
	last := ms[len(ms)-1]
	require.Equal(t, "node_uname_info", last.name)
	require.Equal(t, `#1 SMP "quoted" \ slash`, last.labels["version"])
	_, err = parseExposition(bytesReader([]byte("ok 1\nbad{a=\"x\" 2\n")))
	require.ErrorContains(t, err, "line 2")
}

// busyTree starts a shell whose child spins, and returns the shell.
func busyTree(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", `sh -c 'while :; do :; done' & wait`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return cmd
}

func TestProcessTreeCountsDescendants(t *testing.T) {
	cmd := busyTree(t)
	src := NewProcessTree("busy", RoleDatabase, cmd.Process.Pid)
	time.Sleep(200 * time.Millisecond) // the grandchild exists
	_, ok, err := src.Sample(time.Now())
	require.NoError(t, err)
	require.False(t, ok)
	time.Sleep(1500 * time.Millisecond)
	s, ok, err := src.Sample(time.Now())
	require.NoError(t, err)
	require.True(t, ok)
	// The shell itself only waits: the CPU is the grandchild's. A shared
	// 2-core machine may give it less than a whole core.
	require.Greater(t, s.CPUPercent, 40.0)
	require.Less(t, s.CPUPercent, 130.0)
	require.Positive(t, s.MemoryBytes)
	require.True(t, math.IsNaN(s.NetRxBps), "a process has no network counters of its own")

	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	_, _, err = src.Sample(time.Now())
	require.ErrorContains(t, err, "busy")
}

func TestProcessTreeDiskWrites(t *testing.T) {
	dir := t.TempDir()
	if fsType(t, dir) == "tmpfs" {
		t.Skip("tmpfs has no storage layer to count writes in")
	}
	cmd := exec.Command("sh", "-c", "sleep 0.5; dd if=/dev/zero of="+filepath.Join(dir, "f")+" bs=1M count=32 conv=fsync 2>/dev/null; sleep 2")
	require.NoError(t, cmd.Start())
	defer cmd.Wait()
	src := NewProcessTree("writer", RoleDatabase, cmd.Process.Pid)
	start := time.Now()
	_, _, err := src.Sample(start)
	require.NoError(t, err)
	time.Sleep(2 * time.Second)
	now := time.Now()
	s, ok, err := src.Sample(now)
	require.NoError(t, err)
	require.True(t, ok)
	written := s.DiskWriteBps * now.Sub(start).Seconds()
	require.InDelta(t, 32<<20, written, 8<<20, "dd's 32 MiB reach the disk counters")
}

func fsType(t *testing.T, dir string) string {
	var st syscall.Statfs_t
	require.NoError(t, syscall.Statfs(dir, &st))
	if st.Type == 0x01021994 {
		return "tmpfs"
	}
	return "other"
}

func TestMachine(t *testing.T) {
	src := NewMachine("here")
	_, ok, err := src.Sample(time.Now())
	require.NoError(t, err)
	require.False(t, ok)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			buf := make([]byte, 1<<16)
			for {
				if _, err := c.Read(buf); err != nil {
					return
				}
			}
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	start := time.Now()
	payload := make([]byte, 1<<20)
	for i := 0; i < 8; i++ {
		_, err := c.Write(payload)
		require.NoError(t, err)
	}
	c.Close()
	time.Sleep(500 * time.Millisecond)
	now := time.Now()
	s, ok, err := src.Sample(now)
	require.NoError(t, err)
	require.True(t, ok)
	require.GreaterOrEqual(t, s.CPUPercent, 0.0)
	require.LessOrEqual(t, s.CPUPercent, 100*float64(CPUCount())*1.05+5)
	require.Positive(t, s.MemoryBytes)
	require.GreaterOrEqual(t, s.NetRxBps*now.Sub(start).Seconds()*1.2, float64(8<<20), "the 8 MiB sent over lo show up")
	require.GreaterOrEqual(t, s.DiskReadBps, 0.0)
}

// TestNodeExporterForReal scrapes Debian's prometheus-node-exporter.
func TestNodeExporterForReal(t *testing.T) {
	bin := os.Getenv("DBARENA_NODE_EXPORTER")
	if bin == "" {
		bin, _ = exec.LookPath("prometheus-node-exporter")
	}
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("prometheus-node-exporter is not installed, and CI=true: the test command must install it")
		}
		t.Skip("prometheus-node-exporter is not installed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "--web.listen-address=127.0.0.1:"+strconv.Itoa(port), "--no-collector.systemd",
		"--collector.netdev.device-exclude=^$")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	require.Eventually(t, func() bool {
		r, err := http.Get(url)
		if err == nil {
			r.Body.Close()
		}
		return err == nil && r.StatusCode == 200
	}, 10*time.Second, 50*time.Millisecond)
	src := NewNodeExporter("node", RoleDatabase, url, nil)
	_, ok, err := src.Sample(time.Now())
	require.NoError(t, err)
	require.False(t, ok)
	// Loopback traffic the exporter must see.
	for i := 0; i < 20; i++ {
		r, err := http.Get(url)
		require.NoError(t, err)
		r.Body.Close()
	}
	time.Sleep(time.Second)
	s, ok, err := src.Sample(time.Now())
	require.NoError(t, err)
	require.True(t, ok)
	require.Greater(t, s.CPUPercent, 0.0)
	require.LessOrEqual(t, s.CPUPercent, 100*float64(CPUCount())*1.05+5)
	require.Positive(t, s.MemoryBytes)
	require.Positive(t, s.NetRxBps, "20 scrapes over lo")
	require.GreaterOrEqual(t, s.DiskWriteBps, 0.0)
}

type fakeSource struct {
	name string
	mu   sync.Mutex
	n    int
	err  error
}

func (f *fakeSource) Name() string { return f.name }
func (f *fakeSource) Role() string { return RoleDatabase }
func (f *fakeSource) Sample(now time.Time) (Sample, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	if f.err != nil {
		return Sample{}, false, f.err
	}
	return Sample{Time: now, Host: f.name, CPUPercent: float64(f.n)}, f.n > 1, nil
}

func TestCollector(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	c := NewCollector(20*time.Millisecond, func(ss []Sample) {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range ss {
			seen[s.Host]++
		}
	})
	a, bad := &fakeSource{name: "a"}, &fakeSource{name: "bad", err: fmt.Errorf("gone")}
	c.Add(a)
	c.Add(bad)
	c.Start(context.Background())
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return seen["a"] >= 3 }, 5*time.Second, 5*time.Millisecond,
		"a failing source does not stop the others")
	b := &fakeSource{name: "b"}
	c.Add(b)
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return seen["b"] >= 2 }, 5*time.Second, 5*time.Millisecond)
	c.Remove("a")
	mu.Lock()
	before := seen["a"]
	mu.Unlock()
	c.Stop()
	c.Stop()
	mu.Lock()
	defer mu.Unlock()
	require.LessOrEqual(t, seen["a"], before+1, "a removed source is no longer sampled")
	require.Zero(t, seen["bad"])
	b.mu.Lock()
	defer b.mu.Unlock()
	require.GreaterOrEqual(t, b.n, 3, "Stop takes a last sample")
}

func TestSummarize(t *testing.T) {
	t0 := time.Unix(100, 0)
	ss := []Sample{
		{Time: t0, Host: "db", Role: RoleDatabase, CPUPercent: 50, MemoryBytes: 10, NetRxBps: math.NaN()},
		{Time: t0.Add(time.Second), Host: "db", Role: RoleDatabase, CPUPercent: 150, MemoryBytes: 30, NetRxBps: math.NaN()},
		{Time: t0.Add(2 * time.Second), Host: "db", Role: RoleDatabase, CPUPercent: 1000, MemoryBytes: 99},
		{Time: t0.Add(time.Second), Host: "loader", Role: RoleLoader, CPUPercent: 190, DiskWriteBps: 4},
	}
	st := Summarize(ss, t0, t0.Add(time.Second))
	require.Len(t, st, 2)
	require.Equal(t, "db", st[0].Host)
	require.Equal(t, 2, st[0].Samples)
	require.Equal(t, 100.0, st[0].MeanCPU)
	require.Equal(t, 150.0, st[0].MaxCPU)
	require.Equal(t, 30.0, st[0].MaxMemory)
	require.True(t, math.IsNaN(st[0].MeanNetRxBps), "NaN stays unknown")
	require.Equal(t, "loader", st[1].Host)
	require.Equal(t, 4.0, st[1].MeanDiskWriteBps)
}

func TestDirSize(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a"), make([]byte, 100_000), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "b"), make([]byte, 50_000), 0o644))
	f, err := os.Create(filepath.Join(dir, "sparse"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(1<<30))
	f.Close()
	n, err := DirSize(dir)
	require.NoError(t, err)
	require.GreaterOrEqual(t, n, int64(150_000))
	require.Less(t, n, int64(1<<20), "a sparse file counts what it occupies")
	_, err = DirSize(filepath.Join(dir, "missing"))
	require.Error(t, err)
}

func TestSelfLeavesChildrenOut(t *testing.T) {
	busyTree(t) // a busy child of this test process
	src := NewSelf()
	_, _, err := src.Sample(time.Now())
	require.NoError(t, err)
	time.Sleep(time.Second)
	s, ok, err := src.Sample(time.Now())
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, RoleLoader, s.Role)
	require.Less(t, s.CPUPercent, 40.0, "the child's busy loop is not the loader's CPU")
}

func TestShortSpansAreSkipped(t *testing.T) {
	var r rater
	t0 := time.Unix(100, 0)
	_, ok := r.next(counters{cpuSeconds: 1}, t0)
	require.False(t, ok, "priming")
	_, ok = r.next(counters{cpuSeconds: 1.001}, t0.Add(5*time.Millisecond))
	require.False(t, ok, "5 ms is too short to say anything")
	s, ok := r.next(counters{cpuSeconds: 2}, t0.Add(time.Second))
	require.True(t, ok)
	require.InDelta(t, 100.0, s.CPUPercent, 1e-9, "the rate spans the whole second since the priming")
}
