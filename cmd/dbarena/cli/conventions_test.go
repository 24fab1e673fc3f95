package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/results"
)

// TestOneMachineReadableFlag: on the built program, every command that
// prints a result takes --format json, and --json where --format is the
// flag (the other habit, accepted); the commands that write their JSON
// summary to a file (--json FILE) take --format json for stdout, and
// refuse the two given apart. The dry run's JSON names the directory
// --results gave.
func TestOneMachineReadableFlag(t *testing.T) {
	bin := buildDbarena(t)
	dir := t.TempDir()
	parse := func(name, out string) map[string]any {
		t.Helper()
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &v), "%s: %s", name, out)
		return v
	}
	points := filepath.Join(dir, "sweep.csv")
	require.NoError(t, os.WriteFile(points, []byte("n,x\n1,1000\n2,1900\n4,3500\n8,5800\n16,7000\n"), 0o644))
	for name, c := range map[string]struct {
		args []string
		key  string
	}{
		"drivers --format json":             {[]string{"drivers", "--format", "json"}, "drivers"},
		"drivers --json":                    {[]string{"drivers", "--json"}, "drivers"},
		"version --format json":             {[]string{"version", "--format", "json"}, "version"},
		"version --json":                    {[]string{"version", "--json"}, "version"},
		"keys --format json":                {[]string{"keys", "--records", "100", "--draws", "1000", "--format", "json"}, "quantiles"},
		"analyze littles-law --json":        {[]string{"analyze", "littles-law", "--throughput", "1000", "--latency", "2ms", "--json"}, "threads"},
		"analyze usl --format json":         {[]string{"analyze", "usl", points, "--format", "json"}, "sigma"},
		"analyze cost --list-prices --json": {[]string{"analyze", "cost", "--list-prices", "--json"}, "instances"},
	} {
		code, out, errs := runBinary(t, bin, dir, "", c.args...)
		require.Equal(t, ExitOK, code, "%s: %s", name, errs)
		require.Contains(t, parse(name, out), c.key, name)
	}
	code, _, errs := runBinary(t, bin, dir, "", "drivers", "--json=maybe")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, "want no value (it means --format json)")

	// ycsb and merge: --format json is --json -.
	hlog := filepath.Join(dir, "run.hlog")
	ycsb := []string{"ycsb", "run", "memory", "-P", "workloada", "--preload", "-p", "recordcount=100", "-p", "operationcount=200", "-q"}
	code, out, errs := runBinary(t, bin, dir, "", append(ycsb, "--format", "json", "--hdr-log", hlog)...)
	require.Equal(t, ExitOK, code, errs)
	require.Equal(t, "run", parse("ycsb --format json", out)["phase"])
	require.Contains(t, errs, "[OVERALL], Throughput(ops/sec)", "the text goes to stderr")
	code, _, errs = runBinary(t, bin, dir, "", append(ycsb, "--format", "json", "--json", "x.json")...)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, "--format json prints the JSON summary on stdout and --json x.json writes it to that file: give one of them")
	code, out, errs = runBinary(t, bin, dir, "", "merge", "--format", "json", hlog)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, parse("merge --format json", out), "operations")

	// The dry run's plan says where the results go.
	file := filepath.Join(dir, "plan.yaml")
	require.NoError(t, os.WriteFile(file, []byte("name: plan\ntargets:\n  - database: redis\nworkloads: [c]\nrun: {duration: 1s}\n"), 0o644))
	res := filepath.Join(dir, "here")
	code, out, errs = runBinary(t, bin, dir, "", "run", file, "--dry-run", "--format", "json", "--results", res)
	require.Equal(t, ExitOK, code, errs)
	plan := parse("run --dry-run --format json", out)
	require.Equal(t, res, plan["results"])
	require.Equal(t, true, plan["results_named"])
	code, _, errs = runBinary(t, bin, dir, "", "run", file, "--json")
	require.Equal(t, ExitUsage, code, "a run's results are files: --json without --dry-run is said, not ignored")
	require.Contains(t, errs, "--format json prints the plan of --dry-run")
	code, out, errs = runBinary(t, bin, dir, "", "run", file, "--dry-run", "--json")
	require.Equal(t, ExitOK, code, errs)
	plan = parse("run --dry-run --json", out)
	require.Equal(t, "dbarena-results", plan["results"])
	require.Equal(t, false, plan["results_named"])
}

// TestOneLogVoice: with --log-format json every line the built program
// writes to stderr is a JSON record, the lines it prints rather than
// logs (a built-in workload's notice, the preload, the preflight) and its
// errors (a bad flag, a failed preflight, at level ERROR) too; in text,
// every such line starts "dbarena: ".
func TestOneLogVoice(t *testing.T) {
	bin := buildDbarena(t)
	dir := t.TempDir()
	records := func(name, errs string) []map[string]any {
		t.Helper()
		var out []map[string]any
		for _, line := range strings.Split(strings.TrimRight(errs, "\n"), "\n") {
			var v map[string]any
			require.NoError(t, json.Unmarshal([]byte(line), &v), "%s: a line that is not JSON: %q", name, line)
			require.Contains(t, v, "level", name)
			require.Contains(t, v, "msg", name)
			out = append(out, v)
		}
		return out
	}
	msgs := func(rs []map[string]any, level string) string {
		var b strings.Builder
		for _, r := range rs {
			if level == "" || r["level"] == level {
				b.WriteString(r["msg"].(string) + "\n")
			}
		}
		return b.String()
	}
	ycsb := []string{"ycsb", "run", "memory", "-P", "workloada", "--preload", "-p", "recordcount=100", "-p", "operationcount=200", "-q"}
	code, _, errs := runBinary(t, bin, dir, "", append([]string{"--log-format", "json"}, ycsb...)...)
	require.Equal(t, ExitOK, code, errs)
	rs := records("ycsb run", errs)
	require.Contains(t, msgs(rs, "INFO"), "-P workloada: no such file; using the built-in workloada")
	require.Contains(t, msgs(rs, "INFO"), "preload: 100 records")

	// --log-level holds for the printed lines too.
	code, _, errs = runBinary(t, bin, dir, "", append([]string{"--log-format", "json", "--log-level", "warn"}, ycsb...)...)
	require.Equal(t, ExitOK, code, errs)
	if strings.TrimSpace(errs) != "" {
		require.Empty(t, msgs(records("ycsb run at warn", errs), "INFO"), "no INFO record at --log-level warn")
	}

	code, _, errs = runBinary(t, bin, dir, "", "--log-format=json", "ycsb", "run", "memory", "--bogus")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, msgs(records("bad flag", errs), "ERROR"), "unknown flag --bogus")

	file := filepath.Join(dir, "closed.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: closed
properties: {recordcount: 10, redis.connect.timeout: 1s}
targets:
  - {name: r, database: redis, deploy: {provider: existing}, properties: {redis.addr: "127.0.0.1:1"}}
workloads: [c]
run: {duration: 1s}
`), 0o644))
	code, _, errs = runBinary(t, bin, dir, "", "run", file, "--dry-run", "--log-format", "json")
	require.Equal(t, ExitFailure, code)
	require.Contains(t, msgs(records("preflight", errs), "ERROR"), "preflight (the run would stop here): target r (an existing redis endpoint)")

	// Text: one format, every line dbarena's.
	code, _, errs = runBinary(t, bin, dir, "", ycsb...)
	require.Equal(t, ExitOK, code, errs)
	for _, line := range strings.Split(strings.TrimRight(errs, "\n"), "\n") {
		if strings.HasPrefix(line, "[") || strings.HasPrefix(line, "  ") {
			continue // the YCSB text summary, on stderr beside a -q run's nothing
		}
		require.True(t, strings.HasPrefix(line, "dbarena: "), "%q", line)
	}
}

// TestBatchLatencyLabelled: a batched load's INSERT latencies are each
// batch's, counted once per record; the YCSB text and the JSON summary
// say so where they give them, and an unbatched load says nothing.
func TestBatchLatencyLabelled(t *testing.T) {
	pg := testenv.Addr(t, "DBARENA_TEST_POSTGRES")
	dir := t.TempDir()
	for _, batch := range []int{100, 1} {
		jsonPath := filepath.Join(dir, fmt.Sprintf("b%d.json", batch))
		code, out, errs := run(t, context.Background(), "ycsb", "load", "postgres", "-P", workloadC, "--drop", "-q",
			"-p", "postgres.url="+pg, "-p", "recordcount=2000", "-p", fmt.Sprintf("batchsize=%d", batch), "--json", jsonPath)
		require.Equal(t, ExitOK, code, errs)
		b, err := os.ReadFile(jsonPath)
		require.NoError(t, err)
		var s results.Summary
		require.NoError(t, json.Unmarshal(b, &s))
		require.Len(t, s.Measured.Ops, 1)
		ins := s.Measured.Ops[0]
		require.EqualValues(t, 2000, ins.OK)
		if batch > 1 {
			require.Equal(t, batch, ins.BatchOf)
			require.Contains(t, string(b), `"latency_per_batch_of": 100`)
			require.Contains(t, out, "[INSERT], LatencyPerBatchOf, 100")
		} else {
			require.Zero(t, ins.BatchOf)
			require.NotContains(t, string(b), "latency_per_batch_of")
			require.NotContains(t, out, "LatencyPerBatchOf")
		}
	}
}

// TestComparisonsSayWhenTheyCannotDecide: on the built program, compare
// of two repetitions a side whose interval reaches past ±10% says it
// cannot decide, and warns of a directory compared with itself; merge
// refuses two standalone logs made one after the other.
func TestComparisonsSayWhenTheyCannotDecide(t *testing.T) {
	bin := buildDbarena(t)
	dir := t.TempDir()
	sweep, err := filepath.Abs("../../../results/testdata/golden/format2/sweep")
	require.NoError(t, err)
	code, out, errs := runBinary(t, bin, dir, "", "compare", sweep, sweep)
	require.Equal(t, ExitOK, code, errs)
	require.Regexp(t, `throughput ops/s .*\[-98\.9%, \+9038\.8%\]\s+cannot decide: too few repetitions`, out)
	require.Contains(t, out, "A and B are the same run")

	var logs []string
	for i := range 2 {
		hl := filepath.Join(dir, fmt.Sprintf("run%d.hlog", i))
		code, _, errs := runBinary(t, bin, dir, "", "ycsb", "run", "memory", "-P", "workloadc", "--preload", "-p", "recordcount=100",
			"-p", "operationcount=1000", "-q", "--hdr-log", hl)
		require.Equal(t, ExitOK, code, errs)
		logs = append(logs, hl)
	}
	code, out, errs = runBinary(t, bin, dir, "", append([]string{"merge"}, logs...)...)
	require.Equal(t, ExitUsage, code, out)
	require.Contains(t, errs, "must overlap in time, as the loaders of one run do; these look like separate runs")
}
