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

	"github.com/dbarena/dbarena/loader"
	"github.com/dbarena/dbarena/results"
)

// TestLoaderExchange runs the command line an experiment gives a loader
// (loader.Run.Args) through this CLI, and reads the summary back
// as the experiment does (results.ReadSummary): a flag or JSON field
// renamed on one side only fails here, not in a multi-loader run.
func TestLoaderExchange(t *testing.T) {
	dir := t.TempDir()
	props := filepath.Join(dir, "trial.properties")
	require.NoError(t, os.WriteFile(props, []byte("recordcount=200\noperationcount=400\nthreadcount=2\n"), 0o600))
	lr := loader.Run{Verb: "load", Driver: "memory", Properties: props, Slot: loader.Slot{Index: 1, Count: 2}, RunID: "t1",
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
