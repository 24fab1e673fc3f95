package results

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/measure/hlog"
)

// writeLoaderLog writes loader i's log of trial id: a warm-up second,
// then secs measured seconds of n READs each at value µs, stamped on a
// clock offset ahead of this one.
func writeLoaderLog(t *testing.T, dir string, i int, base time.Time, offset time.Duration, secs, n int, value int64) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, loaderFile(i)))
	require.NoError(t, err)
	defer f.Close()
	at := base.Add(offset)
	w, err := hlog.NewWriter(f, at, "dbarena run x")
	require.NoError(t, err)
	for s := 0; s <= secs; s++ {
		h := measure.NewHistogram()
		for range n {
			require.NoError(t, h.RecordValue(value*1000))
		}
		start := at.Add(time.Duration(s) * time.Second)
		require.NoError(t, w.WriteInterval(hlog.Tag{Warmup: s == 0, Op: "READ"}.String(), start, start.Add(time.Second), h))
	}
}

func loaderFile(i int) string { return fmt.Sprintf("loader-%d.hlog", i) }

// TestReconstructFromLoaderLogs rebuilds a trial a killed run left only
// in its loaders' logs: their measured intervals merged on this clock
// (loader 1's offset taken off), the warm-up left out; a clock-offset
// file that cannot be read is named in a warning.
func TestReconstructFromLoaderLogs(t *testing.T) {
	k := writeKilledRun(t, true)
	const id = "pg.a.threads=8"
	dir := filepath.Join(k.dir, HdrDir, id+LoaderLogs)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	base := k.base.Add(10 * time.Second)
	writeLoaderLog(t, dir, 0, base, 0, 4, 100, 200)
	writeLoaderLog(t, dir, 1, base, 700*time.Millisecond, 4, 50, 900)
	require.NoError(t, WriteLoaderOffsets(filepath.Join(dir, LoaderOffsetsFile), []time.Duration{0, 700 * time.Millisecond}))
	// The empty log the run's own observer left.
	require.NoError(t, os.WriteFile(filepath.Join(k.dir, HdrDir, id+".hlog"), []byte("#[StartTime: 1.000 (seconds since epoch)]\n"), 0o644))

	d, err := Read(k.dir)
	require.NoError(t, err)
	var row *Trial
	for i := range d.Trials {
		if d.Trials[i].ID == id {
			row = &d.Trials[i]
		}
	}
	require.NotNil(t, row, "warnings: %q", d.Warnings)
	require.True(t, row.Reconstructed)
	require.Equal(t, 8, row.Threads)
	require.Equal(t, int64(4*100+4*50), row.Operations, "the measured seconds of both loaders, no warm-up")
	require.True(t, base.Add(time.Second).Equal(row.Start), "loader 1's intervals moved onto this clock: start %v", row.Start)
	require.Equal(t, 4*time.Second, row.Duration)
	require.InDelta(t, 900, row.Latency.P99, 5)
	require.InDelta(t, 200, row.Latency.P50, 2)
	require.Contains(t, row.Flags[0], "figures rebuilt from its 4 measured intervals on disk, latency merged from its loaders' logs in hdr/"+id+LoaderLogs)
	s, ok, err := d.TrialStats(id)
	require.NoError(t, err)
	require.True(t, ok, "the report's extra percentiles come from the loaders' logs too")
	require.InDelta(t, 900, s.P9999, 5)

	require.NoError(t, os.WriteFile(filepath.Join(dir, LoaderOffsetsFile), []byte("loader,offset_ns\n1,soon\n"), 0o644))
	d, err = Read(k.dir)
	require.NoError(t, err)
	require.Len(t, d.Trials, 2, "no row from logs that cannot be put on one clock")
	require.Contains(t, d.Warnings, "trial "+id+": its loaders' logs in hdr/"+id+LoaderLogs+" could not be put on one clock: "+
		filepath.Join(dir, LoaderOffsetsFile)+`: line 2: want loader,offset_ns (a loader index and nanoseconds), got "1,soon"`)
}
