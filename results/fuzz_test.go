package results

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzReadTrials reads any trials.csv beside a valid manifest: Read never
// panics, an error names the file, and no figure it returns is one a run
// cannot produce (a throughput of 1e308 printed as
// -9,223,372,036,854,775,808 ops/s, -1 as "-1.0 ops/s"): every count,
// rate, duration and latency is finite and within its bounds, or NaN
// where a figure is missing.
func FuzzReadTrials(f *testing.F) {
	dir := f.TempDir()
	w, err := Create(filepath.Join(dir, "seed"))
	require.NoError(f, err)
	require.NoError(f, w.WriteManifest(&Manifest{Experiment: "fuzz", Status: StatusCompleted}))
	require.NoError(f, w.AddTrial(Trial{ID: "pg.a", Kind: KindRun, Target: "pg", Workload: "a", Operations: 1000, Throughput: 500,
		Duration: 2e9, Status: StatusCompleted, Latency: Latency{Mean: 100, P50: 90, P90: 150, P95: 180, P99: 300, P999: 500, Max: 900}}))
	require.NoError(f, w.Close())
	seed, err := os.ReadFile(filepath.Join(dir, "seed", TrialsFile))
	require.NoError(f, err)
	manifest, err := os.ReadFile(filepath.Join(dir, "seed", ManifestFile))
	require.NoError(f, err)
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		// Written plainly, not by a Writer: its reserve and its
		// manifest's sync would make every input cost milliseconds.
		d := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(d, ManifestFile), manifest, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(d, TrialsFile), data, 0o644))
		got, err := Read(d)
		if err != nil {
			require.Contains(t, err.Error(), TrialsFile, "an error names the file")
			return
		}
		for _, row := range got.Trials {
			for name, v := range map[string]float64{"target rate": row.TargetRate, "throughput": row.Throughput, "error rate": row.ErrorRate,
				"concurrency": row.Concurrency, "mean": row.Latency.Mean, "p50": row.Latency.P50, "p99": row.Latency.P99, "max": row.Latency.Max} {
				require.False(t, math.IsInf(v, 0), "%s %v", name, v)
				require.False(t, v < 0, "%s %v", name, v)
				require.False(t, v > 1e15, "%s %v", name, v)
			}
			for name, v := range map[string]int64{"operations": row.Operations, "errors": row.Errors, "aborted": row.Aborted, "late": row.Late,
				"duration": int64(row.Duration), "threads": int64(row.Threads), "repetition": int64(row.Repetition)} {
				require.GreaterOrEqual(t, v, int64(0), "%s", name)
			}
			require.False(t, strings.ContainsAny(row.ID, "\x00"), "id %q", row.ID)
		}
	})
}
