package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/report"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/sysmetrics"
)

// The known answers of repeatability, on real servers: interference on
// a pinned database's core is seen and measured again, and two
// identical targets name no winner. They judge this machine's CPU, so
// scripts/test runs them on their own (the Test.*Known.* and
// TestBusyLoop... names are in its alone list).

// measuring waits until the results directory res holds a measured
// (not warm-up) interval of trial id, and returns; false when ctx ends
// first.
func measuring(ctx context.Context, res, id string) bool {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
		f, err := os.Open(filepath.Join(res, results.TimeseriesFile))
		if err != nil {
			continue
		}
		rows, _ := csv.NewReader(f).ReadAll()
		f.Close()
		if len(rows) == 0 {
			continue
		}
		col := map[string]int{}
		for i, h := range rows[0] {
			col[h] = i
		}
		for _, r := range rows[1:] {
			if len(r) == len(rows[0]) && r[col["trial"]] == id && r[col["warmup"]] == "false" {
				return true
			}
		}
	}
}

// databaseCore is the first core the manifest of res gives target's
// database, once it says.
func databaseCore(ctx context.Context, t *testing.T, res, target string) (int, bool) {
	for ctx.Err() == nil {
		if d, err := results.Read(res); err == nil {
			for _, ti := range d.Manifest.Targets {
				if ti.Name == target && len(ti.DatabaseCores) > 0 {
					return ti.DatabaseCores[0], true
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return 0, false
}

// TestBusyLoopOnTheDatabaseCore: a busy loop pinned to the core of a
// pinned local PostgreSQL for four seconds of an eight-second measured
// window takes about half of that core while it runs: the trial is
// flagged interfered, names the core and what took it, and is measured
// again; the retry, on a quiet core, is not flagged so.
func TestBusyLoopOnTheDatabaseCore(t *testing.T) {
	testenv.Addr(t, "DBARENA_TEST_POSTGRES") // PostgreSQL is installed
	if sysmetrics.CPUCount() < 2 {
		testenv.Missing(t, "a pinned database needs a core of its own: this machine has one")
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		testenv.Missing(t, "taskset (util-linux) pins the busy loop")
	}
	file := writeExperiment(t, `name: busy
properties: {recordcount: 5000}
targets:
  - name: pg
    database: postgres
    deploy: {provider: local, cpus: 1, pin: true, options: {synchronous_commit: "off"}}
workloads: [c]
run: {duration: 8s, warmup: 2s, threads: 8}
`)
	res := filepath.Join(t.TempDir(), "r")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	busy := make(chan string, 1)
	go func() {
		core, ok := databaseCore(ctx, t, res, "pg")
		if !ok || !measuring(ctx, res, "pg.c") {
			busy <- "never started"
			return
		}
		time.Sleep(2 * time.Second)
		loop := exec.Command("taskset", "-c", fmt.Sprint(core), "sh", "-c", "while :; do :; done")
		loop.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := loop.Start(); err != nil {
			busy <- err.Error()
			return
		}
		time.Sleep(4 * time.Second)
		_ = syscall.Kill(-loop.Process.Pid, syscall.SIGKILL)
		_ = loop.Wait()
		busy <- fmt.Sprintf("core %d", core)
	}()
	code, out, errs := run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	core := <-busy
	require.True(t, strings.HasPrefix(core, "core "), core)
	d, err := results.Read(res)
	require.NoError(t, err)
	rows := rowsByID(d)
	first, retry := rows["pg.c"], rows["pg.c.retry"]
	require.Equal(t, results.StatusSuperseded, first.Status, "flags: %q", first.Flags)
	var flag string
	for _, f := range first.Flags {
		if f.Kind() == results.FlagInterfered {
			flag = string(f)
		}
	}
	require.NotEmpty(t, flag, "flags: %q", first.Flags)
	require.Contains(t, flag, "of "+core+", where pg ran")
	require.Regexp(t, `other processes (\d+)%`, flag)
	require.Contains(t, first.StatusReason, "measured again as pg.c.retry")
	require.Contains(t, errs, "pg.c: other processes took a share of its cores: measuring it again")
	require.NotEmpty(t, retry.ID, "the retry ran")
	require.Contains(t, out, "measured again: ")
	require.Contains(t, out, "pg.c (other processes took a share of its cores)")
	// The retry's own core was the machine's again: what it met is its
	// own (flagged and measured once more if others took it too).
	last := counted(t, rows, "pg.c")
	t.Logf("%s; %s %.0f ops/s (flags %q) against %.0f", flag, last.ID, last.Throughput, last.Flags, first.Throughput)
}

// noWinner matches a verdict's claim that one target is better.
var noWinner = regexp.MustCompile(`\b(faster|fastest|lower|lowest|ahead)\b`)

// TestAAKnownAnswer: two identical targets (same database, version,
// settings and data, each pinned, on the same cores, one paused while
// the other is measured) compared through the quickstart's design
// (prewarm, threads: auto, warm-up until steady, repetitions: auto; a
// shorter prewarm, neither having a JIT to warm) must name no winner on
// any workload, throughput or p99: every row is equivalent within the
// margin or cannot tell. The rule names a false winner in under 1% of
// workloads by design (analysis/decide's TestFalseWinners), which a
// test of three workloads would meet about one run in forty: a
// comparison that names one is run once more, and the test fails when
// a winner is named on the same workload in the same direction again,
// which chance alone does about once in ten thousand runs and a bias of
// the design (the order, the cores, the pause) every time.
func TestAAKnownAnswer(t *testing.T) {
	testenv.Addr(t, "DBARENA_TEST_POSTGRES") // PostgreSQL is installed
	testenv.Addr(t, "DBARENA_TEST_REDIS")    // and Redis
	if sysmetrics.CPUCount() < 2 {
		testenv.Missing(t, "the quickstart's design pins the databases: this machine has one core")
	}
	for _, tc := range []struct{ name, deploy string }{
		{"postgres", `{cpus: 1, pin: true, options: {synchronous_commit: "off"}}`},
		{"redis", `{cpus: 1, pin: true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := writeExperiment(t, fmt.Sprintf(`name: aa-%s
properties: {recordcount: 10000}
targets:
  - {name: one, database: %s, deploy: %s}
  - {name: two, database: %s, deploy: %s}
workloads: [a, b, c]
load: {threads: 8}
run:
  duration: 6s
  prewarm: 30s
  warmup: {until: steady, max: 10s}
  threads: auto
  repetitions: auto
  budget: 3m
`, tc.name, tc.name, tc.deploy, tc.name, tc.deploy))
			first := aaWinners(t, file)
			if len(first) == 0 {
				return
			}
			t.Logf("named a winner: %v; running the comparison once more", first)
			again := aaWinners(t, file)
			for w := range first {
				require.NotContains(t, again, w, "a winner named twice on the same workload: a bias of the design, not chance")
			}
		})
	}
}

// aaWinners runs an A/A experiment and returns the winners its verdict
// names, as "workload figure target", after checking that its verdict
// and its report's judgements agree.
func aaWinners(t *testing.T, file string) map[string]bool {
	t.Helper()
	res := filepath.Join(t.TempDir(), "r")
	code, out, errs := run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	t.Logf("verdict:\n%s", out)
	require.Contains(t, errs, "side by side")
	d, err := results.Read(res)
	require.NoError(t, err)
	require.NotNil(t, d.Manifest.Run)
	require.True(t, d.Manifest.Run.Together, "the twins ran side by side")
	require.NotEmpty(t, d.Manifest.Run.Stopped)
	// The counts the calibrations chose are weighed on every ramp: a
	// ramp that stopped below another's choice was measured on to it.
	most := 0
	for _, tg := range d.Manifest.Targets {
		require.NotNil(t, tg.Calibration, tg.Name)
		most = max(most, tg.Calibration.Threads)
	}
	for _, tg := range d.Manifest.Targets {
		pts := tg.Calibration.Points
		require.GreaterOrEqual(t, pts[len(pts)-1].Threads, most, "%s's ramp reaches the count another target's chose", tg.Name)
	}
	t.Logf("common threads: %d (0: none within 10%% of each one's best)", d.Manifest.Run.CommonThreads)
	winners := map[string]bool{}
	findings := report.Findings(d)
	require.Len(t, findings, 6, "a, b and c on throughput and p99")
	for _, f := range findings {
		if f.Outcome == "lead" {
			winners[f.Row+" "+f.Figure+" "+f.Leader] = true
		}
	}
	head := strings.SplitN(out, "\n", 3)
	if len(winners) == 0 {
		require.NotRegexp(t, noWinner, head[0]+head[1], "the headline names no winner")
	} else {
		require.Regexp(t, noWinner, head[0]+head[1], "the headline says what the judgements say")
	}
	return winners
}
