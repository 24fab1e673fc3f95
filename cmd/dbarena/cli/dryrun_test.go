package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
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

// TestRunThatMeasuredNothingHasNoReport: a run whose only target
// answers but refuses every write (a Redis that wants a replica it does
// not have) measures nothing; it says why once, where its results are,
// and writes no report to open.
func TestRunThatMeasuredNothingHasNoReport(t *testing.T) {
	srv := startOwnRedis(t)
	client := goredis.NewClient(&goredis.Options{Addr: srv.addr})
	defer client.Close()
	require.NoError(t, client.ConfigSet(context.Background(), "min-replicas-to-write", "1").Err())
	dir := t.TempDir()
	file := filepath.Join(dir, "none.yaml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`name: none
properties: {recordcount: 10}
targets:
  - name: r
    database: redis
    deploy: {provider: existing}
    properties: {redis.addr: %q}
workloads: [c]
run: {duration: 1s}
`, srv.addr)), 0o644))
	res := filepath.Join(dir, "r")
	code, out, errs := run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitFailure, code, errs)
	require.NotContains(t, out, "report:")
	require.Contains(t, out, "results: "+res+" (failed)")
	require.Contains(t, out, "r.load.1: failed: its error is above (and in trials.csv)", "the verdict names the failure")
	_, err := os.Stat(filepath.Join(res, "report.html"))
	require.True(t, os.IsNotExist(err))
	require.Contains(t, errs, "1 trial failed: r.load.1 (why: above, and in trials.csv)")
	require.Contains(t, errs, "left running (existing)")
	// The reason is said once, in the log, where it happened.
	require.Equal(t, 1, strings.Count(out+errs, "NOREPLICAS"), "%s\n%s", out, errs)
	d, err := results.Read(res)
	require.NoError(t, err)
	require.Contains(t, rowsByID(d)["r.load.1"].StatusReason, "NOREPLICAS", "and kept in trials.csv")
}

// TestUnreachableEndpointStopsBeforeAnything: an existing endpoint that
// does not answer fails the preflight, of the dry run as of the run,
// naming the target and the address, once; the run creates no results
// directory. (It passed the dry run and failed the first load before.)
func TestUnreachableEndpointStopsBeforeAnything(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "closed.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: closed
properties: {recordcount: 10, redis.connect.timeout: 1s}
targets:
  - name: r
    database: redis
    deploy: {provider: existing}
    properties: {redis.addr: "127.0.0.1:1"}
workloads: [c]
run: {duration: 1s}
`), 0o644))
	code, _, errs := run(t, context.Background(), "run", file, "--dry-run")
	require.Equal(t, ExitFailure, code, errs)
	require.Contains(t, errs, "preflight (the run would stop here): target r (an existing redis endpoint): SERVICE_UNAVAILABLE: cannot connect to redis at 127.0.0.1:1")
	require.NotContains(t, errs, "preflight passed")
	res := filepath.Join(dir, "r")
	code, out, errs := run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitFailure, code, errs)
	require.Equal(t, 1, strings.Count(out+errs, "cannot connect to redis at 127.0.0.1:1"), "said once:\n%s\n%s", out, errs)
	_, err := os.Stat(res)
	require.True(t, os.IsNotExist(err), "nothing started")
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
