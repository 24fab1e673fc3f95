package cgroup

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeTree is a cgroup file system in a temporary directory. Its mkdir does
// what cgroupfs does: it fills a new directory with the control files of
// the controllers its parent enables (cgroup.subtree_control on v2, the
// hierarchy's controllers on v1), so a limit written to a controller that
// was never enabled fails as it would on a real machine.
type fakeTree struct {
	t    *testing.T
	root string
	cfg  config
}

// v2Files are the control files a v2 controller brings ("": the core).
func v2Files(controller string) []string {
	return map[string][]string{
		"":       {"cgroup.procs", "cgroup.controllers", "cgroup.subtree_control", "cpu.stat"},
		"cpu":    {"cpu.max"},
		"memory": {"memory.max", "memory.swap.max", "memory.current", "memory.peak", "memory.events"},
		"cpuset": {"cpuset.cpus", "cpuset.mems"},
		"io":     {"io.stat"},
	}[controller]
}

// newFakeV2 makes a unified hierarchy whose root offers controllers and
// places this process at self.
func newFakeV2(t *testing.T, controllers, self string) *fakeTree {
	t.Helper()
	dir := t.TempDir()
	f := &fakeTree{t: t, root: filepath.Join(dir, "cg")}
	require.NoError(t, os.MkdirAll(f.root, 0o755))
	f.write(f.root, "cgroup.controllers", controllers)
	f.write(f.root, "cgroup.subtree_control", "")
	f.write(f.root, "cgroup.procs", "")
	f.cfg = config{
		mountinfo: f.write(dir, "mountinfo", fmt.Sprintf("41 31 0:38 / %s rw,relatime - cgroup2 cgroup2 rw,nsdelegate\n", f.root)),
		self:      f.write(dir, "self", "0::"+self+"\n"),
		proc:      filepath.Join(dir, "proc"),
		mkdir:     f.mkdirV2,
		rmdir:     os.RemoveAll,
		shell:     "/bin/sh",
		sysBlock:  fakeSysBlock(t, dir),
		taskset:   "/usr/bin/taskset",
		cores:     []int{0, 1, 2, 3},
	}
	return f
}

// fakeSysBlock makes a /sys/block with one disk, vda (254:0), and a
// directory that is not a device.
func fakeSysBlock(t *testing.T, dir string) string {
	t.Helper()
	sys := filepath.Join(dir, "sys", "block")
	require.NoError(t, os.MkdirAll(filepath.Join(sys, "vda"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sys, "vda", "dev"), []byte("254:0\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(sys, "power"), 0o755))
	return sys
}

func (f *fakeTree) write(dir, name, content string) string {
	p := filepath.Join(dir, name)
	require.NoError(f.t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func (f *fakeTree) read(path ...string) string {
	b, err := os.ReadFile(filepath.Join(path...))
	require.NoError(f.t, err)
	return strings.TrimSpace(string(b))
}

// mkdirV2 creates a v2 cgroup the way the kernel does.
func (f *fakeTree) mkdirV2(p string) error {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(p), "cgroup.subtree_control"))
	if err != nil {
		return err
	}
	if err := os.Mkdir(p, 0o755); err != nil {
		return err
	}
	enabled := strings.Fields(strings.ReplaceAll(string(b), "+", ""))
	files := v2Files("")
	for _, c := range enabled {
		files = append(files, v2Files(c)...)
	}
	for _, name := range files {
		content := ""
		if name == "cgroup.controllers" {
			content = strings.Join(enabled, " ")
		}
		if err := os.WriteFile(filepath.Join(p, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// cgroup makes a directory of the fake tree with controllers available and
// enabled (v2).
func (f *fakeTree) cgroup(path, controllers, enabled string) string {
	d := filepath.Join(f.root, path)
	require.NoError(f.t, os.MkdirAll(d, 0o755))
	f.write(d, "cgroup.controllers", controllers)
	f.write(d, "cgroup.subtree_control", enabled)
	return d
}

func TestV2Limits(t *testing.T) {
	f := newFakeV2(t, "cpuset cpu io memory pids", "/")
	h := newHost(f.cfg)
	g, err := h.New("pg", Limits{CPUs: 1.5, MemoryBytes: 2 << 30, Pin: true})
	require.NoError(t, err)
	require.Equal(t, MethodCgroupV2, g.Method())
	require.Regexp(t, `^dbarena-pg-[0-9a-f]{8}$`, g.Name())
	dir := filepath.Join(f.root, g.Name())
	require.Equal(t, dir, g.v2dir)

	require.Equal(t, "+cpu +memory +cpuset", f.read(f.root, "cgroup.subtree_control"))
	require.Equal(t, "150000 100000", f.read(dir, "cpu.max"))
	require.Equal(t, "2147483648", f.read(dir, "memory.max"))
	require.Equal(t, "0", f.read(dir, "memory.swap.max"))
	require.Equal(t, "0-1", f.read(dir, "cpuset.cpus"))
	require.Equal(t, "1.5 CPUs (cpu.max 150000 100000, cores 0-1), 2 GiB memory (no swap), cgroup v2", g.Describe())

	// The kernel places the child: no wrapper, credentials untouched.
	cred := &syscall.Credential{Uid: 101, Gid: 104}
	cmd := exec.Command("/bin/true", "x")
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"A=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true}
	require.NoError(t, g.Command(cmd))
	require.Equal(t, []string{"/bin/true", "x"}, cmd.Args)
	require.True(t, cmd.SysProcAttr.UseCgroupFD)
	require.GreaterOrEqual(t, cmd.SysProcAttr.CgroupFD, 0)
	require.Same(t, cred, cmd.SysProcAttr.Credential)
	require.True(t, cmd.SysProcAttr.Setpgid)
	require.Equal(t, []string{"A=1"}, cmd.Env)
	var st syscall.Stat_t
	require.NoError(t, syscall.Fstat(cmd.SysProcAttr.CgroupFD, &st), "the descriptor is open")

	f.write(dir, "cpu.stat", "usage_usec 2500000\nuser_usec 2000000\nnr_periods 40\nnr_throttled 7\nthrottled_usec 350000\n")
	f.write(dir, "memory.current", "1048576")
	f.write(dir, "memory.peak", "3145728")
	f.write(dir, "memory.events", "low 0\nhigh 0\nmax 12\noom 2\noom_kill 2\n")
	u, err := g.Usage()
	require.NoError(t, err)
	require.Equal(t, Usage{CPU: 2500 * time.Millisecond, HasCPU: true, Throttled: 350 * time.Millisecond, ThrottledPeriods: 7,
		Memory: 1 << 20, MemoryPeak: 3 << 20, OOMKills: 2, HasMemory: true}, u)

	procs := filepath.Join(f.cfg.proc, "4242")
	require.NoError(t, os.MkdirAll(procs, 0o755))
	f.write(procs, "cgroup", "0::/"+g.Name()+"\n")
	in, err := g.Contains(4242)
	require.NoError(t, err)
	require.True(t, in)
	f.write(procs, "cgroup", "0::/\n")
	in, err = g.Contains(4242)
	require.NoError(t, err)
	require.False(t, in)

	fd := cmd.SysProcAttr.CgroupFD
	require.NoError(t, g.Close())
	require.NoDirExists(t, dir)
	require.ErrorIs(t, syscall.Fstat(fd, &st), syscall.EBADF, "Close closes the descriptor")
	require.NoError(t, g.Close())
}

func TestV2ControllersAlreadyEnabled(t *testing.T) {
	f := newFakeV2(t, "cpu memory", "/")
	f.write(f.root, "cgroup.subtree_control", "cpu memory")
	f.cfg.mkdir = func(p string) error {
		if got := f.read(f.root, "cgroup.subtree_control"); got != "cpu memory" {
			return fmt.Errorf("subtree_control rewritten to %q though nothing needed enabling", got)
		}
		return f.mkdirV2(p)
	}
	g, err := newHost(f.cfg).New("redis", Limits{MemoryBytes: 100 << 20})
	require.NoError(t, err)
	require.Equal(t, "104857600", f.read(g.v2dir, "memory.max"))
	require.Empty(t, f.read(g.v2dir, "cpu.max"), "no CPU limit asked, none written")
	require.Equal(t, "100 MiB memory (no swap), cgroup v2", g.Describe())
	require.NoError(t, g.Close())
}

// A process's own cgroup holds processes, so the kernel refuses to enable
// controllers for its children (EBUSY); the group then goes one level up.
func TestV2WalksUpFromBusyCgroup(t *testing.T) {
	f := newFakeV2(t, "cpu memory", "/user.slice/session-1.scope")
	f.write(f.root, "cgroup.subtree_control", "cpu memory")
	f.cgroup("user.slice", "cpu memory", "")
	scope := f.cgroup("user.slice/session-1.scope", "cpu memory", "")
	// A directory where the file should be makes the write fail, as
	// EBUSY would.
	require.NoError(t, os.Remove(filepath.Join(scope, "cgroup.subtree_control")))
	require.NoError(t, os.Mkdir(filepath.Join(scope, "cgroup.subtree_control"), 0o755))

	g, err := newHost(f.cfg).New("pg", Limits{CPUs: 1})
	require.NoError(t, err)
	require.Equal(t, filepath.Join(f.root, "user.slice", g.Name()), g.v2dir)
	require.Equal(t, "/user.slice/"+g.Name(), g.v2path)
	require.Equal(t, "+cpu", f.read(f.root, "user.slice", "cgroup.subtree_control"))
	require.Equal(t, "100000 100000", f.read(g.v2dir, "cpu.max"))
	require.NoError(t, g.Close())
}

func TestV2MissingController(t *testing.T) {
	t.Run("memory_refused", func(t *testing.T) {
		f := newFakeV2(t, "cpu pids", "/")
		g, err := newHost(f.cfg).New("pg", Limits{CPUs: 1, MemoryBytes: 1 << 30})
		require.Nil(t, g)
		require.ErrorIs(t, err, ErrNoMemoryLimit)
		require.ErrorContains(t, err, "cgroup.controllers lacks memory")
		entries, err := os.ReadDir(f.root)
		require.NoError(t, err)
		for _, e := range entries {
			require.False(t, e.IsDir(), "nothing left behind: %s", e.Name())
		}
	})
	t.Run("cpu_falls_back_to_affinity", func(t *testing.T) {
		f := newFakeV2(t, "memory pids", "/")
		g, err := newHost(f.cfg).New("pg", Limits{CPUs: 2})
		require.NoError(t, err)
		require.Equal(t, MethodAffinity, g.Method())
		require.Equal(t, []int{0, 1}, g.Cores())
		require.Contains(t, g.Describe(), "cgroup.controllers lacks cpu")
		_, err = g.Usage()
		require.ErrorContains(t, err, "usage needs a cgroup")
		require.NoError(t, g.Close())
	})
}

// newFakeV1 makes v1 hierarchies for cpu, cpuacct, memory, cpuset and
// blkio, with this process in each root.
func newFakeV1(t *testing.T) *fakeTree {
	t.Helper()
	dir := t.TempDir()
	f := &fakeTree{t: t, root: filepath.Join(dir, "cg")}
	var mi strings.Builder
	for i, c := range []string{"cpu", "cpuacct", "memory", "cpuset", "blkio"} {
		d := filepath.Join(f.root, c)
		require.NoError(t, os.MkdirAll(d, 0o755))
		fmt.Fprintf(&mi, "%d 31 0:%d / %s rw,relatime - cgroup cgroup rw,%s\n", 32+i, 29+i, d, c)
	}
	f.write(filepath.Join(f.root, "cpuset"), "cpuset.mems", "0\n")
	f.cfg = config{
		mountinfo: f.write(dir, "mountinfo", mi.String()),
		self:      f.write(dir, "self", "5:blkio:/\n4:memory:/\n3:cpuset:/\n2:cpuacct:/\n1:cpu:/\n0::/\n"),
		proc:      filepath.Join(dir, "proc"),
		mkdir:     f.mkdirV1,
		rmdir:     os.RemoveAll,
		shell:     "/bin/sh",
		sysBlock:  fakeSysBlock(t, dir),
		taskset:   "/usr/bin/taskset",
		cores:     []int{0, 1, 2, 3},
	}
	return f
}

// v1Files are the control files of a v1 hierarchy.
func v1Files(hierarchy string) []string {
	return map[string][]string{
		"cpu":     {"cpu.cfs_period_us", "cpu.cfs_quota_us", "cpu.stat"},
		"cpuacct": {"cpuacct.usage"},
		"memory":  {"memory.limit_in_bytes", "memory.memsw.limit_in_bytes", "memory.usage_in_bytes", "memory.max_usage_in_bytes", "memory.oom_control"},
		"cpuset":  {"cpuset.cpus", "cpuset.mems"},
		"blkio":   {"blkio.throttle.write_bps_device", "blkio.throttle.io_service_bytes_recursive"},
	}[hierarchy]
}

// mkdirV1 creates a v1 cgroup the way the kernel does: with the files of
// the hierarchy's controllers, named by its top directory ("cpu,cpuacct").
func (f *fakeTree) mkdirV1(p string) error {
	rel, err := filepath.Rel(f.root, p)
	if err != nil {
		return err
	}
	if err := os.Mkdir(p, 0o755); err != nil {
		return err
	}
	files := []string{"cgroup.procs"}
	for c := range strings.SplitSeq(strings.Split(rel, "/")[0], ",") {
		files = append(files, v1Files(c)...)
	}
	for _, name := range files {
		if err := os.WriteFile(filepath.Join(p, name), nil, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func TestV1Files(t *testing.T) {
	f := newFakeV1(t)
	g, err := newHost(f.cfg).New("cass", Limits{CPUs: 2, MemoryBytes: 3 << 30, Pin: true})
	require.NoError(t, err)
	require.Equal(t, MethodCgroupV1, g.Method())
	cg := func(c string) string { return filepath.Join(f.root, c, g.Name()) }
	require.Equal(t, "100000", f.read(cg("cpu"), "cpu.cfs_period_us"))
	require.Equal(t, "200000", f.read(cg("cpu"), "cpu.cfs_quota_us"))
	require.Equal(t, "3221225472", f.read(cg("memory"), "memory.limit_in_bytes"))
	require.Equal(t, "3221225472", f.read(cg("memory"), "memory.memsw.limit_in_bytes"))
	require.Equal(t, "0-1", f.read(cg("cpuset"), "cpuset.cpus"))
	require.Equal(t, "0", f.read(cg("cpuset"), "cpuset.mems"))
	require.DirExists(t, cg("cpuacct"))
	require.Equal(t, "2 CPUs (cfs quota 200000/100000 us, cores 0-1), 3 GiB memory (no swap), cgroup v1", g.Describe())

	f.write(cg("cpuacct"), "cpuacct.usage", "1500000000\n")
	f.write(cg("cpu"), "cpu.stat", "nr_periods 30\nnr_throttled 4\nthrottled_time 90000000\n")
	f.write(cg("memory"), "memory.usage_in_bytes", "4096\n")
	f.write(cg("memory"), "memory.max_usage_in_bytes", "8192\n")
	f.write(cg("memory"), "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n")
	u, err := g.Usage()
	require.NoError(t, err)
	require.Equal(t, Usage{CPU: 1500 * time.Millisecond, HasCPU: true, Throttled: 90 * time.Millisecond, ThrottledPeriods: 4,
		Memory: 4096, MemoryPeak: 8192, OOMKills: 1, HasMemory: true}, u)

	require.NoError(t, g.Close())
	for _, c := range []string{"cpu", "cpuacct", "memory", "cpuset"} {
		require.NoDirExists(t, cg(c))
	}
}

func TestV1NoSwapAccounting(t *testing.T) {
	f := newFakeV1(t)
	f.cfg.mkdir = func(p string) error {
		if err := f.mkdirV1(p); err != nil {
			return err
		}
		_ = os.Remove(filepath.Join(p, "memory.memsw.limit_in_bytes"))
		return os.WriteFile(filepath.Join(p, "memory.swappiness"), []byte("60"), 0o644)
	}
	g, err := newHost(f.cfg).New("m", Limits{MemoryBytes: 1 << 30})
	require.NoError(t, err)
	require.Equal(t, "0", f.read(g.v1["memory"], "memory.swappiness"))
	require.Equal(t, "1 GiB memory (swap not accounted, swappiness 0), cgroup v1", g.Describe())
	require.NoError(t, g.Close())
}

// The v1 wrapper, run for real against the fake tree: it writes its pid into
// every hierarchy and only then becomes the program, with its arguments,
// directory and environment intact.
func TestV1WrapperJoinsThenExecs(t *testing.T) {
	f := newFakeV1(t)
	g, err := newHost(f.cfg).New("it's", Limits{CPUs: 1, MemoryBytes: 1 << 30})
	require.Error(t, err, "a quote is not a valid name")
	require.Nil(t, g)
	g, err = newHost(f.cfg).New("w", Limits{CPUs: 1, MemoryBytes: 1 << 30})
	require.NoError(t, err)
	closeGroup(t, g)

	work := t.TempDir()
	cmd := exec.Command("/bin/sh", "-c", `printf '%s|%s|%s|%s' "$$" "$PWD" "$X" "$1"`, "zero", "one two")
	cmd.Dir = work
	cmd.Env = []string{"X=y"}
	require.NoError(t, g.Command(cmd))
	require.Equal(t, "/bin/sh", cmd.Path)
	require.Equal(t, []string{"/bin/sh", "-c"}, cmd.Args[:2])
	require.Equal(t, []string{"/bin/sh", "-c", `printf '%s|%s|%s|%s' "$$" "$PWD" "$X" "$1"`, "zero", "one two"}, cmd.Args[3:])
	out, err := cmd.Output()
	require.NoError(t, err)
	fields := strings.Split(string(out), "|")
	require.Equal(t, []string{work, "y", "one two"}, fields[1:])
	for _, d := range g.dirs {
		require.Equal(t, fields[0], f.read(d, "cgroup.procs"), "the program's own pid in %s", d)
	}
}

// A wrapper that cannot join must not run the program unlimited.
func TestV1WrapperRefusesWhenJoinFails(t *testing.T) {
	f := newFakeV1(t)
	g, err := newHost(f.cfg).New("w", Limits{MemoryBytes: 1 << 30})
	require.NoError(t, err)
	closeGroup(t, g)
	procs := filepath.Join(g.v1["memory"], "cgroup.procs")
	require.NoError(t, os.Remove(procs))
	require.NoError(t, os.Mkdir(procs, 0o755)) // unwritable, like a read-only cgroupfs

	marker := filepath.Join(t.TempDir(), "ran")
	cmd := exec.Command("/usr/bin/touch", marker)
	require.NoError(t, g.Command(cmd))
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, joinFailed, exit.ExitCode())
	require.Contains(t, string(out), "could not join cgroup "+g.Name())
	require.NoFileExists(t, marker)
	require.NoError(t, os.Remove(procs))
}

func TestV1ReadOnlyFallsBack(t *testing.T) {
	f := newFakeV1(t)
	f.cfg.mkdir = func(p string) error { return &os.PathError{Op: "mkdir", Path: p, Err: syscall.EROFS} }
	h := newHost(f.cfg)

	g, err := h.New("pg", Limits{CPUs: 1})
	require.NoError(t, err)
	require.Equal(t, MethodAffinity, g.Method())
	require.Contains(t, g.Describe(), "read-only file system")
	require.NoError(t, g.Close())

	g, err = h.New("pg", Limits{CPUs: 1, MemoryBytes: 1 << 30})
	require.Nil(t, g)
	require.ErrorIs(t, err, ErrNoMemoryLimit)
	require.ErrorIs(t, err, syscall.EROFS)
}

func TestCommandRefuses(t *testing.T) {
	f := newFakeV1(t)
	g, err := newHost(f.cfg).New("c", Limits{CPUs: 1})
	require.NoError(t, err)
	for name, tc := range map[string]struct {
		cmd  func() *exec.Cmd
		want string
	}{
		"missing program":   {func() *exec.Cmd { return exec.Command("/nonexistent/postgres") }, "/nonexistent/postgres: no such file"},
		"not found in PATH": {func() *exec.Cmd { return exec.Command("dbarena-no-such-program") }, "executable file not found"},
		"started": {func() *exec.Cmd {
			c := exec.Command("/bin/true")
			c.Process = &os.Process{Pid: 1}
			return c
		}, "already started"},
		"chroot": {func() *exec.Cmd {
			c := exec.Command("/bin/true")
			c.SysProcAttr = &syscall.SysProcAttr{Chroot: "/srv"}
			return c
		}, "chrooted"},
	} {
		t.Run(name, func(t *testing.T) {
			require.ErrorContains(t, g.Command(tc.cmd()), tc.want)
		})
	}
	require.NoError(t, g.Close())
	require.ErrorContains(t, g.Command(exec.Command("/bin/true")), "closed")
}
