package compare

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// goldenResults holds results directories written by past versions of
// dbarena (see its README.md): compare must keep reading them.
const goldenResults = "../../results/testdata/golden"

// readGolden reads one frozen results directory.
func readGolden(t *testing.T, name string) *results.Data {
	t.Helper()
	d, err := results.Read(filepath.Join(goldenResults, name))
	require.NoError(t, err)
	return d
}

// TestGoldenDirectoriesCompare compares frozen results directories: two
// experiments sharing one trial, their flags counted by kind, and a
// sweep with repetitions against itself.
func TestGoldenDirectoriesCompare(t *testing.T) {
	r, err := Compare(readGolden(t, "format2/spike"), readGolden(t, "format2/loaders"), 0)
	require.NoError(t, err)
	require.Len(t, r.Changes, len(Metrics()), "one key in both: basic c")
	require.Equal(t, Key{Target: "basic", Workload: "c"}, r.Changes[0].Key)
	require.Subset(t, r.Changes[0].Notes, []string{`A: "pacing" in 1 of 1 repetitions`, `B: "target missed" in 1 of 1 repetitions`, `B: "pacing" in 1 of 1 repetitions`})
	require.Contains(t, r.Warnings, "target rate differs: unthrottled in A, 800 ops/s in B (basic c)")
	var buf bytes.Buffer
	require.NoError(t, r.Write(&buf))

	sweep := readGolden(t, "format2/sweep")
	r, err = Compare(sweep, sweep, 0)
	require.NoError(t, err)
	require.Len(t, r.Changes, 6*len(Metrics()), "two targets at three thread counts")
	require.Empty(t, r.OnlyInA)
	for _, c := range r.Changes {
		require.Equal(t, 2, c.A.N, "%s: two repetitions", c.Key)
		require.InDelta(t, 0, c.Delta, 1e-12, "%s against itself", c.Key)
		if c.Key == (Key{Target: "fast", Workload: "c", Params: "threads=4"}) {
			require.Contains(t, c.Notes, "A was client-bound in 1 of 2 repetitions")
		}
	}
}
