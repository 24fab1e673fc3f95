package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/measure/hlog"
	"github.com/dbarena/dbarena/results"
)

// redisServer is a Redis of the test's own, which it may freeze, thaw
// and kill.
type redisServer struct {
	cmd  *exec.Cmd
	addr string
}

func startOwnRedis(t *testing.T) *redisServer {
	t.Helper()
	requireLocalServers(t, "redis-server")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	cmd := exec.Command("redis-server", "--port", fmt.Sprint(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", t.TempDir())
	require.NoError(t, cmd.Start())
	r := &redisServer{cmd: cmd, addr: fmt.Sprintf("127.0.0.1:%d", port)}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	waitListening(t, r.addr)
	return r
}

// loadRedis loads records of workload C into srv with `ycsb load` and
// returns the arguments that point a `ycsb` command at them.
func loadRedis(t *testing.T, srv *redisServer, records int) []string {
	t.Helper()
	common := []string{"-P", workloadC, "-p", "redis.addr=" + srv.addr, "-p", fmt.Sprintf("recordcount=%d", records)}
	code, _, errs := run(t, context.Background(), append([]string{"ycsb", "load", "redis", "-q"}, common...)...)
	require.Equal(t, ExitOK, code, errs)
	return common
}

func (r *redisServer) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	require.NoError(t, r.cmd.Process.Signal(sig))
}

// startYCSB starts `dbarena ycsb run` as a process of its own, which the
// test signals.
func startYCSB(t *testing.T, bin string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"ycsb", "run"}, args...)...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		t.Logf("dbarena output:\n%s", out.String())
	})
	return cmd
}

// waitExit waits for cmd and returns its exit code and how long the
// wait took.
func waitExit(t *testing.T, cmd *exec.Cmd) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil {
			require.ErrorAs(t, err, &ee)
			return ee.ExitCode(), time.Since(start)
		}
		return 0, time.Since(start)
	case <-time.After(30 * time.Second):
		t.Fatalf("dbarena did not exit within 30 s")
		return 0, 0
	}
}

func readSummary(t *testing.T, path string) results.Summary {
	t.Helper()
	var s results.Summary
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s))
	return s
}

// TestInterruptPostgresFakesNoFailure: Ctrl-C during a run against a
// real PostgreSQL used to record tens of thousands of CANCELED and
// TIMEOUT "errors" (the run's own cancellation failed the operations in
// flight, and more started after it) and an inflated throughput. Now no
// operation fails because of the stop, and the exit is prompt.
func TestInterruptPostgresFakesNoFailure(t *testing.T) {
	url := pgURL(t)
	common := []string{"-P", workloadA, "-p", "postgres.url=" + url, "-p", "table=interrupt", "-p", "recordcount=2000"}
	code, _, errs := run(t, context.Background(), append([]string{"ycsb", "load", "postgres", "--drop", "-threads", "4", "-q"}, common...)...)
	require.Equal(t, ExitOK, code, errs)
	bin := buildDbarena(t)
	jsonPath := filepath.Join(t.TempDir(), "s.json")
	cmd := startYCSB(t, bin, append([]string{"postgres", "-p", "operationcount=0", "-p", "maxexecutiontime=60",
		"-threads", "16", "-q", "--json", jsonPath}, common...)...)
	time.Sleep(3 * time.Second)
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	code, took := waitExit(t, cmd)
	t.Logf("exit %s after SIGINT", took)
	require.Equal(t, ExitInterrupted, code)
	require.Less(t, took, 3*time.Second, "exit within the stop grace and a little")
	s := readSummary(t, jsonPath)
	m := s.Measured
	require.True(t, s.Interrupted)
	require.Zero(t, m.Errors, "no operation fails because of the stop")
	require.LessOrEqual(t, m.Aborted, int64(16), "at most the operations in flight")
	require.Positive(t, m.Operations)
	secs := float64(m.RuntimeMs) / 1e3
	require.InEpsilon(t, float64(m.Operations)/secs, m.OKThroughput, 0.01)
}

// TestFrozenServerInterrupt freezes a real Redis (SIGSTOP) under a run:
// Ctrl-C still ends it promptly, the operations the frozen server holds
// count as aborted (not as errors), and a second Ctrl-C does not wait at
// all.
func TestFrozenServerInterrupt(t *testing.T) {
	bin := buildDbarena(t)
	for _, tc := range []struct {
		name    string
		second  bool
		maxExit time.Duration
	}{
		{"one Ctrl-C", false, 3 * time.Second},
		{"two", true, 1500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startOwnRedis(t)
			common := loadRedis(t, srv, 500)
			jsonPath := filepath.Join(t.TempDir(), "s.json")
			cmd := startYCSB(t, bin, append([]string{"redis", "-p", "operationcount=0", "-p", "maxexecutiontime=60",
				"-threads", "4", "-q", "--json", jsonPath}, common...)...)
			time.Sleep(1500 * time.Millisecond)
			srv.signal(t, syscall.SIGSTOP)
			time.Sleep(500 * time.Millisecond)
			require.NoError(t, cmd.Process.Signal(os.Interrupt))
			if tc.second {
				time.Sleep(100 * time.Millisecond)
				require.NoError(t, cmd.Process.Signal(os.Interrupt))
			}
			code, took := waitExit(t, cmd)
			t.Logf("exit %s after the last SIGINT, server frozen", took)
			require.Equal(t, ExitInterrupted, code)
			require.Less(t, took, tc.maxExit)
			s := readSummary(t, jsonPath)
			require.True(t, s.Interrupted)
			require.Zero(t, s.Measured.Errors, "the frozen server's operations are not failures")
			require.EqualValues(t, 4, s.Measured.Aborted, "each worker's operation the frozen server held")
			require.Positive(t, s.Measured.Operations, "what was measured before the freeze is kept")
		})
	}
}

// TestExperimentGoesOnPastADeadDatabase kills one target's Redis in its
// measured trial: that trial is failed with its reason, left out of the
// verdict, its dead seconds stay in the time series and the interval log,
// the next target still runs, and the experiment exits 1.
func TestExperimentGoesOnPastADeadDatabase(t *testing.T) {
	dying, healthy := startOwnRedis(t), startOwnRedis(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "dies.yaml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`name: dies
properties: {recordcount: 200}
targets:
  - name: dies
    database: redis
    deploy: {provider: existing}
    properties: {redis.addr: "%s"}
  - name: healthy
    database: redis
    deploy: {provider: existing}
    properties: {redis.addr: "%s"}
workloads: [c]
run: {duration: 4s, threads: 2, stop_on_error_rate: 0}
`, dying.addr, healthy.addr)), 0o644))
	res := filepath.Join(dir, "r")
	time.AfterFunc(2500*time.Millisecond, func() { _ = dying.cmd.Process.Kill() })
	code, out, errs := run(t, context.Background(), "run", file, "--results", res)
	t.Log(errs)
	require.Equal(t, ExitFailure, code, "a failed trial fails the experiment, at the end")
	require.Contains(t, errs, "dies.c: FAILED:")

	d, err := results.Read(res)
	require.NoError(t, err)
	rows := rowsByID(d)
	dead := rows["dies.c"]
	require.Equal(t, results.StatusFailed, dead.Status)
	require.Contains(t, dead.StatusReason, "above max-error-rate=0.01")
	require.Positive(t, measuredRow(t, rows, "healthy.c").Throughput, "the next target ran")
	require.Contains(t, out, "dies failed:", "the verdict says why dies is left out")
	require.NotContains(t, out, "x dies", "and compares nothing with it")

	// Every second of the trial is in the time series, the dead ones
	// with their failures and no successes.
	var last time.Duration
	var deadSeconds int
	for _, p := range d.Points {
		if p.Trial != "dies.c" || p.Op != results.AllOps || p.Warmup {
			continue
		}
		last = max(last, p.Elapsed)
		if p.Rate == 0 && p.ErrorRate > 0 {
			deadSeconds++
		}
	}
	require.Greater(t, last, 3500*time.Millisecond, "the series reaches the trial's end")
	require.GreaterOrEqual(t, deadSeconds, 1)
	f, err := os.Open(filepath.Join(res, results.HdrDir, "dies.c.hlog"))
	require.NoError(t, err)
	defer f.Close()
	rd := hlog.NewReader(f)
	var failed int64
	for {
		iv, err := rd.Next()
		if err != nil {
			break
		}
		if hlog.ParseTag(iv.Tag).Kind == hlog.Failed {
			failed += iv.Histogram.TotalCount()
		}
	}
	require.Equal(t, dead.Errors, failed, "the failures are in the interval log")
}

// TestExperimentSettingsTakeEffect: warmup.operations and late.threshold
// from an experiment's properties, and load.verify, act on a trial run in
// this process as they do in `ycsb run` and on loaders.
func TestExperimentSettingsTakeEffect(t *testing.T) {
	srv := startOwnRedis(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.yaml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`name: settings
properties: {recordcount: 200, warmup.operations: 300, late.threshold: 1ns}
targets:
  - database: redis
    deploy: {provider: existing}
    properties: {redis.addr: "%s"}
workloads: [c]
load: {verify: true}
run: {duration: 2s, threads: 2, target: 400}
`, srv.addr)), 0o644))
	res := filepath.Join(dir, "r")
	code, _, errs := run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, errs, "verify: 200 records read back", "load.verify read the load back")
	d, err := results.Read(res)
	require.NoError(t, err)
	c := rowsByID(d)["redis.c"]
	require.Positive(t, c.Operations)
	require.InEpsilon(t, c.Operations, c.Late, 0.05, "late.threshold=1ns: every paced operation is late")
	var warm int64
	for _, p := range d.Points {
		if p.Trial == "redis.c" && p.Op == results.AllOps && p.Warmup {
			warm += p.Ops
		}
	}
	require.InDelta(t, 300, warm, 4, "warmup.operations=300 ends the warm-up")
}
