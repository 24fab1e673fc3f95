package reference_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/proctree"
	"github.com/dbarena/dbarena/reference"
)

// childEnv marks the test binary run as the process that runs a
// reference and is then killed outright.
const childEnv = "DBARENA_REFERENCE_CHILD_URL"

// TestToolDiesWithItsParent: a reference tool started by a process that
// is killed outright (kill -9, no chance to stop it) dies with it, where
// it used to run on as an orphan loading the database. The test binary
// runs pgbench for a minute as a child process, which is killed once
// pgbench is seen under it.
func TestToolDiesWithItsParent(t *testing.T) {
	if url := os.Getenv(childEnv); url != "" {
		props := map[string]string{"postgres.url": url}
		_, _ = reference.Run(context.Background(), withDriver(t, reference.Request{Database: "postgres", Driver: "postgres",
			Props: props, Workload: config(t, "postgres", "table", "ref_orphan"), Threads: 1, Duration: time.Minute, WorkDir: t.TempDir()}))
		return
	}
	props := map[string]string{"postgres.url": pgURL(t)}
	load(t, "postgres", props, config(t, "postgres", "table", "ref_orphan"))
	child := exec.Command(os.Args[0], "-test.run=^TestToolDiesWithItsParent$")
	child.Env = append(os.Environ(), childEnv+"="+pgURL(t))
	require.NoError(t, child.Start())
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })

	var tool int
	require.Eventually(t, func() bool {
		tool = childNamed(child.Process.Pid, "pgbench")
		return tool > 0
	}, 30*time.Second, 20*time.Millisecond, "pgbench started under the child")
	require.NoError(t, child.Process.Signal(syscall.SIGKILL))
	_ = child.Wait()
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(tool), "stat"))
		// Gone, or a zombie waiting for init to reap it.
		return err != nil || strings.Contains(string(b), ") Z ")
	}, 5*time.Second, 20*time.Millisecond, "pgbench %d outlived the process that started it", tool)
}

// childNamed is the pid of a descendant of parent whose command is
// name, 0 when there is none.
func childNamed(parent int, name string) int {
	pids, _ := proctree.Descendants("/proc", parent)
	for _, pid := range pids {
		if b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm")); err == nil && strings.TrimSpace(string(b)) == name {
			return pid
		}
	}
	return 0
}
