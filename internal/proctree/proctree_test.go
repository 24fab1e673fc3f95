package proctree

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

// state is a process's state letter from /proc/PID/stat.
func state(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	require.NoError(t, err)
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])[0]
}

// TestStopAndContinueATree stops a shell and the two children it forked,
// then lets them go on.
func TestStopAndContinueATree(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 60 & sleep 60 & wait")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = Continue(cmd.Process.Pid)
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		kids, _ := Descendants("/proc", cmd.Process.Pid)
		for _, k := range kids {
			_ = syscall.Kill(k, syscall.SIGKILL)
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	root := cmd.Process.Pid
	var kids []int
	require.Eventually(t, func() bool {
		var err error
		kids, err = Descendants("/proc", root)
		return err == nil && len(kids) == 2
	}, 5*time.Second, 10*time.Millisecond, "the shell forks two sleeps")

	require.NoError(t, Stop(root))
	for _, pid := range append(kids, root) {
		require.Eventually(t, func() bool { return state(t, pid) == "T" }, 2*time.Second, 5*time.Millisecond, "pid %d stopped", pid)
	}
	require.NoError(t, Continue(root))
	for _, pid := range append(kids, root) {
		require.Eventually(t, func() bool { return state(t, pid) != "T" }, 2*time.Second, 5*time.Millisecond, "pid %d going on", pid)
	}
}

func TestParentOf(t *testing.T) {
	ppid, ok := parentOf("123 (my (odd) name) S 45 123 123 0 -1")
	require.True(t, ok)
	require.Equal(t, 45, ppid)
	_, ok = parentOf("garbage")
	require.False(t, ok)
	_, ok = parentOf("1 (x)")
	require.False(t, ok)
}

func TestStopNoSuchProcess(t *testing.T) {
	require.Error(t, Stop(1<<22+12345))
}
