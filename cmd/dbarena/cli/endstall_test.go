package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// TestStallAtTheEndOfAPacedRun freezes a real Redis (SIGSTOP) near the
// end of a run paced at 1,000 ops/s: the operations due from the freeze
// to the window's end, in flight or never issued, count at their latency
// so far, so the response time's p99 matches the analytic answer. With
// L the time from the freeze to the window's end and D the window, the
// R·D operations due hold R·L spread evenly over (0, L] at the top, and
// the p99 is the (0.01·R·D)-th from the top: L - 0.01·D. Before, the p99
// read about 1 ms and the operations due during the freeze were in no
// count.
func TestStallAtTheEndOfAPacedRun(t *testing.T) {
	bin := buildDbarena(t)
	srv := startOwnRedis(t)
	common := loadRedis(t, srv, 500)
	jsonPath := filepath.Join(t.TempDir(), "s.json")
	const rate, window = 1000.0, 5 * time.Second
	cmd := startYCSB(t, bin, append([]string{"redis", "-p", "operationcount=0", "-p", "maxexecutiontime=5",
		"-target", "1000", "-threads", "4", "-q", "--json", jsonPath}, common...)...)
	time.Sleep(3 * time.Second)
	srv.signal(t, syscall.SIGSTOP)
	frozen := time.Now()
	waitExit(t, cmd)
	s := readSummary(t, jsonPath)
	m := s.Measured
	require.Equal(t, window, time.Duration(m.RuntimeMs)*time.Millisecond, "the window closes at the time limit")
	end := m.Start.Add(time.Duration(m.RuntimeMs) * time.Millisecond)
	l := end.Sub(frozen)
	require.Greater(t, l, 500*time.Millisecond, "the freeze came inside the window")
	found := false
	for _, o := range m.Ops {
		if o.Name != "READ" {
			continue
		}
		require.NotNil(t, o.Response)
		require.NotNil(t, o.CutOff, "the operations due during the freeze are counted")
		want := (l - window/100).Seconds() * 1e6
		t.Logf("froze %s before the end: READ %d completed, %d cut off, response p99 %.0f µs, analytic %.0f µs",
			l, o.OK, o.CutOff.Count, o.Response.P99, want)
		require.InEpsilon(t, want, o.Response.P99, 0.05, "the p99 against L - 0.01 D")
		require.InEpsilon(t, rate*l.Seconds(), float64(o.CutOff.Count), 0.05, "R·L operations cut off")
		require.InEpsilon(t, rate*window.Seconds(), float64(o.Response.Count), 0.05, "every operation due in the window")
		found = true
	}
	require.True(t, found, "no READ in %+v", m.Ops)
}

// TestStallAtTheEndOfAClosedLoop freezes a real Redis (SIGSTOP) 2.5 s
// into a closed loop's 5 s trial: the two operations it holds count at
// their latency so far, the trial is flagged stalled (not client-bound:
// Little's law now sees the workers waiting), and every second of the
// window stays its own interval (the stop's drain made the last one
// 2.5 s long).
func TestStallAtTheEndOfAClosedLoop(t *testing.T) {
	srv := startOwnRedis(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "stall.yaml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`name: stall
properties: {recordcount: 200}
targets:
  - name: frozen
    database: redis
    deploy: {provider: existing}
    properties: {redis.addr: "%s"}
workloads: [c]
run: {duration: 5s, threads: 2}
`, srv.addr)), 0o644))
	res := filepath.Join(dir, "r")
	froze := make(chan time.Time, 1)
	go func() {
		// The trial starts after the load: freeze 2.5 s into its window.
		for range 600 {
			time.Sleep(50 * time.Millisecond)
			d, err := results.Read(res)
			if err != nil {
				continue
			}
			for _, p := range d.Points {
				if p.Trial == "frozen.c" {
					time.Sleep(1500 * time.Millisecond)
					_ = srv.cmd.Process.Signal(syscall.SIGSTOP)
					froze <- time.Now()
					return
				}
			}
		}
	}()
	code, out, errs := run(t, t.Context(), "run", file, "--results", res)
	t.Log(out, errs)
	var frozen time.Time
	select {
	case frozen = <-froze:
	default:
		t.Fatal("the freeze never came")
	}
	d, err := results.Read(res)
	require.NoError(t, err)
	row := rowsByID(d)["frozen.c"]
	t.Logf("exit %d, flags %q, p99 %.0f µs, max %.0f µs", code, row.Flags, row.Latency.P99, row.Latency.Max)
	var kinds []results.FlagKind
	for _, f := range row.Flags {
		kinds = append(kinds, f.Kind())
	}
	require.Contains(t, kinds, results.FlagStalled)
	require.NotContains(t, kinds, results.FlagClientBound, "the workers were waiting on the frozen database")
	end := row.Start.Add(row.Duration)
	require.InDelta(t, end.Sub(frozen).Seconds(), row.Latency.Max/1e6, 0.3, "the oldest counts its latency so far")
	for _, p := range d.Points {
		if p.Trial == "frozen.c" && p.Op == results.AllOps && !p.Warmup {
			require.LessOrEqual(t, p.Length, 1100*time.Millisecond, "at %s: every second its own interval", p.Elapsed)
		}
	}
	log, err := os.ReadFile(filepath.Join(res, results.HdrDir, "frozen.c.hlog"))
	require.NoError(t, err)
	require.Contains(t, string(log), "Tag=CUTOFF-READ,", "the interval log keeps the cut-off operations")
	s, ok, err := d.TrialStats("frozen.c")
	require.NoError(t, err)
	require.True(t, ok)
	require.InDelta(t, row.Latency.Max, s.Max, row.Latency.Max*0.01, "the log's latency is the row's, cut-offs included")
}

// TestStallAtTheEndOfALoadersTrial freezes a real Redis 2.5 s before the
// end of a closed-loop trial that two loader processes run: each
// loader's window closes on the operations the frozen server holds, its
// interval log carries them (CUTOFF- tags), and the merged trial counts
// them as one process does: flagged stalled, its maximum the latency so
// far of the oldest. Before, the loaders' cut-offs stayed in their own
// summaries and the merged trial read as a healthy one.
func TestStallAtTheEndOfALoadersTrial(t *testing.T) {
	bin := buildDbarena(t)
	srv := startOwnRedis(t)
	dir := t.TempDir()
	file := redisExperiment(t, dir, "stall", srv.addr, "{duration: 5s, threads: 2, loaders: 2}")
	res := filepath.Join(dir, "r")
	froze := make(chan time.Time, 1)
	go func() {
		// The loaders' logs stream here from their launch; they start
		// together 3 s later: freeze 2.5 s into their 5 s window.
		if poll(time.Minute, func() bool {
			_, err := os.Stat(filepath.Join(res, results.HdrDir, "r.c"+results.LoaderLogs, "loader-1.hlog"))
			return err == nil
		}) {
			time.Sleep(5500 * time.Millisecond)
			_ = srv.cmd.Process.Signal(syscall.SIGSTOP)
			froze <- time.Now()
		}
		close(froze)
	}()
	code, out, errs := run(t, t.Context(), "run", file, "--results", res, "--loader-binary", bin)
	t.Log(out, errs)
	frozen, ok := <-froze
	require.True(t, ok, "the freeze never came")
	d, err := results.Read(res)
	require.NoError(t, err)
	row := rowsByID(d)["r.c"]
	t.Logf("exit %d, flags %q, p99 %.0f µs, max %.0f µs", code, row.Flags, row.Latency.P99, row.Latency.Max)
	require.True(t, results.HasFlag(row.Flags, results.FlagStalled), "flags: %q", row.Flags)
	end := row.Start.Add(row.Duration)
	require.InDelta(t, end.Sub(frozen).Seconds(), row.Latency.Max/1e6, 0.5, "the oldest counts its latency so far")
	log, err := os.ReadFile(filepath.Join(res, results.HdrDir, "r.c.hlog"))
	require.NoError(t, err)
	require.Contains(t, string(log), "Tag=CUTOFF-READ,", "the merged log keeps the cut-off operations")
}
