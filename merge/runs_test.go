package merge_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/merge"
)

// withComment writes a log as writeLog does, with comment as its header:
// the run or trial it belongs to.
func withComment(t *testing.T, path, comment string, start time.Time) {
	t.Helper()
	writeLog(t, path, start, 3, 5, 1, nil)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(b), "#loader\n", "#"+comment+"\n", 1)), 0o644))
}

func TestMergeRefusesDifferentRuns(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	logs := map[string]string{
		"l1.hlog":   "dbarena v1; values in nanoseconds; run r42; loader 1/2 on h1",
		"l2.hlog":   "dbarena v1; values in nanoseconds; run r42; loader 2/2 on h2",
		"load.hlog": "dbarena trial pg.load.1; values in nanoseconds",
		"t4.hlog":   "dbarena trial pg.a.threads=4; values in nanoseconds",
		"java.hlog": "a log of another tool",
	}
	for name, comment := range logs {
		withComment(t, filepath.Join(dir, name), comment, t0)
	}
	in := func(names ...string) []merge.Input {
		var out []merge.Input
		for _, n := range names {
			out = append(out, merge.Input{Name: n, Path: filepath.Join(dir, n)})
		}
		return out
	}
	_, err := merge.Merge(in("l1.hlog", "l2.hlog", "java.hlog"), merge.Options{})
	require.NoError(t, err, "the loaders of one run share a run id; a log without one is taken as given")

	_, err = merge.Merge(in("load.hlog", "l1.hlog", "t4.hlog"), merge.Options{})
	require.EqualError(t, err, "merge: the logs come from 3 different runs or trials: "+
		"pg.a.threads=4 (t4.hlog), pg.load.1 (load.hlog), r42 (l1.hlog); merge the loaders of one run (they share a run id), not different trials")
}

// TestMergeRefusesSeparateStandaloneRuns: logs that name no run merge
// when they measured together (loaders started by hand), and are refused
// when one ended before the other began (two runs 33 s apart), naming
// both ends.
func TestMergeRefusesSeparateStandaloneRuns(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	a, b, c := filepath.Join(dir, "memory.hlog"), filepath.Join(dir, "pg.hlog"), filepath.Join(dir, "beside.hlog")
	writeLog(t, a, t0, 3, 5, 1, nil)
	writeLog(t, b, t0.Add(33*time.Second), 3, 5, 2, nil)
	writeLog(t, c, t0.Add(2*time.Second), 3, 5, 3, nil) // overlaps a's last second
	_, err := merge.Merge([]merge.Input{{Path: a}, {Path: c}}, merge.Options{})
	require.NoError(t, err, "they measured at one moment")
	_, err = merge.Merge([]merge.Input{{Path: a}, {Path: b}}, merge.Options{})
	require.ErrorContains(t, err, "memory.hlog ended at 2026-11-23T10:00:03Z, before "+b+" began at 2026-11-23T10:00:33Z")
	require.ErrorContains(t, err, "these look like separate runs")
	_, err = merge.Merge([]merge.Input{{Path: b}, {Path: a}, {Path: c}}, merge.Options{})
	require.Error(t, err, "in any order")
}
