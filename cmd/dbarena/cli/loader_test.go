package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
)

// TestLoaderShares checks what loader 1 of 3 takes: its contiguous key
// range and a third of a load's rate, or a third of a run's operations,
// rate and every stage's rate, with a seed of its own.
func TestLoaderShares(t *testing.T) {
	src := properties.Source{File: "test"}
	get := func(p *properties.Set, k string) string { v, _, _ := p.Lookup(k); return v }
	ls := loaderSpec{index: 1, count: 3}

	load := properties.New()
	load.Set("recordcount", "1000", src)
	load.Set("target", "300", src)
	require.NoError(t, ls.apply(load, runner.Load))
	require.Equal(t, "334", get(load, "insertstart"), "loader 0 takes the longer first share")
	require.Equal(t, "333", get(load, "insertcount"))
	require.Equal(t, "100", get(load, "target"), "a throttled load shares its rate")

	run := properties.New()
	run.Set("operationcount", "900", src)
	run.Set("target", "600", src)
	run.Set("seed", "7", src)
	run.Set("stages", "10s:4:300,5s:8", src)
	require.NoError(t, ls.apply(run, runner.Transactions))
	require.Equal(t, "300", get(run, "operationcount"))
	require.Equal(t, "200", get(run, "target"))
	require.Equal(t, "10s:4:100,5s:8", get(run, "stages"), "each stage's rate shared, threads kept")
	require.NotEqual(t, "7", get(run, "seed"))

	run.Set("stages", "10s", src)
	require.ErrorContains(t, ls.apply(run, runner.Transactions), "property stages")
}

// TestLoaderExchange runs the command line an experiment gives a loader
// (results.LoaderRun.Args) through this CLI, and reads the summary back
// as the experiment does (results.ReadSummary): a flag or JSON field
// renamed on one side only fails here, not in a multi-loader run.
func TestLoaderExchange(t *testing.T) {
	dir := t.TempDir()
	props := filepath.Join(dir, "trial.properties")
	require.NoError(t, os.WriteFile(props, []byte("recordcount=200\noperationcount=400\nthreadcount=2\n"), 0o600))
	lr := results.LoaderRun{Verb: "load", Driver: "memory", Properties: props, Index: 1, Count: 2, RunID: "t1",
		StartAt: time.Now(), HdrLog: filepath.Join(dir, "l.hlog"), JSON: filepath.Join(dir, "l.json")}
	// Standard input stays open while the loader runs, as the pipe an
	// experiment holds does.
	stdin, hold := io.Pipe()
	t.Cleanup(func() { _ = hold.Close() })
	var out, errb bytes.Buffer
	st := &State{Stdout: &out, Stderr: &errb, Stdin: stdin, Getenv: func(string) string { return "" }}
	st.Logger = newLogger(&errb)
	require.Equal(t, ExitOK, Main(context.Background(), st, lr.Args()), errb.String())
	sum, err := results.ReadSummary(lr.JSON)
	require.NoError(t, err)
	require.Equal(t, "load", sum.Phase)
	require.Equal(t, "memory", sum.Driver)
	require.Equal(t, "t1", sum.RunID)
	require.Equal(t, results.LoaderIndex(1, 2), sum.LoaderIndex)
	require.Equal(t, int64(100), sum.Measured.Operations, "loader 1 of 2 inserts its half of the keys")
	require.Equal(t, "100", sum.Properties["insertstart"])
	require.NotNil(t, sum.Loader)
	require.Positive(t, sum.Loader.Cores)
	require.FileExists(t, lr.HdrLog)

	i, n, err := results.ParseLoaderIndex(sum.LoaderIndex)
	require.NoError(t, err)
	require.Equal(t, [2]int{1, 2}, [2]int{i, n})
	for _, bad := range []string{"2/2", "-1/2", "1", "a/b", "0/0"} {
		_, _, err := results.ParseLoaderIndex(bad)
		require.Error(t, err, bad)
	}
}
