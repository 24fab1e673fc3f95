package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestResultsDirectoryIsDbarenasAlone: --results naming a directory
// that holds a user's own files (a report.html and figures/, a source
// tree) or another run's results is refused before anything runs, exit
// 2, the dry run too, and nothing in it changes; a new or empty
// directory is taken. Before, the user's report.html and figure were
// overwritten, exit 0.
func TestResultsDirectoryIsDbarenasAlone(t *testing.T) {
	file := writeExperiment(t, `name: mine
targets:
  - {name: r, database: redis, deploy: {provider: existing}, properties: {redis.addr: "127.0.0.1:1"}}
workloads: [c]
run: {duration: 1s}
`)
	own := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(own, "figures"), 0o755))
	mine := map[string]string{"report.html": "<p>my report</p>", "figures/latency-a.svg": "<svg>mine</svg>"}
	for name, text := range mine {
		require.NoError(t, os.WriteFile(filepath.Join(own, name), []byte(text), 0o644))
	}
	src := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(src, "go.mod"), []byte("module x\n"), 0o644))
	done := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(done, "manifest.json"), []byte("{}"), 0o644))
	for _, c := range []struct{ dir, want string }{
		{own, "is not empty and holds no dbarena results (figures/, report.html): a run would write its files among them; name a new or empty directory"},
		{src, "is not empty and holds no dbarena results (go.mod)"},
		{done, "already holds a results directory; choose another"},
		{filepath.Join(src, "go.mod"), "is a file, not a directory"},
	} {
		for _, args := range [][]string{{"run", file, "--results", c.dir}, {"run", file, "--dry-run", "--results", c.dir}} {
			code, _, errs := run(t, context.Background(), args...)
			require.Equal(t, ExitUsage, code, "%v: %s", args, errs)
			require.Contains(t, errs, "--results: "+c.dir+" "+c.want)
			require.NotContains(t, errs, "preflight", "refused before anything else")
		}
	}
	for name, text := range mine {
		b, err := os.ReadFile(filepath.Join(own, name))
		require.NoError(t, err)
		require.Equal(t, text, string(b), "%s untouched", name)
	}
	entries, err := os.ReadDir(own)
	require.NoError(t, err)
	require.Len(t, entries, 2, "nothing added")
	// An empty directory is taken: the run goes on to its preflight
	// (nothing listens on the endpoint's port here).
	code, _, errs := run(t, context.Background(), "run", file, "--results", t.TempDir())
	require.NotEqual(t, ExitUsage, code, errs)
	require.Contains(t, errs, "preflight")
}
