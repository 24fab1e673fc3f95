package sysmetrics

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeProc is one process of a fixture /proc. CPU in ticks.
type fakeProc struct {
	pid, ppid     int
	start         uint64
	own, children int // utime and cutime, in ticks
	rssPages      int
	read, write   int
	ioUnreadable  bool
}

// writeProcs makes root a /proc holding exactly procs.
func writeProcs(t *testing.T, root string, procs ...fakeProc) {
	t.Helper()
	require.NoError(t, os.RemoveAll(root))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "self"), 0o755)) // not a process
	for _, p := range procs {
		dir := filepath.Join(root, strconv.Itoa(p.pid))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		stat := fmt.Sprintf("%d (fake (%d)) S %d 1 1 0 -1 0 0 0 0 0 %d 0 %d 0 20 0 1 0 %d 1000 10 0\n",
			p.pid, p.pid, p.ppid, p.own, p.children, p.start)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644))
		statm := fmt.Sprintf("100 %d 0 0 0 0 0\n", p.rssPages)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "statm"), []byte(statm), 0o644))
		if p.ioUnreadable {
			// Reading a directory fails with EISDIR, standing in for
			// EACCES on another user's process.
			require.NoError(t, os.Mkdir(filepath.Join(dir, "io"), 0o755))
			continue
		}
		io := fmt.Sprintf("rchar: 1\nwchar: 1\nread_bytes: %d\nwrite_bytes: %d\ncancelled_write_bytes: 0\n", p.read, p.write)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "io"), []byte(io), 0o644))
	}
}

// TestProcessTreeAccounting checks the tree's rates over processes that
// appear, exit, are waited for, leave the tree and whose pids are reused,
// on a fixture /proc: 1 s between the two samples, so ticks/s = percent.
func TestProcessTreeAccounting(t *testing.T) {
	// An unrelated process, which must never count.
	other := fakeProc{pid: 7, ppid: 1, start: 1, own: 5000, read: 1e9, write: 1e9}
	tests := map[string]struct {
		before, after []fakeProc
		// dirtied is write_bytes' growth: page cache, not disk.
		cpu, read, dirtied, mem float64
	}{
		"steady": {
			before: []fakeProc{{pid: 100, ppid: 1, start: 10, own: 100, write: 1000, rssPages: 10},
				{pid: 101, ppid: 100, start: 20, own: 300, write: 50, rssPages: 5}},
			after: []fakeProc{{pid: 100, ppid: 1, start: 10, own: 150, write: 1500, rssPages: 10},
				{pid: 101, ppid: 100, start: 20, own: 400, write: 60, rssPages: 5}},
			cpu: 150, dirtied: 510, mem: 15,
		},
		"child born in the interval counts whole": {
			before: []fakeProc{{pid: 100, ppid: 1, start: 10, own: 100}},
			after: []fakeProc{{pid: 100, ppid: 1, start: 10, own: 100},
				{pid: 101, ppid: 100, start: 50, own: 30, read: 4096}},
			cpu: 30, read: 4096,
		},
		"child waited for: only its last moments count": {
			// 101 had used 5 s and written 1000 bytes; it ran 0.4 s and
			// wrote 500 bytes more, exited, and 100 waited for it.
			before: []fakeProc{{pid: 100, ppid: 1, start: 10, own: 100, children: 0, write: 200},
				{pid: 101, ppid: 100, start: 20, own: 500, write: 1000}},
			after: []fakeProc{{pid: 100, ppid: 1, start: 10, own: 120, children: 540, write: 200 + 50 + 1500}},
			cpu:   20 + 40, dirtied: 50 + 500,
		},
		"grandchild waited for by a child that is gone too": {
			before: []fakeProc{{pid: 100, ppid: 1, start: 10, own: 100},
				{pid: 101, ppid: 100, start: 20, own: 200, children: 0},
				{pid: 102, ppid: 101, start: 30, own: 300}},
			// 102 ran 0.1 s more, 101 0.2 s more, both waited for.
			after: []fakeProc{{pid: 100, ppid: 1, start: 10, own: 100, children: 220 + 310}},
			cpu:   10 + 20,
		},
		"born and waited for within the interval": {
			before: []fakeProc{{pid: 100, ppid: 1, start: 10, own: 100}},
			after:  []fakeProc{{pid: 100, ppid: 1, start: 10, own: 100, children: 70, write: 8192}},
			cpu:    70, dirtied: 8192,
		},
		"left the tree without being waited for: never negative": {
			before: []fakeProc{{pid: 100, ppid: 1, start: 10, own: 100, children: 5, write: 100},
				{pid: 101, ppid: 100, start: 20, own: 900, write: 1000}},
			after: []fakeProc{{pid: 100, ppid: 1, start: 10, own: 150, children: 5, write: 300}},
			// 100's own CPU still counts; its disk growth (200) is taken
			// down by the 1000 bytes of the child it did not receive.
			cpu: 50, dirtied: 0,
		},
		"pid reused": {
			before: []fakeProc{{pid: 100, ppid: 1, start: 10, own: 100},
				{pid: 101, ppid: 100, start: 20, own: 500}},
			after: []fakeProc{{pid: 100, ppid: 1, start: 10, own: 100, children: 520},
				{pid: 101, ppid: 100, start: 90, own: 15}},
			cpu: 20 + 15,
		},
		"unreadable io": {
			before: []fakeProc{{pid: 100, ppid: 1, start: 10, own: 100, ioUnreadable: true}},
			after:  []fakeProc{{pid: 100, ppid: 1, start: 10, own: 200, ioUnreadable: true}},
			cpu:    100, read: math.NaN(), dirtied: math.NaN(),
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "proc")
			src := &processTree{fs: procFS{root: root}, name: "db", role: RoleDatabase, pid: 100}
			t0 := time.Unix(1000, 0)
			writeProcs(t, root, append(tc.before, other)...)
			_, ok, err := src.Sample(t0)
			require.NoError(t, err)
			require.False(t, ok, "the first sample primes")
			writeProcs(t, root, append(tc.after, other)...)
			s, ok, err := src.Sample(t0.Add(time.Second))
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, t0.Add(time.Second), s.Time)
			require.Equal(t, "db", s.Host)
			require.InDelta(t, tc.cpu, s.CPUPercent, 1e-9, "CPU")
			requireSame(t, tc.read, s.DiskReadBps, "disk read")
			requireSame(t, tc.dirtied, s.PageCacheWriteBps, "page cache dirtied")
			require.True(t, math.IsNaN(s.DiskWriteBps), "no cgroup: disk writes unknown, never the dirtied pages")
			require.InDelta(t, tc.mem*float64(os.Getpagesize()), s.MemoryBytes, 1e-9, "memory")
			require.True(t, math.IsNaN(s.DiskReadIOPS) && math.IsNaN(s.NetRxBps) && math.IsNaN(s.NetTxBps))
		})
	}
}

// requireSame compares two figures, NaN equal to NaN.
func requireSame(t *testing.T, want, got float64, msg string) {
	t.Helper()
	if math.IsNaN(want) {
		require.True(t, math.IsNaN(got), "%s: want NaN, got %v", msg, got)
		return
	}
	require.InDelta(t, want, got, 1e-9, msg)
}

func TestProcessTreeRootGone(t *testing.T) {
	root := filepath.Join(t.TempDir(), "proc")
	writeProcs(t, root, fakeProc{pid: 7, ppid: 1, start: 1})
	src := &processTree{fs: procFS{root: root}, name: "db", role: RoleDatabase, pid: 100}
	_, _, err := src.Sample(time.Now())
	require.ErrorContains(t, err, "db")
	require.ErrorContains(t, err, "pid 100")
	require.ErrorIs(t, err, os.ErrNotExist)
}

// startTree starts a shell whose child spins, and returns the shell and
// the spinning child's pid. Everything is killed at cleanup.
func startTree(t *testing.T) (*exec.Cmd, int) {
	t.Helper()
	// The outer shell waits for the spinner, then sleeps: it outlives a
	// killed spinner, as a server outlives a worker.
	cmd := exec.Command("sh", "-c", `sh -c 'while :; do :; done' & wait; exec sleep 60`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	fs := procFS{root: "/proc"}
	var spinner int
	require.Eventually(t, func() bool {
		stats, err := fs.stats()
		require.NoError(t, err)
		for _, pid := range descendants(stats, cmd.Process.Pid) {
			if pid != cmd.Process.Pid {
				spinner = pid
			}
		}
		return spinner != 0
	}, 5*time.Second, 10*time.Millisecond)
	return cmd, spinner
}

func TestProcessTreeFollowsChildren(t *testing.T) {
	cmd, spinner := startTree(t)
	src := NewProcessTree("busy", RoleDatabase, cmd.Process.Pid)
	require.Equal(t, "busy", src.Name())
	require.Equal(t, RoleDatabase, src.Role())
	t0 := time.Now()
	before := childTicks(t, spinner)
	_, ok, err := src.Sample(t0)
	require.NoError(t, err)
	require.False(t, ok)
	time.Sleep(1500 * time.Millisecond)
	t1 := time.Now()
	s, ok, err := src.Sample(t1)
	require.NoError(t, err)
	require.True(t, ok)
	// The shell only waits: the tree's CPU is its child's. On a busy
	// machine (CI runs packages side by side) the child may get far
	// less than a core, so the tree is compared with the child's own
	// counters over the same window rather than with a fixed level.
	child := float64(childTicks(t, spinner)-before) * 10 / float64(t1.Sub(t0).Milliseconds()) * 100
	t.Logf("busy tree: %.1f%% CPU (the spinner alone: %.1f%%), %.0f bytes resident", s.CPUPercent, child, s.MemoryBytes)
	require.Greater(t, s.CPUPercent, 5.0)
	require.InDelta(t, child, s.CPUPercent, 20, "the tree's CPU is its child's")
	require.Less(t, s.CPUPercent, 130.0)
	require.Positive(t, s.MemoryBytes)
	require.True(t, math.IsNaN(s.NetRxBps), "a process has no network counters of its own")
	require.True(t, math.IsNaN(s.DiskWriteIOPS))

	require.NoError(t, syscall.Kill(spinner, syscall.SIGKILL))
	require.Eventually(t, func() bool {
		_, err := os.Stat(fmt.Sprintf("/proc/%d", spinner))
		return os.IsNotExist(err) // the shell waited for it
	}, 5*time.Second, 10*time.Millisecond)
	time.Sleep(300 * time.Millisecond)
	s, ok, err = src.Sample(time.Now())
	require.NoError(t, err)
	require.True(t, ok)
	t.Logf("interval with the kill: %.1f%% CPU", s.CPUPercent)
	// The spinner's last moments only: the 1.5 s already reported, which
	// the kernel moved into the shell's cutime, must not count again
	// (that would read over 400%).
	require.Less(t, s.CPUPercent, 100.0)
	time.Sleep(time.Second)
	s, ok, err = src.Sample(time.Now())
	require.NoError(t, err)
	require.True(t, ok)
	t.Logf("after the kill: %.1f%% CPU", s.CPUPercent)
	require.Less(t, s.CPUPercent, 20.0, "only a sleeping shell is left")

	require.NoError(t, syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL))
	_ = cmd.Wait()
	_, _, err = src.Sample(time.Now())
	require.ErrorContains(t, err, "busy")
}

// diskDir returns a directory on a disk-backed file system: writes to
// tmpfs never reach the block layer, so /proc/PID/io does not count them.
func diskDir(t *testing.T) string {
	t.Helper()
	for _, dir := range []string{t.TempDir(), "."} {
		var st syscall.Statfs_t
		require.NoError(t, syscall.Statfs(dir, &st))
		const tmpfs, ramfs = 0x01021994, 0x858458f6
		if st.Type == tmpfs || st.Type == ramfs {
			continue
		}
		if dir == "." {
			d, err := os.MkdirTemp(".", "disktest")
			require.NoError(t, err)
			t.Cleanup(func() { _ = os.RemoveAll(d) })
			return d
		}
		return dir
	}
	t.Skip("no disk-backed directory: the temporary and the package directories are both in memory")
	return ""
}

// writeFile returns a shell command writing mib MiB to path, after a
// pause so that the first sample comes before it.
func writeFile(path string, mib int) string {
	return fmt.Sprintf("sleep 0.3; dd if=/dev/zero of=%s bs=1M count=%d conv=fsync 2>/dev/null", path, mib)
}

func TestProcessTreePageCacheWrites(t *testing.T) {
	dir := diskDir(t)
	// dd is the shell's child and exits before the second sample: its
	// bytes reach the tree through the shell, which waits for it.
	cmd := exec.Command("sh", "-c", writeFile(filepath.Join(dir, "f"), 32)+"; sleep 5")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	src := NewProcessTree("writer", RoleDatabase, cmd.Process.Pid)
	start := time.Now()
	_, _, err := src.Sample(start)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		fi, err := os.Stat(filepath.Join(dir, "f"))
		return err == nil && fi.Size() == 32<<20
	}, 30*time.Second, 50*time.Millisecond)
	time.Sleep(500 * time.Millisecond) // dd has exited and been waited for
	now := time.Now()
	s, ok, err := src.Sample(now)
	require.NoError(t, err)
	require.True(t, ok)
	dirtied := s.PageCacheWriteBps * now.Sub(start).Seconds()
	t.Logf("page cache dirtied: %.0f bytes", dirtied)
	require.InDelta(t, 32<<20, dirtied, 8<<20, "dd's 32 MiB reach the counters once")
	// This test's own cgroup is not the tree's alone (TestDiskFigures
	// has one that is).
	require.True(t, math.IsNaN(s.DiskWriteBps), "dirtied pages are not disk writes")
}

func TestSelf(t *testing.T) {
	src := NewSelf()
	require.Equal(t, "loader", src.Name())
	require.Equal(t, RoleLoader, src.Role())

	t.Run("own CPU", func(t *testing.T) {
		// The kernel's own account of this process's CPU, by another
		// road: getrusage, which also leaves children out.
		cpu := func() time.Duration {
			var ru syscall.Rusage
			require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
			return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
		start, used := time.Now(), cpu()
		_, _, err := src.Sample(start)
		require.NoError(t, err)
		// Spin for CPU time, not wall time: on a shared machine a
		// wall-clock spin of 0.7 s got 0.1 s of a core once.
		for end := used + 500*time.Millisecond; cpu() < end && time.Since(start) < 20*time.Second; {
			spin(50 * time.Millisecond)
		}
		now := time.Now()
		s, ok, err := src.Sample(now)
		used = cpu() - used
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, RoleLoader, s.Role)
		want := used.Seconds() / now.Sub(start).Seconds() * 100
		t.Logf("loader: %.1f%% CPU, getrusage says %.1f%% (%v of CPU in %v)", s.CPUPercent, want, used, now.Sub(start))
		require.GreaterOrEqual(t, used, 500*time.Millisecond, "this test spun")
		// Clock ticks of 10 ms, read microseconds apart by two roads:
		// a few ticks' error over the window, and a little more.
		require.InDelta(t, want, s.CPUPercent, 0.04/now.Sub(start).Seconds()*100+3)
		require.Positive(t, s.MemoryBytes)
	})

	t.Run("children left out", func(t *testing.T) {
		startTree(t) // a busy child of this test process
		dir := diskDir(t)
		_, _, err := src.Sample(time.Now())
		require.NoError(t, err)
		start := time.Now()
		// A child that writes 16 MiB and is waited for by this process:
		// the kernel adds its bytes to our io file, not to our threads'.
		dd := exec.Command("sh", "-c", writeFile(filepath.Join(dir, "g"), 16))
		require.NoError(t, dd.Run())
		time.Sleep(time.Until(start.Add(time.Second)))
		now := time.Now()
		s, ok, err := src.Sample(now)
		require.NoError(t, err)
		require.True(t, ok)
		require.Less(t, s.CPUPercent, 40.0, "the child's busy loop is not the loader's CPU")
		require.Less(t, s.PageCacheWriteBps*now.Sub(start).Seconds(), float64(4<<20), "the child's writes are not the loader's")
		require.True(t, math.IsNaN(s.DiskWriteBps), "the loader's cgroup is not its own: disk writes unknown")
	})
}

// spin keeps one goroutine, locked to its thread, busy for d.
func spin(d time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}

// childTicks is a process's user and system CPU time in clock ticks
// (1/100 s on Linux), from /proc/PID/stat.
func childTicks(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(t, err)
	// Fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, err := strconv.ParseInt(f[11], 10, 64)
	require.NoError(t, err)
	stime, err := strconv.ParseInt(f[12], 10, 64)
	require.NoError(t, err)
	return utime + stime
}

// TestLeadThread: a tree's first thread is judged on its own. A tree
// whose root waits while its child spins has a busy tree (the child's
// CPU) and an idle lead thread; a spinning root has a lead thread on or
// waiting for a CPU the whole interval, however many others compete for
// the cores (two spinners per core here).
func TestLeadThread(t *testing.T) {
	cmd, spinner := startTree(t)
	sample := func(pid int) Sample {
		src := NewProcessTree("db", RoleDatabase, pid)
		_, ok, err := src.Sample(time.Now())
		require.NoError(t, err)
		require.False(t, ok)
		time.Sleep(500 * time.Millisecond)
		s, ok, err := src.Sample(time.Now())
		require.NoError(t, err)
		require.True(t, ok)
		return s
	}
	// Sampled before the hogs start: among them the child got 7% of a
	// CPU once, with the other test packages running beside it.
	before, from := childTicks(t, spinner), time.Now()
	waiting := sample(cmd.Process.Pid)
	// Clock ticks are 10 ms.
	childPercent := float64(childTicks(t, spinner)-before) * 0.01 / time.Since(from).Seconds() * 100
	require.Less(t, waiting.LeadThreadPercent, 5.0, "the root shell waits for its child")
	// The child's own ticks over the same half second, by another road:
	// the machine gave it 9% of a CPU once, so no fixed floor.
	require.Positive(t, childPercent, "the child spun")
	require.InDelta(t, childPercent, waiting.CPUPercent, 8, "the tree's CPU is its spinning child's")
	for range 2 * max(runtime.NumCPU(), 1) {
		hog := exec.Command("sh", "-c", "while :; do :; done")
		require.NoError(t, hog.Start())
		t.Cleanup(func() { _ = hog.Process.Kill(); _ = hog.Wait() })
	}
	spinning := sample(spinner)
	require.Greater(t, spinning.LeadThreadPercent, 90.0, "on a CPU or waiting for one: %+v", spinning)
	require.Less(t, spinning.CPUPercent, spinning.LeadThreadPercent, "contended: it waits part of the time")
}
