package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOutputsNeedFilesOfTheirOwn: --json F --hdr-log F --export F was
// accepted and F held the JSON alone; a read-only --json was found only
// after the run. Both are refused before anything runs, naming the
// flags, as "-" twice already was.
func TestOutputsNeedFilesOfTheirOwn(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "out")
	args := []string{"ycsb", "run", "basic", "-P", workloadA, "-p", "recordcount=10", "-p", "operationcount=10"}
	code, _, errs := run(t, context.Background(), append(args, "--json", f, "--hdr-log", f, "--export", f)...)
	require.Equal(t, ExitUsage, code, errs)
	require.Contains(t, errs, "--json (json.output) and --hdr-log (hdr.log) both name "+f)
	_, err := os.Stat(f)
	require.True(t, os.IsNotExist(err), "nothing was created")

	// The same file by another name.
	require.NoError(t, os.Symlink(f, filepath.Join(dir, "link")))
	require.NoError(t, os.WriteFile(f, nil, 0o644))
	code, _, errs = run(t, context.Background(), append(args, "--json", f, "--export", filepath.Join(dir, "link"))...)
	require.Equal(t, ExitUsage, code, errs)
	require.Contains(t, errs, "each output needs a file of its own")

	// A directory that is not there (root writes anywhere else).
	code, out, errs := run(t, context.Background(), append(args, "--json", filepath.Join(dir, "missing", "s.json"))...)
	require.Equal(t, ExitUsage, code, errs)
	require.Contains(t, errs, "--json (json.output) "+filepath.Join(dir, "missing", "s.json")+": cannot be written")
	require.NotContains(t, out, "[OVERALL]", "refused before the run")
	code, _, errs = run(t, context.Background(), append(args, "--json", dir)...)
	require.Equal(t, ExitUsage, code, errs)
	require.Contains(t, errs, "is a directory")

	// Separate files, and /dev/null, still work.
	code, _, errs = run(t, context.Background(), append(args, "--json", filepath.Join(dir, "a.json"), "--hdr-log", os.DevNull)...)
	require.Equal(t, ExitOK, code, errs)
}
