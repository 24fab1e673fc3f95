package main_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSIGINTStopsGracefully runs the real binary, interrupts it and checks
// that it exits 130 with its results written and marked interrupted.
func TestSIGINTStopsGracefully(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "dbarena")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))

	jsonPath, hlogPath := filepath.Join(dir, "s.json"), filepath.Join(dir, "run.hlog")
	cmd := exec.Command(bin, "ycsb", "run", "basic", "-P", "../../workloads/workloada",
		"-p", "operationcount=1000000000000", "-p", "basic.delay=1ms", "-threads", "4",
		"--json", jsonPath, "--hdr-log", hlogPath)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	require.NoError(t, cmd.Start())
	// Let two collection intervals complete.
	time.Sleep(2500 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err = cmd.Wait()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "exit error expected, got %v", err)
	require.Equal(t, 130, ee.ExitCode())
	require.Contains(t, stdout.String(), "[OVERALL], Interrupted, true")

	b, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	var s struct {
		Interrupted bool `json:"interrupted"`
		Measured    struct {
			Operations int64 `json:"operations"`
		} `json:"measured"`
	}
	require.NoError(t, json.Unmarshal(b, &s))
	require.True(t, s.Interrupted)
	require.Positive(t, s.Measured.Operations)

	h, err := os.ReadFile(hlogPath)
	require.NoError(t, err)
	require.GreaterOrEqual(t, strings.Count(string(h), "Tag=READ,"), 2, "every completed interval is in the log")
}
