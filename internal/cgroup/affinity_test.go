package cgroup

import (
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

// affinityHost is this machine seen without any cgroup mount, as an
// unprivileged container sees it. CPU affinity needs no root.
func affinityHost(t *testing.T, taskset string) *Host {
	t.Helper()
	cfg, err := systemConfig()
	require.NoError(t, err)
	if len(cfg.cores) < 2 {
		t.Skip("pinning to one core of one proves nothing")
	}
	cfg.mountinfo = filepath.Join(t.TempDir(), "mountinfo")
	require.NoError(t, os.WriteFile(cfg.mountinfo, nil, 0o644))
	cfg.taskset = taskset
	return newHost(cfg)
}

func TestRealAffinity(t *testing.T) {
	for _, tc := range []struct {
		name    string
		taskset bool
	}{
		{"taskset", true},
		{"pinned_thread", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			taskset := ""
			if tc.taskset {
				var err error
				if taskset, err = exec.LookPath("taskset"); err != nil {
					t.Skip("taskset not installed")
				}
			}
			h := affinityHost(t, taskset)
			g, err := h.New("aff", Limits{CPUs: 1})
			require.NoError(t, err)
			closeGroup(t, g)
			require.Equal(t, MethodAffinity, g.Method())
			require.Equal(t, []int{h.cfg.cores[0]}, g.Cores())
			require.Contains(t, g.Describe(), "no cgroup: no cgroup v1 hierarchy for [cpu]")

			cmd := busyTree()
			if !tc.taskset {
				require.ErrorContains(t, g.Command(cmd), "Group.Start")
			}
			require.NoError(t, g.Start(cmd))
			reap(t, cmd)
			time.Sleep(300 * time.Millisecond)
			cores := treeCores(t, cmd.Process.Pid, 2*time.Second)
			t.Logf("%s: two busy processes used %.2f cores", g.Describe(), cores)
			require.LessOrEqual(t, cores, 1.15, "two busy processes on one core")
			require.Greater(t, cores, 0.3)

			want := strconv.Itoa(h.cfg.cores[0])
			for _, pid := range append(children(t, cmd.Process.Pid), cmd.Process.Pid) {
				require.Equal(t, want, allowedCores(t, strconv.Itoa(pid)), "pid %d", pid)
				in, err := g.Contains(pid)
				require.NoError(t, err)
				require.True(t, in)
			}
			// Pinning the forking thread must not leak into this process.
			all := formatCores(h.cfg.cores)
			tasks, err := os.ReadDir("/proc/self/task")
			require.NoError(t, err)
			for _, task := range tasks {
				require.Equal(t, all, allowedCores(t, "self/task/"+task.Name()), "thread %s", task.Name())
			}
			in, err := g.Contains(os.Getpid())
			require.NoError(t, err)
			require.False(t, in)
		})
	}
}

// allowedCores reads Cpus_allowed_list of /proc/<which>/status.
func allowedCores(t *testing.T, which string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", which, "status"))
	require.NoError(t, err)
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no Cpus_allowed_list in /proc/%s/status", which)
	return ""
}

func TestAffinityRefusesMemory(t *testing.T) {
	h := affinityHost(t, "")
	g, err := h.New("mem", Limits{CPUs: 1, MemoryBytes: 1 << 30})
	require.ErrorIs(t, err, ErrNoMemoryLimit)
	require.ErrorContains(t, err, "cap mem at 1 GiB memory: no usable memory controller: no cgroup v1 hierarchy for [cpu memory]")
	require.Nil(t, g)
	require.Empty(t, h.load, "a refused group holds no cores")
}

func TestAffinityRoundsUp(t *testing.T) {
	h := affinityHost(t, "/usr/bin/taskset")
	g, err := h.New("half", Limits{CPUs: 1.5})
	require.NoError(t, err)
	closeGroup(t, g)
	require.Len(t, g.Cores(), 2)
	require.Equal(t, "2 cores ("+formatCores(g.Cores())+") for 1.5 CPUs asked: affinity cannot split a core, cpu affinity (no cgroup: no cgroup v1 hierarchy for [cpu] and no cgroup v2 mount)", g.Describe())

	cmd := exec.Command("/bin/echo", "a b")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, g.Command(cmd))
	require.Equal(t, "/usr/bin/taskset", cmd.Path)
	require.Equal(t, []string{"/usr/bin/taskset", "-c", formatCores(g.Cores()), "/bin/echo", "a b"}, cmd.Args)
	require.True(t, cmd.SysProcAttr.Setpgid)
}
