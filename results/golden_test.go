package results

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// goldenDir holds results directories written by past versions of
// dbarena, one subdirectory per format (see its README.md).
const goldenDir = "testdata/golden"

// TestGoldenDirectoriesRead reads every frozen results directory: each
// reads without a warning, as the format its manifest names, with the
// trials and the kinds of flag it was written with.
func TestGoldenDirectoriesRead(t *testing.T) {
	for name, want := range map[string]struct {
		status string
		trials int
		// flags are the kinds flagged on one trial.
		trial string
		flags []FlagKind
	}{
		"format2/sweep":   {StatusCompleted, 14, "fast.c.threads=4.rep2", []FlagKind{FlagClientBound}},
		"format2/spike":   {StatusCompleted, 5, "basic.c", []FlagKind{FlagPacing}},
		"format2/loaders": {StatusCompleted, 2, "basic.c", []FlagKind{FlagTargetMissed, FlagPacing}},
		"format2/priced":  {StatusFailed, 6, "empty.c", []FlagKind{FlagTargetMissed, FlagErrors, FlagStoppedEarly, FlagPacing}},
	} {
		t.Run(name, func(t *testing.T) {
			d, err := Read(filepath.Join(goldenDir, name))
			require.NoError(t, err)
			require.Empty(t, d.Warnings)
			require.Equal(t, 2, d.Manifest.Format)
			require.Equal(t, want.status, d.Manifest.Status)
			require.Len(t, d.Trials, want.trials)
			require.NotEmpty(t, d.Points)
			require.NotEmpty(t, d.Sys)
			var kinds []FlagKind
			for _, tr := range d.Trials {
				require.False(t, tr.Reconstructed, "%s has its row on disk", tr.ID)
				if tr.ID == want.trial {
					for _, f := range tr.Flags {
						kinds = append(kinds, f.Kind())
					}
				}
			}
			require.Equal(t, want.flags, kinds, "flags of %s", want.trial)
		})
	}
}

// TestGoldenPageCacheWrites: the golden directories predate
// pagecache_write_bytes_sec, and their process trees' (the loader's)
// disk_write_bytes_sec was dirtied page cache. It reads as that, and the
// machine's as the disk's.
func TestGoldenPageCacheWrites(t *testing.T) {
	for _, name := range []string{"format2/sweep", "format2/spike", "format2/loaders", "format2/priced"} {
		t.Run(name, func(t *testing.T) {
			d, err := Read(filepath.Join(goldenDir, name))
			require.NoError(t, err)
			roles := map[string]int{}
			for _, s := range d.Sys {
				roles[s.Role]++
				switch s.Role {
				case "machine":
					require.False(t, math.IsNaN(s.DiskWriteBps), "the machine's disks at %s", s.Time)
					require.True(t, math.IsNaN(s.PageCacheWriteBps))
				case "loader":
					require.True(t, math.IsNaN(s.DiskWriteBps), "the loader's dirtied pages are not disk writes")
					require.False(t, math.IsNaN(s.PageCacheWriteBps))
					require.False(t, math.IsNaN(s.DiskReadBps), "read_bytes are storage reads")
				}
			}
			require.Positive(t, roles["machine"])
			require.Positive(t, roles["loader"])
		})
	}
}

// TestFormat1IsConverted makes a version 1 directory out of a golden
// one (no format in the manifest; rates counting failed operations too;
// intervals without their length) and reads back the same successful
// rates as the original.
func TestFormat1IsConverted(t *testing.T) {
	src := filepath.Join(goldenDir, "format2", "priced")
	want, err := Read(src)
	require.NoError(t, err)

	dir := t.TempDir()
	var m map[string]any
	b, err := os.ReadFile(filepath.Join(src, ManifestFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &m))
	delete(m, "format")
	b, err = json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644))
	rewriteCSV(t, filepath.Join(src, TrialsFile), filepath.Join(dir, TrialsFile), func(row map[string]string) {
		row["throughput_ops_sec"] = perSecond(t, row["operations"], row["duration_s"])
	})
	rewriteCSV(t, filepath.Join(src, TimeseriesFile), filepath.Join(dir, TimeseriesFile), func(row map[string]string) {
		row["ops_sec"] = perSecond(t, row["ops"], row["interval_s"])
		row["interval_s"] = ""
	})

	got, err := Read(dir)
	require.NoError(t, err)
	require.Equal(t, 0, got.Manifest.Format)
	require.Len(t, got.Trials, len(want.Trials))
	failed := 0
	for i, tr := range got.Trials {
		require.InDelta(t, want.Trials[i].Throughput, tr.Throughput, 1e-6*want.Trials[i].Throughput+1e-9, tr.ID)
		if tr.Errors > 0 {
			failed++
		}
	}
	require.Positive(t, failed, "the golden has a trial with errors, where the versions differ")
	require.Len(t, got.Points, len(want.Points))
	for i, p := range got.Points {
		if p.Ops > 0 {
			require.InDelta(t, want.Points[i].Rate, p.Rate, 1e-6*want.Points[i].Rate+1e-9, "%s at %s", p.Trial, p.Time)
		}
	}
}

// rewriteCSV copies the CSV file src to dst, passing each row, keyed by
// header, through edit.
func rewriteCSV(t *testing.T, src, dst string, edit func(map[string]string)) {
	t.Helper()
	f, err := os.Open(src)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	out, err := os.Create(dst)
	require.NoError(t, err)
	w := csv.NewWriter(out)
	header := rows[0]
	require.NoError(t, w.Write(header))
	for _, r := range rows[1:] {
		row := map[string]string{}
		for i, h := range header {
			row[h] = r[i]
		}
		edit(row)
		for i, h := range header {
			r[i] = row[h]
		}
		require.NoError(t, w.Write(r))
	}
	w.Flush()
	require.NoError(t, w.Error())
	require.NoError(t, out.Close())
}

// perSecond writes count / seconds, both as CSV cells, or "0" for no
// time.
func perSecond(t *testing.T, count, seconds string) string {
	t.Helper()
	n, err := strconv.ParseFloat(count, 64)
	require.NoError(t, err)
	s, err := strconv.ParseFloat(seconds, 64)
	require.NoError(t, err)
	if s == 0 {
		return "0"
	}
	return strconv.FormatFloat(n/s, 'g', -1, 64)
}
