package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/procid"
	"github.com/dbarena/dbarena/internal/workdir"
)

// writeDeadDir writes a directory under root/local as a run that died
// leaves it: an owner file naming a process that is gone (this PID with
// another start time: the PID was reused) and size bytes of data.
func writeDeadDir(t *testing.T, root, name string, size int) string {
	t.Helper()
	self, err := procid.Self()
	require.NoError(t, err)
	self.Start++
	dir := filepath.Join(root, workdir.Local, name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	b, err := json.Marshal(workdir.Owner{Process: self, Name: "postgres"})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, workdir.OwnerFile), b, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data"), make([]byte, size), 0o644))
	return dir
}

func TestCleanCommand(t *testing.T) {
	root := t.TempDir()
	code, out, errs := run(t, context.Background(), "clean", "--work-dir", root)
	require.Equal(t, ExitOK, code, errs)
	require.Equal(t, root+": nothing to clean\n", out)

	dead := writeDeadDir(t, root, "1-postgres-00000000", 1<<20)
	live, err := workdir.Claim(root, workdir.Local, "redis", false)
	require.NoError(t, err)

	code, out, errs = run(t, context.Background(), "clean", "--work-dir", root, "--dry-run")
	require.Equal(t, ExitOK, code, errs)
	require.Regexp(t, `(?m)^would remove `+regexp.QuoteMeta(dead)+`  1\.0 MiB \(\d+ bytes\)  \(left by a dead run, pid \d+ \(started at tick \d+\)\)$`, out)
	require.Regexp(t, `(?m)^left +`+regexp.QuoteMeta(live.Path)+` .*\(in use, pid \d+`, out)
	require.Regexp(t, `(?m)^would remove 1 directory, 1\.0 MiB`, out)
	require.DirExists(t, dead, "a dry run removes nothing")

	code, out, errs = run(t, context.Background(), "clean", "--work-dir", root)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "removed      "+dead)
	require.NoDirExists(t, dead)
	require.DirExists(t, live.Path, "a live run's directory is never removed")

	code, out, errs = run(t, context.Background(), "clean", "--help")
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "ROOT/local/PID-NAME-RANDOM")
	require.Contains(t, out, "$DBARENA_WORK")
}
