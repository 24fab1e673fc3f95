package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/measure/hlog"
	"github.com/dbarena/dbarena/results"
)

// The tests of this file hold YCSB habits and inputs that used to fail
// silently, or with a message naming a symptom rather than the cause.

func TestRunWithoutRecordCountSaysWhy(t *testing.T) {
	code, _, errs := run(t, context.Background(), "ycsb", "run", "basic", "-p", "operationcount=10")
	require.Equal(t, ExitUsage, code, errs)
	require.Contains(t, errs, "recordcount=0 (the default)")
	require.Contains(t, errs, "set recordcount (-p recordcount=N) or -P a workload file")
	require.NotContains(t, errs, "upper bound")
}

func TestMemoryRunWithoutPreloadRefused(t *testing.T) {
	code, out, errs := run(t, context.Background(), "ycsb", "run", "memory", "-P", workloadA,
		"-p", "recordcount=100", "-p", "operationcount=100", "-q")
	require.Equal(t, ExitUsage, code, errs)
	require.Contains(t, errs, "the memory driver keeps no data between processes")
	require.Contains(t, errs, "add --preload")
	require.NotContains(t, out, "NOT_FOUND", "nothing was measured")

	code, out, errs = run(t, context.Background(), "ycsb", "run", "memory", "-P", workloadA, "--preload",
		"-p", "recordcount=100", "-p", "operationcount=100", "-q")
	require.Equal(t, ExitOK, code, errs)
	require.NotContains(t, out, "NOT_FOUND")
}

// TestBuiltinWorkloadByName runs the help's own example outside a
// checkout: the test's directory has no workloads/ folder.
func TestBuiltinWorkloadByName(t *testing.T) {
	for _, name := range []string{"workloada", "workloads/workloadc"} {
		t.Run(name, func(t *testing.T) {
			code, out, errs := run(t, context.Background(), "ycsb", "run", "memory", "-P", name, "-P", name, "--preload",
				"-p", "recordcount=50", "-p", "operationcount=50", "-q")
			require.Equal(t, ExitOK, code, errs)
			require.Equal(t, 1, strings.Count(errs, "-P "+name+": no such file; using the built-in workload"), errs)
			require.Contains(t, out, "[READ], Operations, ")
		})
	}
	code, _, errs := run(t, context.Background(), "ycsb", "run", "memory", "-P", "conf/workloada")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, "conf/workloada: no such file", "only the names the help uses stand for the built-ins")
}

func TestYCSBOutputHabits(t *testing.T) {
	dir := t.TempDir()
	base := []string{"ycsb", "run", "memory", "-P", workloadA, "--preload", "-p", "recordcount=50", "-p", "operationcount=50", "-q"}

	code, _, errs := run(t, context.Background(), append(base, "-p", "measurementtype=hdrhistogram",
		"-p", "hdrhistogram.fileoutput=true", "-p", "hdrhistogram.output.path="+dir+"/hdr-")...)
	require.Equal(t, ExitOK, code, errs)
	h, err := os.ReadFile(filepath.Join(dir, "hdr-run.hlog"))
	require.NoError(t, err, "hdrhistogram.fileoutput=true writes an interval log")
	require.Contains(t, string(h), "Tag=READ,")
	require.Contains(t, errs, "as --hdr-log "+dir+"/hdr-run.hlog")

	js := filepath.Join(dir, "x.json")
	code, out, errs := run(t, context.Background(), append(base,
		"-p", "exporter=site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter", "-p", "exportfile="+js)...)
	require.Equal(t, ExitOK, code, errs)
	var s results.Summary
	b, err := os.ReadFile(js)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s), "a JSON exporter writes JSON, not YCSB text")
	require.Equal(t, int64(50), s.Measured.Operations)
	require.Contains(t, out, "[OVERALL], RunTime(ms), ", "the text summary goes to stdout")

	code, _, errs = run(t, context.Background(), append(base, "-p", "exporter=site.ycsb.measurements.exporter.JSONMeasurementsExporter")...)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, "--json FILE")
}

func TestYCSBDBProperty(t *testing.T) {
	code, _, errs := run(t, context.Background(), "ycsb", "run", "memory", "-P", workloadA, "--preload",
		"-p", "db=site.ycsb.db.JdbcDBClient", "-p", "recordcount=10", "-p", "operationcount=10", "-q")
	require.Equal(t, ExitUsage, code, errs)
	require.Contains(t, errs, `"db"="site.ycsb.db.JdbcDBClient" is YCSB's binding for the mysql or postgres driver, but the DRIVER argument is memory`)

	code, _, errs = run(t, context.Background(), "ycsb", "run", "memory", "-P", workloadA, "--preload",
		"-p", "db=site.ycsb.db.NoSuchClient", "-p", "recordcount=10", "-p", "operationcount=10", "-q")
	require.Equal(t, ExitUsage, code, errs)
	require.Contains(t, errs, "dbarena takes the database from the DRIVER argument (memory here)")

	code, _, errs = run(t, context.Background(), "ycsb", "load", "basic", "-P", workloadA,
		"-p", "db=site.ycsb.BasicDB", "-p", "recordcount=10", "-q")
	require.Equal(t, ExitOK, code, "a db= that agrees with DRIVER is fine: %s", errs)
}

func TestExperimentUnknownPropertyIsAnError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "typo.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: typo
targets:
  - database: redis
workloads:
  - name: skewed
    builtin: a
    properties:
      requestdistribtion: zipfian
`), 0o644))
	code, out, errs := run(t, context.Background(), "run", file, "--dry-run")
	require.Equal(t, ExitUsage, code, out)
	require.Contains(t, errs, "typo.yaml:8: workloads[0].properties.requestdistribtion: unknown property")
	require.Contains(t, errs, `did you mean "requestdistribution"?`)
	require.NotContains(t, out, "STEP", "no plan is printed for a file with an error")
}

// TestMergeRefusesTrialsOfAResultsDir runs the binary on a results
// directory's hdr/ folder: one log per trial, which summed into one
// "result" with exit 0.
func TestMergeRefusesTrialsOfAResultsDir(t *testing.T) {
	hdr := filepath.Join(t.TempDir(), "hdr")
	require.NoError(t, os.Mkdir(hdr, 0o755))
	t0 := time.Now().Add(-time.Minute)
	for _, id := range []string{"pg.load.1", "pg.a.threads=1", "pg.a.threads=4"} {
		var b strings.Builder
		w, err := hlog.NewWriter(&b, t0, "dbarena trial "+id+"; values in nanoseconds")
		require.NoError(t, err)
		h := measure.NewHistogram()
		require.NoError(t, h.RecordValue(1000))
		require.NoError(t, w.WriteInterval("READ", t0, t0.Add(time.Second), h))
		require.NoError(t, os.WriteFile(filepath.Join(hdr, id+".hlog"), []byte(b.String()), 0o644))
	}
	out, err := exec.Command(buildDbarena(t), "merge", hdr).CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, string(out))
	require.Equal(t, ExitUsage, ee.ExitCode(), string(out))
	require.Contains(t, string(out), "3 different runs or trials: pg.a.threads=1 (")
	require.NotContains(t, string(out), "Merged 3 loaders")
}

// TestDeployRenderOutsideSources runs the binary in a copy of the
// layout that bit: a deploy/ folder of Go files in the working
// directory, which was the render's default output. The default now is
// beside the experiment's results, the one folder dbarena writes in the
// working directory: nothing else appears there.
func TestDeployRenderOutsideSources(t *testing.T) {
	bin, wd := buildDbarena(t), t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(wd, "deploy"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(wd, "deploy", "deploy.go"), []byte("package deploy\n"), 0o644))
	example, err := filepath.Abs("../../../examples/compose-pg-vs-redis.yaml")
	require.NoError(t, err)

	cmd := exec.Command(bin, "deploy", "render", example)
	cmd.Dir = wd
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), "postgres: "+filepath.Join("dbarena-results", "compose-pg-vs-redis-render", "postgres", "compose.yml"))
	entries, err := os.ReadDir(filepath.Join(wd, "deploy"))
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing written among the sources")
	top, err := os.ReadDir(wd)
	require.NoError(t, err)
	var names []string
	for _, e := range top {
		names = append(names, e.Name())
	}
	require.ElementsMatch(t, []string{"deploy", "dbarena-results"}, names, "one folder of dbarena's in the working directory")

	cmd = exec.Command(bin, "deploy", "render", example, "--out", "deploy")
	cmd.Dir = wd
	out, err = cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, string(out))
	require.Equal(t, ExitUsage, ee.ExitCode())
	require.Contains(t, string(out), "--out deploy: the directory holds Go source files (deploy.go)")
}

// TestMisspeltDriverPropertyIsRefused: a property under a driver's
// prefix that the driver does not read is bad input (exit 2) naming the
// nearest, in an experiment file before anything deploys and on the
// ycsb command line before anything connects; spelt right, it passes.
func TestMisspeltDriverPropertyIsRefused(t *testing.T) {
	dir := t.TempDir()
	experimentFile := func(key string) string {
		file := filepath.Join(dir, key+".yaml")
		require.NoError(t, os.WriteFile(file, []byte(`name: typo
properties: {`+key+`: 127.0.0.1}
targets:
  - {name: r, database: redis, deploy: {provider: existing}}
workloads: [c]
run: {duration: 2s}
`), 0o644))
		return file
	}
	res := filepath.Join(dir, "res")
	code, _, errs := run(t, context.Background(), "run", experimentFile("redis.hots"), "--results", res)
	require.Equal(t, ExitUsage, code, errs)
	require.Contains(t, errs, "target r (driver redis), step r.load.1: redis.hots: the redis driver has no such property; did you mean redis.host?")
	require.NoDirExists(t, res, "refused before anything ran")
	// Spelt right, the driver's check passes and the preflight goes on
	// to reach the endpoint (nothing listens on its port here).
	code, _, errs = run(t, context.Background(), "run", experimentFile("redis.host"), "--dry-run")
	require.NotEqual(t, ExitUsage, code, errs)
	require.NotContains(t, errs, "no such property")
	require.Contains(t, errs, "preflight")

	for _, c := range []struct{ driver, key, want string }{
		{"postgres", "postgres.uri", "postgres.uri: the postgres driver has no such property; did you mean postgres.url?"},
		{"redis", "redis.hots", "redis.hots: the redis driver has no such property; did you mean redis.host?"},
	} {
		code, _, errs = run(t, context.Background(), "ycsb", "run", c.driver, "-P", workloadA, "-p", c.key+"=127.0.0.1:1", "-p", "recordcount=10", "-p", "operationcount=10")
		require.Equal(t, ExitUsage, code, errs)
		require.Contains(t, errs, c.want)
	}
}

// TestTPCCOnADriverWithoutTransactionsIsRefused: TPC-C on a Redis
// target, beside a PostgreSQL one that could run it, is refused before
// anything deploys (it failed at Redis' load, after PostgreSQL had run),
// naming the target, its driver and the drivers that run TPC-C.
func TestTPCCOnADriverWithoutTransactionsIsRefused(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tpcc.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: tpcc-on-redis
properties: {tpcc.warehouses: 1}
targets:
  - {name: pg, database: postgres}
  - {name: r, database: redis}
workloads: [tpcc]
run: {duration: 2s}
`), 0o644))
	res := filepath.Join(dir, "res")
	code, _, errs := run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitUsage, code, errs)
	require.Contains(t, errs, "target r (driver redis), step r.load.1: workload tpcc: workload.kind tpcc needs SQL transactions (driver.SQLTransactor), which driver redis's sessions do not offer: it runs on the mysql, postgres drivers")
	require.NotContains(t, errs, "target pg (driver postgres)")
	require.NotContains(t, errs, "deploying")
	require.NoDirExists(t, res, "refused before anything ran")
}

// TestLedgerOnADriverWithoutTransfersIsRefused: a ledger on a driver
// whose sessions move no money (MongoDB's) is refused before anything
// deploys, naming the drivers that run it; it failed at the target's
// run, after the targets before it had run.
func TestLedgerOnADriverWithoutTransfersIsRefused(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ledger.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: ledger-on-mongodb
targets:
  - {name: pg, database: postgres}
  - {name: mo, database: mongodb, deploy: {provider: existing}, properties: {mongodb.url: "mongodb://127.0.0.1:1/ledger"}}
workloads: [ledger]
run: {duration: 2s}
`), 0o644))
	res := filepath.Join(dir, "res")
	code, _, errs := run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitUsage, code, errs)
	require.Contains(t, errs, "target mo (driver mongodb), step mo.load.1: workload ledger: workload.kind ledger needs transfers")
	require.Contains(t, errs, "workload.kind ledger needs transfers between accounts (driver.Transferer), which driver mongodb's sessions do not offer: it runs on the cql, dynamodb, memory, mysql, postgres, redis drivers")
	require.NotContains(t, errs, "target pg (driver postgres)")
	require.NotContains(t, errs, "deploying")
	require.NoDirExists(t, res, "refused before anything ran")
}
