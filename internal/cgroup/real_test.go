package cgroup

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// These tests use the machine's real cgroups (v1 on the development
// machines, v2 elsewhere) and need root.

func TestRealCPULimit(t *testing.T) {
	requireRoot(t)
	h := realHost(t)
	g, err := h.New("cpu", Limits{CPUs: 0.5})
	require.NoError(t, err)
	closeGroup(t, g)
	require.Contains(t, []Method{MethodCgroupV1, MethodCgroupV2}, g.Method(), g.Describe())

	cmd := busyTree()
	require.NoError(t, g.Command(cmd))
	require.NoError(t, cmd.Start())
	reap(t, cmd)
	time.Sleep(300 * time.Millisecond) // let the shell fork both children

	before, err := g.Usage()
	require.NoError(t, err)
	cores := treeCores(t, cmd.Process.Pid, 2*time.Second)
	after, err := g.Usage()
	require.NoError(t, err)
	counted := (after.CPU - before.CPU).Seconds() / 2
	t.Logf("%s: tree used %.2f cores by /proc, %.2f by the cgroup's counter; throttled %d periods",
		g.Describe(), cores, counted, after.ThrottledPeriods)
	// The quota is a ceiling: two busy processes would take up to two
	// cores without it. Other test packages share the machine in CI, so
	// the tree may get less than its quota; only the ceiling is asserted
	// (measured alone, it used 0.50-0.51 cores).
	require.LessOrEqual(t, cores, 0.65, "two busy processes under a 0.5 CPU quota")
	require.Greater(t, cores, 0.05, "the tree ran")
	require.True(t, after.HasCPU)
	require.LessOrEqual(t, counted, 0.65, "the cgroup's own CPU counter")
	require.InDelta(t, cores, counted, 0.15, "the cgroup's counter agrees with /proc")
	require.Greater(t, after.ThrottledPeriods, before.ThrottledPeriods, "the quota must have throttled the tree")

	// Both busy children were born inside the group.
	kids := children(t, cmd.Process.Pid)
	require.Len(t, kids, 2)
	for _, pid := range append(kids, cmd.Process.Pid) {
		in, err := g.Contains(pid)
		require.NoError(t, err)
		require.True(t, in, "pid %d", pid)
	}

	// The same tree without a limit, for scale only: the machine is
	// shared, so nothing is asserted about it.
	free := busyTree()
	require.NoError(t, free.Start())
	reap(t, free)
	time.Sleep(300 * time.Millisecond)
	t.Logf("without limit the tree used %.2f cores", treeCores(t, free.Process.Pid, 2*time.Second))
}

func TestRealPinnedCores(t *testing.T) {
	requireRoot(t)
	h := realHost(t)
	if len(h.cfg.cores) < 2 {
		t.Skip("pinning one core of one proves nothing")
	}
	g, err := h.New("pin", Limits{CPUs: 1, Pin: true})
	require.NoError(t, err)
	closeGroup(t, g)
	require.Equal(t, []int{h.cfg.cores[0]}, g.Cores())

	cmd := exec.Command("/bin/sh", "-c", "grep Cpus_allowed_list /proc/$$/status")
	require.NoError(t, g.Command(cmd))
	out, err := cmd.Output()
	require.NoError(t, err)
	t.Logf("%s: %s", g.Describe(), out)
	require.Equal(t, strconv.Itoa(h.cfg.cores[0]), strings.TrimSpace(strings.TrimPrefix(string(out), "Cpus_allowed_list:")))
}

func TestRealMemoryLimit(t *testing.T) {
	requireRoot(t)
	// tail keeps the whole last line, and 256 MiB of zeros have no newline:
	// it must hold all of it. coreutils only, unlike a python one-liner.
	const hog = "head -c 268435456 /dev/zero | tail >/dev/null"
	for _, tc := range []struct {
		name  string
		limit int64
		fits  bool
	}{
		{"64MiB", 64 << 20, false},
		{"512MiB", 512 << 20, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := realHost(t)
			g, err := h.New("mem", Limits{MemoryBytes: tc.limit})
			require.NoError(t, err)
			closeGroup(t, g)
			requireNoSwap(t, g)

			cmd := exec.Command("/bin/sh", "-c", hog)
			require.NoError(t, g.Command(cmd))
			start := time.Now()
			err = cmd.Run()
			u, uerr := g.Usage()
			require.NoError(t, uerr)
			t.Logf("%s: exit %v after %s, peak %s, OOM kills %d", g.Describe(), err, time.Since(start).Round(time.Millisecond), formatBytes(u.MemoryPeak), u.OOMKills)
			require.True(t, u.HasMemory)
			if tc.fits {
				require.NoError(t, err)
				require.GreaterOrEqual(t, u.MemoryPeak, int64(256<<20), "the hog must really have held 256 MiB")
				require.Zero(t, u.OOMKills)
				return
			}
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit)
			require.NotZero(t, exit.ExitCode())
			require.GreaterOrEqual(t, u.OOMKills, int64(1), "the kernel must have killed inside the group")
			require.LessOrEqual(t, u.MemoryPeak, tc.limit)
		})
	}
}

// requireNoSwap checks that swap cannot stretch the memory limit.
func requireNoSwap(t *testing.T, g *Group) {
	t.Helper()
	limit := strconv.FormatInt(g.limits.MemoryBytes, 10)
	switch g.Method() {
	case MethodCgroupV1:
		memsw := filepath.Join(g.v1["memory"], "memory.memsw.limit_in_bytes")
		if _, err := os.Stat(memsw); err == nil {
			requireFile(t, memsw, limit)
		}
	case MethodCgroupV2:
		if swap := filepath.Join(g.v2dir, "memory.swap.max"); exists(swap) {
			requireFile(t, swap, "0")
		}
	}
}

func TestRealCredential(t *testing.T) {
	requireRoot(t)
	cred := unprivileged(t)
	h := realHost(t)
	g, err := h.New("cred", Limits{CPUs: 1, MemoryBytes: 256 << 20})
	require.NoError(t, err)
	closeGroup(t, g)

	// The program itself ($$ is the pid the wrapper exec'd into) reports
	// who it runs as and where it sits.
	cmd := exec.Command("/bin/sh", "-c", "id -u; cat /proc/$$/cgroup")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	require.NoError(t, g.Command(cmd))
	require.Same(t, cred, cmd.SysProcAttr.Credential)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	uid, cgroups, _ := strings.Cut(string(out), "\n")
	require.Equal(t, strconv.FormatUint(uint64(cred.Uid), 10), uid)
	t.Logf("%s as uid %s:\n%s", g.Describe(), uid, cgroups)
	m := parseMembership(cgroups)
	switch g.Method() {
	case MethodCgroupV1:
		for _, c := range []string{"cpu", "memory"} {
			require.True(t, strings.HasSuffix(m.v1[c], "/"+g.Name()), "%s: %s", c, m.v1[c])
		}
		// Only cgroup.procs changed hands: the limits stay root's.
		requireOwner(t, filepath.Join(g.v1["cpu"], "cgroup.procs"), cred.Uid)
		requireOwner(t, filepath.Join(g.v1["cpu"], "cpu.cfs_quota_us"), 0)
		requireOwner(t, filepath.Join(g.v1["memory"], "memory.limit_in_bytes"), 0)
	case MethodCgroupV2:
		require.True(t, strings.HasSuffix(m.v2, "/"+g.Name()), m.v2)
	default:
		t.Fatalf("method %s", g.Method())
	}
}

func requireOwner(t *testing.T, path string, uid uint32) {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, uid, fi.Sys().(*syscall.Stat_t).Uid, path)
}

func TestRealClose(t *testing.T) {
	requireRoot(t)
	h := realHost(t)
	g, err := h.New("close", Limits{CPUs: 1, MemoryBytes: 128 << 20, Pin: true})
	require.NoError(t, err)
	dirs := append([]string(nil), g.dirs...)
	require.NotEmpty(t, dirs)
	for _, d := range dirs {
		require.DirExists(t, d)
	}

	cmd := exec.Command("/bin/sleep", "30")
	require.NoError(t, g.Command(cmd))
	require.NoError(t, cmd.Start())
	// Start returns before the wrapper has joined; a Close in between
	// would remove the group and the wrapper would refuse to run sleep.
	require.Eventually(t, func() bool {
		in, err := g.Contains(cmd.Process.Pid)
		return err == nil && in
	}, 5*time.Second, 10*time.Millisecond)

	// Close kills nothing: with sleep inside it gives up and says who.
	err = g.Close()
	require.ErrorIs(t, err, syscall.EBUSY)
	require.ErrorContains(t, err, strconv.Itoa(cmd.Process.Pid))
	require.NoError(t, syscall.Kill(cmd.Process.Pid, 0), "Close must not kill")

	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	require.NoError(t, g.Close())
	for _, d := range dirs {
		require.NoDirExists(t, d)
	}
	require.NoError(t, g.Close(), "Close is idempotent")
	require.ErrorContains(t, g.Command(exec.Command("/bin/true")), "closed")
}

// TestRealCgroupV2Placement clones a process into a group of the unified
// hierarchy for real where one is mounted (hybrid machines mount it without
// controllers): it proves CLONE_INTO_CGROUP with dropped credentials on
// this kernel, which the v2 limit tests can only fake here.
func TestRealCgroupV2Placement(t *testing.T) {
	requireRoot(t)
	h := realHost(t)
	b, err := os.ReadFile(h.cfg.mountinfo)
	require.NoError(t, err)
	mounts, err := parseMountinfo(string(b))
	require.NoError(t, err)
	self, err := readMembership(h.cfg.self)
	require.NoError(t, err)
	i := -1
	for j, m := range mounts {
		if m.v2 {
			i = j
		}
	}
	if i < 0 || !self.hasV2 {
		t.Skip("no cgroup v2 hierarchy mounted")
	}
	g := &Group{host: h, name: "dbarena-v2probe-" + strconv.Itoa(os.Getpid()), v2fd: -1}
	require.NoError(t, h.createV2(g, mounts[i], self.v2)) // no limits: needs no controller
	closeGroup(t, g)
	require.Equal(t, MethodCgroupV2, g.Method())

	cmd := exec.Command("/bin/sh", "-c", "id -u; cat /proc/$$/cgroup")
	cred := unprivileged(t)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	require.NoError(t, g.Command(cmd))
	require.Equal(t, "/bin/sh", cmd.Path, "v2 needs no wrapper")
	out, err := cmd.CombinedOutput()
	if errors.Is(err, syscall.ENOSYS) {
		t.Skip("kernel without clone3")
	}
	require.NoError(t, err, "%s", out)
	uid, cgroups, _ := strings.Cut(string(out), "\n")
	t.Logf("uid %s in %s", uid, parseMembership(cgroups).v2)
	require.Equal(t, strconv.FormatUint(uint64(cred.Uid), 10), uid)
	require.Equal(t, g.v2path, parseMembership(cgroups).v2)
	u, err := g.Usage()
	require.NoError(t, err)
	require.True(t, u.HasCPU)
}

// children lists the direct children of pid.
func children(t *testing.T, pid int) []int {
	t.Helper()
	var kids []int
	tasks, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	require.NoError(t, err)
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "task", task.Name(), "children"))
		require.NoError(t, err)
		for _, f := range strings.Fields(string(b)) {
			k, err := strconv.Atoi(f)
			require.NoError(t, err)
			kids = append(kids, k)
		}
	}
	return kids
}

// requireFile checks a control file's content.
func requireFile(t *testing.T, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, want, strings.TrimSpace(string(b)), path)
}

// TestRealCountIO writes 16 MiB with O_DIRECT from a process in a group
// that only counts I/O, and reads the bytes back from the group's
// block-layer counters, found from the process alone.
func TestRealCountIO(t *testing.T) {
	requireRoot(t)
	dir := t.TempDir()
	var st syscall.Statfs_t
	require.NoError(t, syscall.Statfs(dir, &st))
	const tmpfs = 0x01021994
	if st.Type == tmpfs {
		t.Skip("the temporary directory is in memory: no block device to count")
	}
	g, err := realHost(t).New("io", Limits{CountIO: true})
	require.NoError(t, err)
	closeGroup(t, g)
	require.True(t, g.CountsIO(), g.NoIOReason())
	t.Logf("%s", g.Describe())

	cmd := exec.Command("/bin/sh", "-c", "dd if=/dev/zero of=f bs=1M count=16 oflag=direct status=none && echo done && exec sleep 30")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, g.Command(cmd))
	require.NoError(t, cmd.Start())
	reap(t, cmd)
	line := make([]byte, 5)
	_, err = out.Read(line)
	require.NoError(t, err)
	require.Equal(t, "done\n", string(line))

	b, ok, err := FindBlockIO(cmd.Process.Pid)
	require.NoError(t, err)
	require.True(t, ok)
	pids, err := b.Procs()
	require.NoError(t, err)
	require.Equal(t, []int{cmd.Process.Pid}, pids, "sleep alone is left in %s", b)
	devs, err := b.Read()
	require.NoError(t, err)
	var written uint64
	for _, d := range devs {
		written += d.WriteBytes
	}
	t.Logf("%s: %+v", b, devs)
	require.GreaterOrEqual(t, written, uint64(16<<20))
	require.Less(t, written, uint64(17<<20), "dd's 16 MiB and little else")

	mine, ok, err := FindBlockIO(os.Getpid())
	require.NoError(t, err)
	require.False(t, ok && mine == b, "the test itself is not in the group")
}
