package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/internal/workdir"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/measure/hlog"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/sysmetrics"
)

// requireLocalServers skips on a laptop without the servers' programs and
// fails under CI=true, where the test command installs them.
func requireLocalServers(t *testing.T, programs ...string) {
	t.Helper()
	for _, p := range programs {
		testenv.Program(t, p)
	}
}

// againRE matches the suffix of a step measured again (results.AgainID).
var againRE = regexp.MustCompile(`\.retry\d*$`)

// TestQuickstartEndToEnd runs the README's main job, shrunk to seconds per
// trial, against real local PostgreSQL and Cassandra, and checks every
// file of the results directory.
func TestQuickstartEndToEnd(t *testing.T) {
	requireLocalServers(t, "/usr/lib/postgresql/15/bin/initdb", "java", "mvn")
	dir := filepath.Join(t.TempDir(), "qs")
	code, out, errs := run(t, context.Background(), "quickstart", "--duration", "2s", "--warmup", "1s",
		"--records", "500", "--threads", "2", "--repetitions", "1", "--prewarm", "0s", "--results", dir)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "report: "+filepath.Join(dir, results.ReportFile))

	d, err := results.Read(dir)
	require.NoError(t, err)
	require.Empty(t, d.Warnings)
	require.Equal(t, results.StatusCompleted, d.Manifest.Status)
	require.Equal(t, d.Manifest.PlannedSteps, d.Manifest.CompletedSteps)
	require.Len(t, d.Manifest.Targets, 2)
	for _, tg := range d.Manifest.Targets {
		require.NotEmpty(t, tg.Version, tg.Name)
		require.NotNil(t, tg.Down, "%s torn down", tg.Name)
		require.Positive(t, tg.DataBytes, "%s data size on disk", tg.Name)
		if sysmetrics.CPUCount() >= 2 {
			// Fair by construction: the database on cores of its own,
			// the load generator on the others.
			require.NotEmpty(t, tg.DatabaseCores, tg.Name)
			require.NotEmpty(t, tg.LoaderCores, tg.Name)
			for _, c := range tg.DatabaseCores {
				require.NotContains(t, tg.LoaderCores, c, tg.Name)
			}
		}
	}
	// A trial the machine disturbed (its window moved, other processes
	// took its cores) is measured again as ID.retry, its load too when
	// a run before changed the data: counted once, by the step it
	// measures.
	loads, runs := map[string]bool{}, map[string]bool{}
	measured := map[string]results.Trial{}
	for _, tr := range d.Trials {
		require.Zero(t, tr.Errors, tr.ID)
		require.Positive(t, tr.Throughput, tr.ID)
		require.Positive(t, tr.Latency.P99, tr.ID)
		require.FileExists(t, filepath.Join(dir, results.HdrDir, tr.ID+".hlog"))
		step := againRE.ReplaceAllString(tr.ID, "")
		switch tr.Kind {
		case results.KindLoad:
			loads[step] = true
			require.Equal(t, int64(500), tr.Operations, tr.ID)
			require.Empty(t, tr.Reference, "%s: no reference on a load", tr.ID)
		case results.KindRun:
			runs[step] = true
			require.InDelta(t, 2.0, tr.Duration.Seconds(), 0.5, tr.ID)
			if tr.Status != results.StatusSuperseded {
				measured[step] = tr
			}
		}
	}
	require.Len(t, loads, 4, "A-D share a load per target; E reloads after D inserted")
	for step, tr := range measured {
		switch step {
		case "postgres.c": // the quickstart asks for a reference on its read-only workload
			require.Equal(t, "pgbench", tr.Reference.Tool, "postgres C reference: %s", tr.Reference.Note)
			require.Positive(t, tr.Reference.Throughput)
			require.Positive(t, tr.Ratio())
		case "cassandra.c":
			require.Empty(t, tr.Reference.Tool)
			require.Contains(t, tr.Reference.Note, "no native load tool is known for the cql driver")
		default:
			require.Empty(t, tr.Reference, "%s: no reference on a workload with writes", tr.ID)
		}
	}
	require.Len(t, measured, 12, "workloads a-f on two targets")
	require.Len(t, runs, 12)
	hosts := map[string]bool{}
	for _, s := range d.Sys {
		hosts[s.Host] = true
	}
	for _, h := range []string{"postgres", "cassandra", "loader"} {
		require.True(t, hosts[h], "sysmetrics has host %s (got %v)", h, hosts)
	}
	series := map[string]bool{}
	for _, p := range d.Points {
		series[p.Trial] = true
	}
	require.Len(t, series, len(d.Trials), "every trial has a time series")
	html, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	require.NoError(t, err)
	require.Contains(t, string(html), "<svg")
	// Nothing a browser would fetch from elsewhere: the embedded chart
	// library's header comment names its home page, which loads nothing.
	fetch := regexp.MustCompile(`(?i)(src|href|srcset)\s*=\s*["']?\s*(https?:)?//|url\(\s*["']?\s*(https?:)?//|@import`)
	require.Empty(t, fetch.FindAllString(string(html), -1), "the report works offline")
}

func TestRunDryRunAndBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	require.NoError(t, os.WriteFile(good, []byte(`name: dry
targets:
  - database: redis
workloads: [a, c]
run: {duration: 5s, threads: 2}
matrix:
  threads: [1, 2]
`), 0o644))
	code, out, errs := run(t, context.Background(), "run", good, "--dry-run")
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "redis.a.threads=1")
	require.Contains(t, out, "redis.c.threads=2")

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("name: bad\ntargets:\n  - database: postgress\nworkloads: [a]\nrun: {threadz: 2}\n"), 0o644))
	code, _, errs = run(t, context.Background(), "run", bad)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, "bad.yaml:3")
	require.Contains(t, errs, `did you mean "postgres"`)
	require.Contains(t, errs, "bad.yaml:5")
	require.Contains(t, errs, `did you mean "threads"`)

	code, _, errs = run(t, context.Background(), "run", filepath.Join(dir, "missing.yaml"))
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, "missing.yaml")

	code, _, errs = run(t, context.Background(), "report", dir)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, "is it a results directory?")
}

// buildDbarena compiles the command for tests that signal a real process.
func buildDbarena(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "dbarena")
	out, err := exec.Command("go", "build", "-o", bin, "../../../cmd/dbarena").CombinedOutput()
	require.NoError(t, err, string(out))
	return bin
}

// startRun starts `dbarena run` on a Redis experiment long enough to be
// interrupted, with env added to its environment, and waits until its
// measured trial is under way.
func startRun(t *testing.T, bin, dir string, env ...string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	return startRunOf(t, bin, dir, "{duration: 60s, threads: 2}", 3*time.Second, env...)
}

// startRunOf is startRun with the given run section, waiting wait after
// the trial began.
func startRunOf(t *testing.T, bin, dir, runSection string, wait time.Duration, env ...string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "long.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: long
properties: {recordcount: 200}
targets:
  - database: redis
workloads: [a]
run: `+runSection+`
`), 0o644))
	cmd := exec.Command(bin, "run", file, "--results", dir)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	var log strings.Builder
	sc := bufio.NewScanner(stderr)
	deadline := time.Now().Add(2 * time.Minute)
	for sc.Scan() && time.Now().Before(deadline) {
		log.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "redis.a") && strings.Contains(sc.Text(), "threads") {
			break
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	time.Sleep(wait) // a few intervals of the measured trial
	return cmd, &log
}

func TestInterruptedRunKeepsResultsAndTearsDown(t *testing.T) {
	for _, tc := range []struct {
		name, run string
		wait      time.Duration
	}{
		{"in process", "{duration: 60s, threads: 2}", 3 * time.Second},
		// The first Ctrl-C stops loaders as it stops a run here: they
		// write what they measured and it is merged, not killed. They
		// start together some seconds after the trial's first line.
		{"two loaders", "{duration: 60s, threads: 2, loaders: 2}", 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) { interruptRun(t, tc.run, tc.wait) })
	}
}

func interruptRun(t *testing.T, runSection string, wait time.Duration) {
	requireLocalServers(t, "redis-server")
	bin := buildDbarena(t)
	dir := filepath.Join(t.TempDir(), "r")
	work := t.TempDir()
	cmd, log := startRunOf(t, bin, dir, runSection, wait, workdir.EnvVar+"="+work)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, log.String())
	require.Equal(t, ExitInterrupted, ee.ExitCode())

	d, err := results.Read(dir)
	require.NoError(t, err)
	require.Equal(t, results.StatusInterrupted, d.Manifest.Status)
	require.Len(t, d.Manifest.Targets, 1)
	require.NotNil(t, d.Manifest.Targets[0].Down, "torn down after Ctrl-C")
	var runRow *results.Trial
	for i := range d.Trials {
		if d.Trials[i].Kind == results.KindRun {
			runRow = &d.Trials[i]
		}
	}
	require.NotNil(t, runRow, "the interrupted trial's row is written")
	require.Equal(t, results.StatusInterrupted, runRow.Status)
	require.Positive(t, runRow.Operations)
	require.FileExists(t, filepath.Join(dir, results.ReportFile))
	requireNoServerLeft(t, dir)
	left, err := workdir.Scan(work)
	require.NoError(t, err)
	require.Empty(t, left, "teardown after Ctrl-C removes the data directory")
}

// TestKilledRunLeavesConsistentFiles kills `dbarena run` outright
// (SIGKILL) during its measured trial, as the OOM killer or a lost
// session would: the results read back as interrupted with the cut trial
// rebuilt from its intervals and rendered in the report, the Redis server
// dies with dbarena, and the data directory it could not remove is
// removed by `dbarena clean` and by the next run's deployment, while a
// live run's directory is left alone.
func TestKilledRunLeavesConsistentFiles(t *testing.T) {
	requireLocalServers(t, "redis-server")
	bin := buildDbarena(t)
	ctx := context.Background()
	work := t.TempDir()
	// A live run's directory: its owner is this test process.
	live, err := workdir.Claim(work, workdir.Local, "live", false)
	require.NoError(t, err)

	dir, dead := killRun(t, bin, work, "k")

	d, err := results.Read(dir)
	require.NoError(t, err)
	require.Equal(t, results.StatusInterrupted, d.Manifest.Status, "a run whose process is gone reads as interrupted")
	require.NotEmpty(t, d.Points, "completed intervals survive a kill")
	var row *results.Trial
	for i := range d.Trials {
		if d.Trials[i].ID == "redis.a" {
			row = &d.Trials[i]
		}
	}
	require.NotNil(t, row, "the cut trial gets a row rebuilt from its intervals: %v", d.Trials)
	intervals := 0
	for _, p := range d.Points {
		if p.Trial == "redis.a" && p.Op == results.AllOps && !p.Warmup {
			intervals++
		}
	}
	require.GreaterOrEqual(t, intervals, 2)
	require.True(t, row.Reconstructed)
	require.Equal(t, results.StatusInterrupted, row.Status)
	require.Equal(t, results.KindRun, row.Kind)
	require.Equal(t, "redis", row.Database)
	require.Equal(t, 2, row.Threads, "from the plan in the manifest")
	require.Positive(t, row.Operations)
	require.Positive(t, row.Throughput)
	require.Positive(t, row.Latency.P99)
	require.InDelta(t, float64(intervals), row.Duration.Seconds(), 0.5, "one second per measured interval")
	require.Contains(t, row.Flags[0], fmt.Sprintf("reconstructed: the run ended before this trial's row was written; figures rebuilt from its %d measured intervals on disk, latency merged from hdr/redis.a.hlog", intervals))

	code, out, errs := run(t, ctx, "report", dir)
	require.Equal(t, ExitOK, code, errs)
	require.NotContains(t, out, "no measured runs yet")
	require.Contains(t, out, "one target measured, redis")
	require.Regexp(t, `a: redis [\d,]+ ops/s`, out)
	require.Contains(t, out, "warning: redis.a: reconstructed")
	html, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	require.NoError(t, err)
	require.Contains(t, string(html), "figures rebuilt from its")
	require.FileExists(t, filepath.Join(dir, results.FiguresDir, "overtime-a.svg"), "the trial's over-time figure")
	requireNoServerLeft(t, dir)

	// dbarena clean: --dry-run lists the dead run's directory and its
	// size, and removes nothing; then clean removes it, never the live one.
	size := dirBytes(t, dead)
	t.Logf("data directory left by the killed run: %s, %d bytes", dead, size)
	code, out, errs = run(t, ctx, "clean", "--work-dir", work, "--dry-run")
	require.Equal(t, ExitOK, code, errs)
	require.Regexp(t, `(?m)^would remove `+regexp.QuoteMeta(dead)+` .*\(\d+ bytes\)|^would remove `+regexp.QuoteMeta(dead)+` +\d+ B`, out)
	require.Regexp(t, `(?m)^left +`+regexp.QuoteMeta(live.Path)+` .*\(in use`, out)
	require.DirExists(t, dead)
	code, out, errs = run(t, ctx, "clean", "--work-dir", work)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "removed      "+dead)
	require.NoDirExists(t, dead)
	require.DirExists(t, live.Path)

	// The next run's deployment removes what a killed run left.
	_, dead = killRun(t, bin, work, "k2")
	file := filepath.Join(t.TempDir(), "next.yaml")
	require.NoError(t, os.WriteFile(file, []byte("name: next\nproperties: {recordcount: 100}\ntargets:\n  - database: redis\nworkloads: [c]\nrun: {duration: 1s, threads: 1}\n"), 0o644))
	code, _, errs = run(t, ctx, "run", file, "--results", filepath.Join(t.TempDir(), "next"), "--work-dir", work)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, errs, "removed what a dead run left")
	require.NoDirExists(t, dead, "removed by the next run's deployment")
	left, err := workdir.Scan(work)
	require.NoError(t, err)
	require.Len(t, left, 1, "only the live run's directory remains: %v", left)
	require.Equal(t, live.Path, left[0].Path)
}

// killRun starts a run with its work root in work, kills it with SIGKILL
// during its measured trial, and returns its results directory and the
// data directory it left.
func killRun(t *testing.T, bin, work, name string) (dir, data string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), name)
	cmd, _ := startRun(t, bin, dir, workdir.EnvVar+"="+work)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	left, err := filepath.Glob(filepath.Join(work, workdir.Local, fmt.Sprintf("%d-redis-*", cmd.Process.Pid)))
	require.NoError(t, err)
	require.Len(t, left, 1, "a killed run cannot remove its data directory")
	return dir, left[0]
}

// dirBytes is a directory's size as du counts it.
func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	out, err := exec.Command("du", "-sb", dir).Output()
	require.NoError(t, err)
	n, err := strconv.ParseInt(strings.Fields(string(out))[0], 10, 64)
	require.NoError(t, err)
	return n
}

// requireNoServerLeft checks that no redis-server of this test survives:
// the servers die with dbarena (parent-death signal) or at teardown.
func requireNoServerLeft(t *testing.T, dir string) {
	t.Helper()
	d, err := results.Read(dir)
	require.NoError(t, err)
	port := ""
	for _, tg := range d.Manifest.Targets {
		port = tg.Properties["redis.addr"]
	}
	require.NotEmpty(t, port)
	require.Eventually(t, func() bool {
		out, _ := exec.Command("pgrep", "-f", "redis-server "+port).Output()
		return len(strings.TrimSpace(string(out))) == 0
	}, 20*time.Second, 100*time.Millisecond, "redis-server %s still runs", port)
}

func TestPreflightFailsBeforeAnythingStarts(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "scylla.yaml")
	require.NoError(t, os.WriteFile(file, []byte("name: pre\ntargets:\n  - database: redis\n  - database: scylladb\nworkloads: [c]\n"), 0o644))
	t.Setenv("PATH", dir) // neither redis-server nor scylla
	code, _, errs := run(t, context.Background(), "run", file, "--results", filepath.Join(dir, "r"))
	require.Equal(t, ExitFailure, code)
	require.Contains(t, errs, "redis-server not found")
	require.Contains(t, errs, "scylla not found")
	require.NoDirExists(t, filepath.Join(dir, "r"), "nothing was started or written")
}

func TestSchemaCommand(t *testing.T) {
	code, out, errs := run(t, context.Background(), "schema")
	require.Equal(t, ExitOK, code, errs)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	require.Contains(t, v["$schema"], "2020-12")
}

func TestAnalyzeLittlesLaw(t *testing.T) {
	code, out, errs := run(t, context.Background(), "analyze", "littles-law", "--throughput", "100000", "--latency", "2ms", "--threads", "64")
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "200.0 operations in flight")
	require.Contains(t, out, "With 64 threads: at most 32,000 ops/s")
	code, _, errs = run(t, context.Background(), "analyze", "littles-law", "--throughput", "100000")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, "--latency are required")
	code, _, errs = run(t, context.Background(), "analyze", "littles-law", "--throughput", "-5", "--latency", "2ms")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, "throughput -5")
}

func TestAnalyzeUSL(t *testing.T) {
	code, out, errs := run(t, context.Background(), "analyze", "usl", "../../../analysis/usl/testdata/specsdm91.csv")
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "model   usl, 7 points")
	require.Contains(t, out, "sigma   0.0277")
	require.Contains(t, out, "peak    1884 at N = 96.52")
	bad := filepath.Join(t.TempDir(), "bad.csv")
	require.NoError(t, os.WriteFile(bad, []byte("threads,ops\n1,10\n2,x\n"), 0o644))
	code, _, errs = run(t, context.Background(), "analyze", "usl", bad)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, "bad.csv:3: column ops")
}

// TestSweepUntilSaturated runs a real client sweep against local Redis
// with a threshold that only a doubling of throughput passes: on two
// cores the sweep cannot double all the way to 32 threads, so it stops
// early, and the rest is skipped, recorded and reported.
func TestSweepUntilSaturated(t *testing.T) {
	requireLocalServers(t, "redis-server")
	dir := t.TempDir()
	file := filepath.Join(dir, "sweep.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: sweep
properties: {recordcount: 200}
targets:
  - database: redis
workloads: [c]
run: {duration: 1s, threads: 1, until: saturated, saturation_gain: 0.999, saturation_steps: 1}
matrix:
  threads: [1, 2, 4, 8, 16, 32]
`), 0o644))
	res := filepath.Join(dir, "r")
	code, _, errs := run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitOK, code, errs)
	d, err := results.Read(res)
	require.NoError(t, err)
	skipped := d.Manifest.SkippedSteps
	require.GreaterOrEqual(t, skipped, 1, errs)
	require.Equal(t, d.Manifest.PlannedSteps, d.Manifest.CompletedSteps+skipped)
	require.Contains(t, strings.Join(d.Manifest.Warnings, "\n"), "redis.c.threads=32 skipped: the sweep saturated at threads=")
	runs := 0
	for _, tr := range d.Trials {
		if tr.Kind == results.KindRun && tr.Status != results.StatusSuperseded {
			runs++ // a step measured again counts once
		}
	}
	require.Equal(t, 6-skipped, runs)
}

// writeRun writes a results directory with one workload on one target,
// a repetition per throughput, latency inversely proportional to it.
func writeRun(t *testing.T, dir string, throughputs ...float64) {
	t.Helper()
	w, err := results.Create(dir)
	require.NoError(t, err)
	for i, x := range throughputs {
		require.NoError(t, w.AddTrial(results.Trial{ID: fmt.Sprintf("pg.a.%d", i+1), Kind: results.KindRun, Target: "pg", Workload: "a",
			Repetition: i + 1, Threads: 16, Throughput: x, Operations: int64(x * 10), Status: results.StatusCompleted,
			Latency: results.Latency{Mean: 16e6 / x, P50: 12e6 / x, P99: 60e6 / x, P999: 90e6 / x}}))
	}
	require.NoError(t, w.WriteManifest(&results.Manifest{Status: results.StatusCompleted,
		Targets: []results.TargetInfo{{Name: "pg", Database: "postgres", Version: "16.4"}}}))
	require.NoError(t, w.Close())
}

func TestCompare(t *testing.T) {
	dir := t.TempDir()
	a, b, same := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "same")
	writeRun(t, a, 10210, 10090, 10150)
	writeRun(t, b, 8920, 9010, 8960) // about 11.7% slower
	writeRun(t, same, 10180, 10120, 10160)

	code, out, errs := run(t, context.Background(), "compare", a, b)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "throughput ops/s")
	require.Regexp(t, `throughput ops/s\s+10150 ± 60 \(3\)\s+8963 ± 45 \(3\)\s+-11\.7%\s+\[-1\d\.\d%, -1\d\.\d%\]\s+slower`, out)

	code, _, errs = run(t, context.Background(), "compare", "--fail-on-slower", a, b)
	require.Equal(t, ExitSlower, code)
	require.Contains(t, errs, "slower in B than in A")

	code, out, errs = run(t, context.Background(), "compare", "--fail-on-slower", a, same)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "no significant difference")

	for _, args := range [][]string{
		{"compare", a},
		{"compare", a, filepath.Join(dir, "missing")},
		{"compare", "--level", "95", a, b},
	} {
		code, _, errs := run(t, context.Background(), args...)
		require.Equal(t, ExitUsage, code, "%v: %s", args, errs)
	}
}

// TestSweepUSLFigure runs a real client sweep against local Redis and
// checks that the report fits the Universal Scalability Law to it and
// draws the sweep figure with the fitted curve.
func TestSweepUSLFigure(t *testing.T) {
	requireLocalServers(t, "redis-server")
	dir := t.TempDir()
	file := filepath.Join(dir, "sweep.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: usl
properties: {recordcount: 500}
targets:
  - database: redis
workloads: [c]
run: {duration: 1s, threads: 1}
matrix:
  threads: [1, 2, 4, 8, 16]
`), 0o644))
	res := filepath.Join(dir, "r")
	code, _, errs := run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitOK, code, errs)
	html, err := os.ReadFile(filepath.Join(res, results.ReportFile))
	require.NoError(t, err)
	page := string(html)
	i := strings.Index(page, `<section id="scalability">`)
	require.GreaterOrEqual(t, i, 0, "the report has a Scalability section")
	sec := page[i : i+strings.Index(page[i:], "</section>")]
	require.Regexp(t, `(usl|amdahl): λ [0-9.,]+ ops/s per thread, σ [0-9.e-]+`, sec, "the fit's coefficients")
	require.Contains(t, sec, "<td>redis</td>")
	svgs, err := filepath.Glob(filepath.Join(res, results.FiguresDir, "sweep-*.svg"))
	require.NoError(t, err)
	require.Len(t, svgs, 1, "one sweep figure")
	svg, err := os.ReadFile(svgs[0])
	require.NoError(t, err)
	require.Contains(t, string(svg), "stroke-dasharray", "the fitted curve is drawn dashed")
}

// TestSecretsFromEnvironment points an experiment at a running Redis
// through ${env:...} references: the driver gets the values, the
// manifest keeps the references, and an unset variable fails before
// anything is deployed. The Redis is its own: on the shared one, another
// package's tests drop the same table now and then.
func TestSecretsFromEnvironment(t *testing.T) {
	addr := startOwnRedis(t).addr
	t.Setenv("DBARENA_TEST_SECRET_ADDR", addr)
	dir := t.TempDir()
	file := filepath.Join(dir, "secret.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: secret
properties: {recordcount: 100}
targets:
  - database: redis
    deploy: {provider: existing}
    properties:
      redis.addr: "${env:DBARENA_TEST_SECRET_ADDR}"
      redis.password: "${env:DBARENA_TEST_SECRET_UNUSED}"
workloads: [c]
run: {duration: 1s, threads: 1}
`), 0o644))
	res := filepath.Join(dir, "r")

	// The password's variable is unset: refused before deploying.
	code, _, errs := run(t, context.Background(), "run", file, "--results", res)
	require.NotEqual(t, ExitOK, code)
	require.Contains(t, errs, "properties.redis.password: ${env:DBARENA_TEST_SECRET_UNUSED}: the environment variable DBARENA_TEST_SECRET_UNUSED is not set")
	_, err := os.Stat(res)
	require.True(t, os.IsNotExist(err), "nothing was run")

	// An empty password is Redis's "no AUTH".
	t.Setenv("DBARENA_TEST_SECRET_UNUSED", "")
	code, _, errs = run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitOK, code, errs)
	d, err := results.Read(res)
	require.NoError(t, err)
	require.Equal(t, "${env:DBARENA_TEST_SECRET_ADDR}", d.Manifest.Targets[0].Properties["redis.addr"], "the manifest keeps the reference")
	require.Equal(t, "REDACTED", d.Manifest.Targets[0].Properties["redis.password"])
	require.NotContains(t, d.Manifest.Spec, addr)
	for _, tr := range d.Trials {
		require.Positive(t, tr.Operations, tr.ID)
	}
}

// TestYCSBSecretFromEnvironment resolves a -p reference and keeps the
// value out of the JSON summary (a property no driver owns: the basic
// driver refuses one under its prefix that it does not read).
func TestYCSBSecretFromEnvironment(t *testing.T) {
	t.Setenv("DBARENA_TEST_TOKEN", "s3cr3t-token")
	out := filepath.Join(t.TempDir(), "out.json")
	code, _, errs := run(t, context.Background(), "ycsb", "run", "basic", "-p", "recordcount=10", "-p", "operationcount=10",
		"-p", "auth.token=${env:DBARENA_TEST_TOKEN}", "--json", out)
	require.Equal(t, ExitOK, code, errs)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NotContains(t, string(b), "s3cr3t-token")
	require.Contains(t, string(b), `"auth.token": "REDACTED"`)

	code, _, errs = run(t, context.Background(), "ycsb", "run", "basic", "-p", "recordcount=10", "-p", "auth.token=${env:DBARENA_TEST_UNSET_TOKEN}")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, "property auth.token (-p): ${env:DBARENA_TEST_UNSET_TOKEN}: the environment variable DBARENA_TEST_UNSET_TOKEN is not set")
}

func TestAnalyzeCost(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "scenarios.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`targets:
  - name: scylla
    resources: [{instance: i4i.xlarge, count: 3}]
    throughput: 150000
    p99_ms: 3
  - name: postgres
    resources: [{instance: n2d-standard-8}]
    throughput: 40000
    p99_ms: 9
  - name: dynamodb
    throughput: 150000
    dynamodb: {reads_per_sec: 75000, writes_per_sec: 75000, item_bytes: 1100, consistency: eventual}
`), 0o644))
	code, out, errs := run(t, context.Background(), "analyze", "cost", file)
	require.Equal(t, ExitOK, code, errs)
	// scylla: 3 x $0.343 x 730 h = $751.17, 150,000 / 751.17 = 199.7
	// ops/s per $; serving 150,000 at 75% takes ceil(1.33) = 2 clusters.
	// p99 x $: 3 x 751.17 = 2,253.5 against postgres' 9 x 246.72 =
	// 2,220.4, the lower: 98.5.
	require.Regexp(t, `scylla\s+751\.17\s+150000\s+199\.7\s+0\.00191\s+100\.0\s+98\.5\s+2 x = \$1502\.34 at 50%`, out)
	// postgres: $0.337968 x 730 = $246.71664; 162.1 ops/s per $ = 81.2
	// of scylla's; 150,000 at 75% of 40,000 takes 5 machines.
	require.Regexp(t, `postgres\s+246\.72\s+40000\s+162\.1\s+0\.00235\s+81\.2\s+100\.0\s+5 x = \$1233\.58 at 75%`, out)
	// DynamoDB: eventual reads of 1,100 bytes take half a unit, writes 2
	// units: 37,500 RCU/s and 150,000 WCU/s; a month of request units is
	// 37,500 x 2,628,000 / 1e6 x $0.125 + 150,000 x 2,628,000 / 1e6 x
	// $0.625 = $12,318.75 + $246,375 = $258,693.75.
	require.Regexp(t, `dynamodb\s+258693\.75\s+150000`, out)
	require.Contains(t, out, "dynamodb as DynamoDB: on demand $258693.75 a month (37500 RCU/s, 150000 WCU/s)")

	// The same as JSON: the figures, unformatted.
	code, out, errs = run(t, context.Background(), "analyze", "cost", file, "--format", "json")
	require.Equal(t, ExitOK, code, errs)
	var cj struct {
		Demand  float64 `json:"demand_ops_sec"`
		Targets []struct {
			Name         string   `json:"name"`
			MonthlyUSD   float64  `json:"monthly_usd"`
			LatencyScore *float64 `json:"p99_usd_score"`
			ToServe      *struct {
				Units    int     `json:"units"`
				OnDemand bool    `json:"on_demand"`
				Monthly  float64 `json:"monthly_usd"`
			} `json:"to_serve"`
		} `json:"targets"`
		Bills []string `json:"dynamodb_bills"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &cj), out)
	require.Equal(t, 150000.0, cj.Demand)
	require.Len(t, cj.Targets, 3)
	require.Equal(t, "scylla", cj.Targets[0].Name)
	require.InDelta(t, 751.17, cj.Targets[0].MonthlyUSD, 0.005)
	require.Equal(t, 2, cj.Targets[0].ToServe.Units)
	require.InDelta(t, 98.5, *cj.Targets[0].LatencyScore, 0.05)
	require.Equal(t, 5, cj.Targets[1].ToServe.Units)
	require.True(t, cj.Targets[2].ToServe.OnDemand)
	require.Nil(t, cj.Targets[2].LatencyScore, "no p99 given: no score, null")
	require.Len(t, cj.Bills, 1)

	code, out, errs = run(t, context.Background(), "analyze", "cost", "--list-prices")
	require.Equal(t, ExitOK, code, errs)
	require.Regexp(t, `i4i\.xlarge\s+aws\s+us-east-1\s+4\s+32\s+937\s+0\.343\s+250\.39`, out)
	require.Contains(t, out, "Price catalogue compiled 2025-06")

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("targets:\n  - name: x\n    resources: [{instance: i4i.xlarg}]\n    throughput: 1\n  - name: y\n    througput: 5\n"), 0o644))
	code, _, errs = run(t, context.Background(), "analyze", "cost", bad)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, "line 6: field througput not found")
	require.NoError(t, os.WriteFile(bad, []byte("targets:\n  - name: x\n    resources: [{instance: i4i.xlarg}]\n    throughput: 1\n"), 0o644))
	code, _, errs = run(t, context.Background(), "analyze", "cost", bad)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, `targets[0] (x): monthly cost: resource 1 (1 x i4i.xlarg): instance "i4i.xlarg" is not in the price catalogue`)
}

// TestSpikeSchedule runs a three-stage spike against real Redis: each
// stage gets a row of its own at its own rate, and the report reads the
// spike and the recovery.
func TestSpikeSchedule(t *testing.T) {
	requireLocalServers(t, "redis-server")
	t.Run("one process", func(t *testing.T) { spikeSchedule(t, 1) })
	// Two loader processes each run the whole schedule with the stages'
	// threads and half their rates; their merged windows make the stage
	// rows.
	t.Run("two loaders", func(t *testing.T) { spikeSchedule(t, 2) })
}

func spikeSchedule(t *testing.T, loaders int) {
	dir := t.TempDir()
	file := filepath.Join(dir, "spike.yaml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`name: spike
properties: {recordcount: 200}
targets:
  - database: redis
workloads: [c]
run:
  loaders: %d
  stages:
    - {duration: 2s, threads: 1, target: 300}
    - {duration: 2s, threads: 4, target: 1200}
    - {duration: 3s, threads: 1, target: 300}
`, loaders)), 0o644))
	res := filepath.Join(dir, "r")
	args := []string{"run", file, "--results", res}
	if loaders > 1 {
		args = append(args, "--loader-binary", buildDbarena(t))
	}
	code, _, errs := run(t, context.Background(), args...)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, errs, "stages 1@300 -> 4@1200 -> 1@300 threads")
	d, err := results.Read(res)
	require.NoError(t, err)
	// The stages measured (a spike whose machine was busy with other
	// processes is measured again whole, as redis.c.retry.stageN).
	var stages []results.Trial
	for _, tr := range d.Trials {
		if tr.Kind == results.KindStage && tr.Status != results.StatusSuperseded {
			stages = append(stages, tr)
		}
	}
	require.Len(t, stages, 3)
	for i, want := range []struct {
		threads int
		rate    float64
	}{{1, 300}, {4, 1200}, {1, 300}} {
		require.Regexp(t, fmt.Sprintf(`^redis\.c(\.retry\d*)?\.stage%d$`, i+1), stages[i].ID)
		require.Equal(t, want.threads*loaders, stages[i].Threads)
		require.InEpsilon(t, want.rate, stages[i].Throughput, 0.25, "stage %d", i+1)
		require.Equal(t, results.Param{Key: "stage", Value: fmt.Sprint(i + 1)}, stages[i].Params[len(stages[i].Params)-1])
	}
	seen := map[int]bool{}
	for _, p := range d.Points {
		seen[p.Stage] = true
	}
	require.True(t, seen[1] && seen[2] && seen[3], "the time series knows each interval's stage: %v", seen)
	html, err := os.ReadFile(filepath.Join(res, results.ReportFile))
	require.NoError(t, err)
	require.Contains(t, string(html), `<section id="spikes">`)
	require.Contains(t, string(html), "<td>2 (spike)</td>")
	require.Regexp(t, `(Recovered [0-9.]+m?s after|Did not recover after) the spike \(stage 2\)`, string(html))
}

// TestLoadersMerge runs three real loader processes against Redis: they
// load their shares of the keys, run their shares of the operations from
// a common start, and dbarena merge adds their logs into one summary
// equal to that of one histogram of every value.
func TestLoadersMerge(t *testing.T) {
	addr := testenv.Addr(t, "DBARENA_TEST_REDIS")
	bin := buildDbarena(t)
	dir := t.TempDir()
	common := []string{"redis", "-p", "redis.addr=" + addr, "-p", "redis.db=7", "-p", "recordcount=300", "-q"}
	start := func(phase string, i int, extra ...string) *exec.Cmd {
		args := append([]string{"ycsb", phase}, common...)
		args = append(args, "--loader", fmt.Sprintf("%d/3", i), "--run-id", "r1")
		cmd := exec.Command(bin, append(args, extra...)...)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		require.NoError(t, cmd.Start())
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				_ = cmd.Process.Kill()
			}
		})
		return cmd
	}
	var loads []*exec.Cmd
	for i := 0; i < 3; i++ {
		loads = append(loads, start("load", i, "--drop="+strconv.FormatBool(i == 0)))
		if i == 0 {
			require.NoError(t, loads[0].Wait(), "the first loader drops and creates the index")
		}
	}
	for _, c := range loads[1:] {
		require.NoError(t, c.Wait())
	}
	// Every key of the range was loaded once, by exactly one loader.
	code, out, errs := run(t, context.Background(), append([]string{"ycsb", "verify"}, common...)...)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "[VERIFY], Operations, 300")

	at := time.Now().Add(1500 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	var runs []*exec.Cmd
	for i := 0; i < 3; i++ {
		runs = append(runs, start("run", i, "-p", "operationcount=3000", "-p", "readproportion=1", "-p", "updateproportion=0",
			"--start-at", at, "--hdr-log", filepath.Join(dir, fmt.Sprintf("loader-%d.hlog", i)),
			"--json", filepath.Join(dir, fmt.Sprintf("loader-%d.json", i))))
	}
	for _, c := range runs {
		require.NoError(t, c.Wait())
	}
	var sum struct {
		RunID       string `json:"run_id"`
		LoaderIndex string `json:"loader_index"`
		Properties  map[string]string
	}
	b, err := os.ReadFile(filepath.Join(dir, "loader-2.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &sum))
	require.Equal(t, "r1", sum.RunID)
	require.Equal(t, "2/3", sum.LoaderIndex)
	require.Equal(t, "1000", sum.Properties["operationcount"], "each loader runs its share")

	merged := filepath.Join(dir, "merged.json")
	code, out, errs = run(t, context.Background(), "merge", "--out", filepath.Join(dir, "merged.hlog"), "--json", merged, dir)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "Merged 3 loaders")
	require.Contains(t, out, "[READ], Operations, 3000")

	// The union of every loader's values, read back independently.
	union := measure.NewHistogram()
	for i := 0; i < 3; i++ {
		f, err := os.Open(filepath.Join(dir, fmt.Sprintf("loader-%d.hlog", i)))
		require.NoError(t, err)
		rd := hlog.NewReader(f)
		for {
			iv, err := rd.Next()
			if err != nil {
				break
			}
			if iv.Tag == "READ" {
				iv.Histogram.MergeInto(union)
			}
		}
		f.Close()
	}
	var got struct {
		Operations []struct {
			Tag string
			measure.Stats
		} `json:"operations"`
	}
	b, err = os.ReadFile(merged)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &got))
	var read *measure.Stats
	for i := range got.Operations {
		if got.Operations[i].Tag == "READ" {
			read = &got.Operations[i].Stats
		}
	}
	require.NotNil(t, read)
	require.Equal(t, measure.StatsOf(union), *read, "merged = one histogram of everything")
}

// TestExperimentLoaders runs a trial as three loader processes against
// real Redis: the trial's row and series come from their merged logs.
func TestExperimentLoaders(t *testing.T) {
	requireLocalServers(t, "redis-server")
	bin := buildDbarena(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "loaders.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: loaders
properties: {recordcount: 300}
targets:
  - database: redis
workloads: [c]
run: {duration: 2s, threads: 2, target: 600, loaders: 3}
`), 0o644))
	res := filepath.Join(dir, "r")
	code, _, errs := run(t, context.Background(), "run", file, "--results", res, "--loader-binary", bin)
	require.Equal(t, ExitOK, code, errs)
	d, err := results.Read(res)
	require.NoError(t, err)
	measured := measuredRow(t, rowsByID(d), "redis.c")
	row := &measured
	require.Equal(t, 6, row.Threads, "three loaders of two threads")
	require.InEpsilon(t, 600, row.Throughput, 0.25, "three loaders sharing 600 ops/s")
	require.Zero(t, row.Errors)
	require.Positive(t, row.Latency.P99)
	// The loaders' own CPU, summed over this machine they share, not
	// this process's (which only waited for them).
	require.Equal(t, runtime.GOMAXPROCS(0), row.LoaderCPUs)
	require.Positive(t, row.LoaderCPU, "the loaders reported their CPU")
	// The merged log holds every measured read the row counts.
	f, err := os.Open(filepath.Join(res, results.HdrDir, row.ID+".hlog"))
	require.NoError(t, err)
	defer f.Close()
	rd := hlog.NewReader(f)
	var reads int64
	for {
		iv, err := rd.Next()
		if err != nil {
			break
		}
		if iv.Tag == "READ" {
			reads += iv.Histogram.TotalCount()
		}
	}
	require.Equal(t, row.Operations, reads)
	points := 0
	for _, p := range d.Points {
		if p.Trial == row.ID && p.Op == results.AllOps {
			points++
		}
	}
	require.GreaterOrEqual(t, points, 2, "a merged series")
}

func TestDeployRender(t *testing.T) {
	out := t.TempDir()
	code, stdout, errs := run(t, context.Background(), "deploy", "render", "../../../examples/compose-pg-vs-redis.yaml", "--out", out)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, stdout, "postgres: "+filepath.Join(out, "postgres", "compose.yml"))
	b, err := os.ReadFile(filepath.Join(out, "redis", "compose.yml"))
	require.NoError(t, err)
	require.Contains(t, string(b), "image: redis:7.4")
	require.Contains(t, string(b), "cpus: \"2\"")

	code, _, errs = run(t, context.Background(), "deploy", "render", "../../../examples/quickstart.yaml", "--out", out)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, "has no target with deploy.provider compose, kubernetes or terraform")

	// A Terraform target: the module and its variables, the key read
	// from the environment into the 0600 file only.
	t.Setenv("DBARENA_TEST_SSH_KEY", "ssh-ed25519 AAAAC3secretish me@laptop")
	file := filepath.Join(t.TempDir(), "tf.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: tf
targets:
  - database: scylladb
    deploy:
      provider: terraform
      nodes: 3
      options: {cloud: aws, ami: ami-0abc, operator_cidr: 203.0.113.7/32, ssh_public_key: "${env:DBARENA_TEST_SSH_KEY}"}
workloads: [c]
`), 0o644))
	code, stdout, errs = run(t, context.Background(), "deploy", "render", file, "--out", out)
	require.Equal(t, ExitOK, code, errs)
	vars := filepath.Join(out, "scylladb", "terraform.tfvars.json")
	require.Contains(t, stdout, "scylladb: "+vars)
	fi, err := os.Stat(vars)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	b, err = os.ReadFile(vars)
	require.NoError(t, err)
	require.Contains(t, string(b), `"db_count": 3`)
	require.Contains(t, string(b), "AAAAC3secretish")
	require.Contains(t, string(b), "--seeds $SEED")
	_, err = os.Stat(filepath.Join(out, "scylladb", "main.tf"))
	require.NoError(t, err, "the AWS module beside its variables")
}

func TestDeployDown(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	tool := filepath.Join(dir, "tofu")
	require.NoError(t, os.WriteFile(tool, []byte("#!/bin/sh\necho \"$*\" >> "+log+"\n"), 0o755))
	state := filepath.Join(dir, "dbarena-terraform-pg-1")
	require.NoError(t, os.MkdirAll(state, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(state, "terraform.tfvars.json"), []byte("{}"), 0o600))

	code, out, errs := run(t, context.Background(), "deploy", "down", "--tool", tool, state)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "destroyed "+state)
	calls, err := os.ReadFile(log)
	require.NoError(t, err)
	require.Equal(t, "destroy -auto-approve -input=false -no-color\n", string(calls))
	_, err = os.Stat(state)
	require.True(t, os.IsNotExist(err))

	code, _, errs = run(t, context.Background(), "deploy", "down", "--tool", tool, dir)
	require.Equal(t, ExitFailure, code)
	require.Contains(t, errs, "is not a dbarena terraform state directory")
}

// TestDeployRenderSizes renders one experiment whose matrix axis size
// varies the deployment, for Compose, Kubernetes and Terraform: each
// size is a target of its own, its limits in the provider's terms (a
// Compose cpus limit, a Kubernetes CPU and memory limit, a Terraform
// machine type and node count).
func TestDeployRenderSizes(t *testing.T) {
	t.Setenv("DBARENA_TEST_SSH_KEY", "ssh-ed25519 AAAAC3sized me@laptop")
	for _, c := range []struct {
		provider, deploy, size, file string
		want                         map[string][]string
	}{
		{"compose", "{provider: compose, options: {image: local}}", "[{cpus: 0.5}, {cpus: 2, memory: 2GiB}]", "compose.yml",
			map[string][]string{"postgres-500m": {`cpus: "0.5"`}, "postgres-2cpu-2gib": {`cpus: "2"`, "memory: 2147483648b"}}},
		{"kubernetes", "{provider: kubernetes}", "[{cpus: 0.5, memory: 512MiB}, {cpus: 2, memory: 2GiB}]", "manifests.yaml",
			map[string][]string{"postgres-500m-512mib": {`cpu: "0.5"`, `memory: "536870912"`}, "postgres-2cpu-2gib": {`cpu: "2"`, `memory: "2147483648"`}}},
		{"terraform", `{provider: terraform, options: {cloud: aws, ami: ami-0abc, operator_cidr: 203.0.113.7/32, ssh_public_key: "${env:DBARENA_TEST_SSH_KEY}"}}`,
			"[{machine_type: m6id.large}, {machine_type: m6id.2xlarge, nodes: 3}]", "terraform.tfvars.json",
			map[string][]string{"scylladb-m6id-large": {`"db_machine_type": "m6id.large"`, `"db_count": 1`}, "scylladb-3n-m6id-2xlarge": {`"db_machine_type": "m6id.2xlarge"`, `"db_count": 3`}}},
	} {
		t.Run(c.provider, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "sizes.yaml")
			database := "postgres"
			if c.provider == "terraform" {
				database = "scylladb" // a cluster: nodes is a size
			}
			require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`name: sizes
targets:
  - database: %s
    deploy: %s
workloads: [c]
matrix:
  size: %s
`, database, c.deploy, c.size)), 0o644))
			out := t.TempDir()
			code, stdout, errs := run(t, context.Background(), "deploy", "render", file, "--out", out)
			require.Equal(t, ExitOK, code, errs)
			for name, wants := range c.want {
				require.Contains(t, stdout, name+": ")
				b, err := os.ReadFile(filepath.Join(out, name, c.file))
				require.NoError(t, err, "stdout: %s", stdout)
				for _, w := range wants {
					require.Contains(t, string(b), w, "%s/%s", name, c.file)
				}
			}
		})
	}
}
