package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestDryRunAsTheRunWould: the dry run names the --results directory,
// the reference runs, and fails on the preflight that would stop the
// run (here a local ScyllaDB where none is installed).
func TestDryRunAsTheRunWould(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ref.yaml")
	require.NoError(t, os.WriteFile(file, []byte("name: ref\ntargets:\n  - database: redis\nworkloads: [c]\nrun: {duration: 5s, reference: true}\n"), 0o644))
	res := filepath.Join(dir, "here")
	code, out, errs := run(t, context.Background(), "run", file, "--dry-run", "--results", res)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "results: "+res+" (--results)")
	require.Contains(t, out, "the database's own load tool")
	require.Contains(t, errs, "preflight passed")
	_, err := os.Stat(res)
	require.True(t, os.IsNotExist(err), "a dry run writes nothing")

	if _, err := exec.LookPath("scylla"); err == nil {
		t.Log("ScyllaDB is installed here: its preflight passes, nothing more to check")
		return
	}
	scylla := filepath.Join(dir, "scylla.yaml")
	require.NoError(t, os.WriteFile(scylla, []byte("name: s\ntargets:\n  - database: scylladb\n    deploy: {provider: local}\nworkloads: [c]\n"), 0o644))
	code, _, errs = run(t, context.Background(), "run", scylla, "--dry-run")
	require.Equal(t, ExitFailure, code)
	require.Contains(t, errs, "preflight (the run would stop here)")
	require.Contains(t, errs, "scylla not found in PATH")
}

// TestRunThatMeasuredNothingHasNoReport: a run whose only target never
// answers measures nothing; it says why and where its results are, and
// writes no report to open.
func TestRunThatMeasuredNothingHasNoReport(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "none.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: none
properties: {recordcount: 10, redis.connect.timeout: 1s}
targets:
  - name: r
    database: redis
    deploy: {provider: existing}
    properties: {redis.addr: "127.0.0.1:1"}
workloads: [c]
run: {duration: 1s}
`), 0o644))
	res := filepath.Join(dir, "r")
	code, out, errs := run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitFailure, code, errs)
	require.NotContains(t, out, "report:")
	require.Contains(t, out, "results: "+res+" (failed)")
	require.Contains(t, out, "r.load.1: failed: ", "the verdict says why")
	_, err := os.Stat(filepath.Join(res, "report.html"))
	require.True(t, os.IsNotExist(err))
	require.Contains(t, errs, "1 trial failed: r.load.1")
	require.Contains(t, errs, "left running (existing)")
}

// TestBadDriverPropertyStopsBeforeDeploy gives a target driver
// properties of the wrong kind: the run exits 2 (bad input) at once,
// naming the file, target, step and every bad property, with nothing
// deployed and no results directory, as --dry-run does. It deployed the
// target and failed each trial, exit 1, before.
func TestBadDriverPropertyStopsBeforeDeploy(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: bad
properties: {recordcount: 10}
targets:
  - name: r
    database: redis
    properties: {redis.addr: "nohost:xx:1", redis.pool: "lots"}
workloads: [c]
run: {duration: 2s, threads: 1}
`), 0o644))
	res := filepath.Join(dir, "r")
	for _, args := range [][]string{{"run", file, "--results", res}, {"run", file, "--dry-run"}} {
		start := time.Now()
		code, _, errs := run(t, context.Background(), args...)
		require.Equal(t, ExitUsage, code, errs)
		require.Less(t, time.Since(start), 5*time.Second, "refused before anything starts")
		require.Contains(t, errs, file+": target r (driver redis), step r.load.1:\n")
		require.Contains(t, errs, `redis.addr="nohost:xx:1": "nohost:xx:1" is not host:port`)
		require.Contains(t, errs, `redis.pool="lots": want an integer >= 1`)
		require.NotContains(t, errs, "deploying")
		require.NoDirExists(t, res)
	}
}
