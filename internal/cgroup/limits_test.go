package cgroup

import (
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNewRejects(t *testing.T) {
	f := newFakeV1(t)
	h := newHost(f.cfg) // 4 cores
	for name, tc := range map[string]struct {
		group string
		l     Limits
		want  string
	}{
		"empty name":        {"", Limits{CPUs: 1}, "must have 1 to 64 characters"},
		"long name":         {strings.Repeat("x", 65), Limits{CPUs: 1}, "must have 1 to 64 characters"},
		"slash":             {"a/b", Limits{CPUs: 1}, `has '/'`},
		"dot dot":           {"..", Limits{CPUs: 1}, "must not start with '.'"},
		"space":             {"pg 1", Limits{CPUs: 1}, `has ' '`},
		"negative CPUs":     {"pg", Limits{CPUs: -1}, "CPUs -1 is negative"},
		"NaN CPUs":          {"pg", Limits{CPUs: math.NaN()}, "not a number of cores"},
		"infinite CPUs":     {"pg", Limits{CPUs: math.Inf(1)}, "not a number of cores"},
		"tiny CPUs":         {"pg", Limits{CPUs: 0.001}, "below the kernel's minimum quota"},
		"more than machine": {"pg", Limits{CPUs: 8}, "8 CPUs asked for but only 4 cores are available"},
		"negative memory":   {"pg", Limits{MemoryBytes: -1}, "memory -1 bytes is negative"},
		"pin without CPUs":  {"pg", Limits{MemoryBytes: 1 << 30, Pin: true}, "Pin needs a CPU limit"},
	} {
		t.Run(name, func(t *testing.T) {
			g, err := h.New(tc.group, tc.l)
			require.Nil(t, g)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestNoLimits(t *testing.T) {
	f := newFakeV1(t)
	g, err := newHost(f.cfg).New("pg", Limits{})
	require.NoError(t, err)
	require.Equal(t, MethodNone, g.Method())
	require.Equal(t, "no limits", g.Describe())
	cmd := exec.Command("/bin/true", "a")
	require.NoError(t, g.Command(cmd))
	require.Equal(t, []string{"/bin/true", "a"}, cmd.Args, "left alone")
	require.Nil(t, cmd.SysProcAttr)
	require.NoError(t, g.Close())
}

// Pinned groups take the least used cores, ties going round-robin, and
// give them back on Close.
func TestCoreSpreading(t *testing.T) {
	h := newHost(config{cores: []int{0, 1, 2, 3}})
	a := h.take(2)
	b := h.take(2)
	require.Equal(t, []int{0, 1}, a)
	require.Equal(t, []int{2, 3}, b)
	c := h.take(1) // every core busy once: round-robin goes on
	require.Equal(t, []int{0}, c)
	h.release(b)
	require.Equal(t, []int{2, 3}, h.take(2), "the freed cores before the shared ones")
	require.Equal(t, []int{3}, h.take(1), "a core with one group, not core 0 with two; round-robin among them")
	h.release(a)
	h.release(c)
	require.Equal(t, map[int]int{2: 1, 3: 2}, h.load, "what the last two takes still hold")
}

func TestParseMountinfo(t *testing.T) {
	// This machine kind (hybrid: v1 controllers, an empty v2), a pure v2
	// machine, and a container with a bind-mounted subtree.
	const hybrid = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpu\040acct rw,relatime - cgroup cgroup rw,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`
	mounts, err := parseMountinfo(hybrid)
	require.NoError(t, err)
	require.Len(t, mounts, 4)
	require.True(t, mounts[0].has("cpu"))
	require.False(t, mounts[0].has("cpuacct"))
	require.Equal(t, "/sys/fs/cgroup/cpu acct", mounts[1].point)
	require.True(t, mounts[3].v2)
	require.False(t, mounts[3].has("rw"), "v2 options are not controllers")

	m := mount{root: "/docker/abc", point: "/sys/fs/cgroup/memory"}
	require.Equal(t, "/sys/fs/cgroup/memory/x", m.dir("/docker/abc/x"))
	require.Equal(t, "/sys/fs/cgroup/memory", m.dir("/docker/abc"))
	require.Equal(t, "/sys/fs/cgroup/memory/other", m.dir("/other"), "cgroup namespace: path already relative")
	require.Equal(t, "/sys/fs/cgroup/memory/etc", m.dir("/../../etc"), "never above the mount")
	require.Equal(t, "/docker/abc/x/dbarena-pg", m.hierarchyPath("/sys/fs/cgroup/memory/x/dbarena-pg"))

	me := parseMembership("12:cpu,cpuacct:/a\n4:memory:/process_api/1\n1:name=systemd:/\n0::/user.slice\n")
	require.Equal(t, "/a", me.v1["cpu"])
	require.Equal(t, "/a", me.v1["cpuacct"])
	require.Equal(t, "/process_api/1", me.v1["memory"])
	require.True(t, me.hasV2)
	require.Equal(t, "/user.slice", me.v2)
}

// Co-mounted cpu,cpuacct share one directory, and the group nests under
// this process's own cgroup in each hierarchy.
func TestV1CoMountedNests(t *testing.T) {
	f := newFakeV1(t)
	require.NoError(t, os.MkdirAll(f.root+"/cpu,cpuacct", 0o755))
	require.NoError(t, os.MkdirAll(f.root+"/memory/job", 0o755))
	f.cfg.mountinfo = f.write(t.TempDir(), "mountinfo", "32 31 0:29 / "+f.root+"/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"+
		"35 31 0:32 / "+f.root+"/memory rw - cgroup cgroup rw,memory\n")
	f.cfg.self = f.write(t.TempDir(), "self", "2:cpu,cpuacct:/\n1:memory:/job\n")
	g, err := newHost(f.cfg).New("pg", Limits{CPUs: 1, MemoryBytes: 1 << 30})
	require.NoError(t, err)
	require.Equal(t, []string{f.root + "/cpu,cpuacct/" + g.Name(), f.root + "/memory/job/" + g.Name()}, g.dirs)
	require.Equal(t, "100000", f.read(g.v1["cpu"], "cpu.cfs_quota_us"))
	require.Equal(t, "1073741824", f.read(g.v1["memory"], "memory.limit_in_bytes"))
	require.Equal(t, g.v1["cpu"], g.v1["cpuacct"])
	require.Equal(t, "/job/"+g.Name(), g.v1paths["memory"])
	require.NoError(t, g.Close())
}

func TestFormat(t *testing.T) {
	for in, want := range map[int64]string{1 << 30: "1 GiB", 3 << 29: "1536 MiB", 64 << 20: "64 MiB", 1000: "1000 bytes", 1 << 40: "1 TiB"} {
		require.Equal(t, want, formatBytes(in))
	}
	require.Equal(t, "0-2,5,7-8", formatCores([]int{0, 1, 2, 5, 7, 8}))
	cores, err := parseCores("0-2,5,7-8\n")
	require.NoError(t, err)
	require.Equal(t, []int{0, 1, 2, 5, 7, 8}, cores)
	_, err = parseCores("3-1")
	require.ErrorContains(t, err, "backwards")
	require.Equal(t, "1 CPU", formatCPUs(1))
	require.Equal(t, "0.5 CPUs", formatCPUs(0.5))
	require.Equal(t, `'it'\''s'`, shellQuote("it's"))
}

// TestPickGivenCores: cores given are the ones pinned to, however
// loaded (targets side by side share them), and counted so that
// release gives them back; too few, or one the host has not, is an
// error naming them.
func TestPickGivenCores(t *testing.T) {
	h := newHost(config{cores: []int{0, 1, 2, 3}})
	got, err := h.pick(Limits{CPUs: 1, Pin: true, Cores: []int{3}})
	require.NoError(t, err)
	require.Equal(t, []int{3}, got)
	got, err = h.pick(Limits{CPUs: 1, Pin: true, Cores: []int{3}})
	require.NoError(t, err)
	require.Equal(t, []int{3}, got, "shared")
	require.Equal(t, 2, h.load[3])
	got, err = h.pick(Limits{CPUs: 2, Pin: true, Cores: []int{3, 2}})
	require.NoError(t, err)
	require.Equal(t, []int{2, 3}, got, "in order")
	_, err = h.pick(Limits{CPUs: 2, Pin: true, Cores: []int{3}})
	require.ErrorContains(t, err, "2 CPUs need 2 whole cores; given 3")
	_, err = h.pick(Limits{CPUs: 1, Pin: true, Cores: []int{7}})
	require.ErrorContains(t, err, "core 7 is not one of this host's")
	h.release([]int{3})
	require.Equal(t, 2, h.load[3])
	got, err = h.pick(Limits{CPUs: 1, Pin: true})
	require.NoError(t, err)
	require.Equal(t, []int{0}, got, "without cores given, the least loaded")
}
