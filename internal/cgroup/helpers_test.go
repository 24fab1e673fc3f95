package cgroup

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
)

// userHZ is the unit of utime and stime in /proc/PID/stat: USER_HZ, 100 on
// every architecture Linux exports to user space with these fields.
const userHZ = 100

// requireRoot skips a test that needs real cgroups when not root, except
// under CI, where a skipped suite would hide a broken runner.
func requireRoot(t *testing.T) {
	t.Helper()
	testenv.Root(t, "real cgroup tests")
}

// treeTicks sums utime+stime over pid and all its descendants, read from
// /proc independently of the package under test.
func treeTicks(t *testing.T, pid int) int64 {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	parent := map[int]int{}
	ticks := map[int]int64{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // exited meanwhile
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		// After "pid (comm) ": state ppid ... utime is field 14, stime 15.
		ppid, _ := strconv.Atoi(f[1])
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		parent[p], ticks[p] = ppid, ut+st
	}
	var sum int64
	for p, tk := range ticks {
		for q := p; q > 1; q = parent[q] {
			if q == pid {
				sum += tk
				break
			}
		}
	}
	return sum
}

// treeCores measures the cores the tree under pid uses over d.
func treeCores(t *testing.T, pid int, d time.Duration) float64 {
	t.Helper()
	before, start := treeTicks(t, pid), time.Now()
	time.Sleep(d)
	after, elapsed := treeTicks(t, pid), time.Since(start)
	return float64(after-before) / userHZ / elapsed.Seconds()
}

// busyTree is two busy children of a shell: up to two cores of demand.
func busyTree() *exec.Cmd {
	cmd := exec.Command("/bin/sh", "-c", "yes >/dev/null & yes >/dev/null & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// reap kills the process group of a started command and waits for it.
func reap(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
}

// unprivileged returns the credentials of the postgres user, creating a
// system user when this machine has none.
func unprivileged(t *testing.T) *syscall.Credential {
	t.Helper()
	u, err := user.Lookup("postgres")
	if err != nil {
		name := "dbarena-limits-test"
		if u, err = user.Lookup(name); err != nil {
			out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name).CombinedOutput()
			require.NoError(t, err, "useradd: %s", out)
			t.Cleanup(func() { _ = exec.Command("userdel", name).Run() })
			u, err = user.Lookup(name)
			require.NoError(t, err)
		}
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	require.NoError(t, err)
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	require.NoError(t, err)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
}

// realHost is a Host on this machine.
func realHost(t *testing.T) *Host {
	t.Helper()
	h, err := NewHost()
	require.NoError(t, err)
	return h
}

// closeGroup closes g when the test ends and requires that to work.
func closeGroup(t *testing.T, g *Group) {
	t.Helper()
	t.Cleanup(func() { require.NoError(t, g.Close()) })
}
