package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// TestHangupStopsLikeTerm: SIGHUP (an ssh session that dropped) stops a
// run as SIGTERM does, keeping what was measured; it used to exit 129
// with nothing written.
func TestHangupStopsLikeTerm(t *testing.T) {
	bin := buildDbarena(t)
	srv := startOwnRedis(t)
	common := loadRedis(t, srv, 200)
	jsonPath := filepath.Join(t.TempDir(), "s.json")
	cmd := startYCSB(t, bin, append([]string{"redis", "-p", "operationcount=0", "-p", "maxexecutiontime=60",
		"-threads", "2", "-q", "--json", jsonPath}, common...)...)
	time.Sleep(1500 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGHUP))
	code, took := waitExit(t, cmd)
	t.Logf("exit %d after %s", code, took)
	require.Equal(t, ExitInterrupted, code)
	s := readSummary(t, jsonPath)
	require.True(t, s.Interrupted)
	require.Positive(t, s.Measured.Operations, "what was measured is kept")
}

// TestClosedStdoutLosesNothing: with its standard output closed by the
// reader (`| head -1`), a run goes on and writes its results; an
// experiment's manifest ends completed. Both used to die of SIGPIPE,
// exit 141, the experiment 0.05 s in with its manifest "running".
func TestClosedStdoutLosesNothing(t *testing.T) {
	bin := buildDbarena(t)
	srv := startOwnRedis(t)
	headOne := func(t *testing.T, args ...string) int {
		t.Helper()
		cmd := exec.Command(bin, args...)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		_, _ = bufio.NewReader(out).ReadString('\n') // head -1
		require.NoError(t, out.Close())
		code, _ := waitExit(t, cmd)
		return code
	}
	common := loadRedis(t, srv, 200)

	jsonPath := filepath.Join(t.TempDir(), "s.json")
	code := headOne(t, append([]string{"ycsb", "run", "redis", "-p", "operationcount=0", "-p", "maxexecutiontime=2",
		"-threads", "2", "--json", jsonPath}, common...)...)
	require.Equal(t, ExitOK, code)
	s := readSummary(t, jsonPath)
	require.Positive(t, s.Measured.Operations)

	dir := t.TempDir()
	file := filepath.Join(dir, "pipe.yaml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`name: pipe
properties: {recordcount: 200}
targets:
  - {name: r, database: redis, deploy: {provider: existing}, properties: {redis.addr: "%s"}}
workloads: [c]
run: {duration: 2s, threads: 2}
`, srv.addr)), 0o644))
	res := filepath.Join(dir, "r")
	code = headOne(t, "run", file, "--results", res)
	require.Equal(t, ExitOK, code)
	d, err := results.Read(res)
	require.NoError(t, err)
	require.Equal(t, results.StatusCompleted, d.Manifest.Status)
	require.Len(t, d.Trials, 2, "the load and the run")
}
