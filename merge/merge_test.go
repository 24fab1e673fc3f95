package merge_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/measure/hlog"
	"github.com/dbarena/dbarena/merge"
)

// writeLog writes secs one-second intervals of n READ values each, the
// first starting at start, and records every value into union too.
func writeLog(t *testing.T, path string, start time.Time, secs, n int, seed uint64, all []int64) []int64 {
	t.Helper()
	var buf bytes.Buffer
	w, err := hlog.NewWriter(&buf, start, "loader")
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(seed, 1))
	for s := 0; s < secs; s++ {
		h := measure.NewHistogram()
		for i := 0; i < n; i++ {
			v := int64(50_000 + rng.ExpFloat64()*400_000) // ns
			require.NoError(t, h.RecordValue(v))
			all = append(all, v)
		}
		from := start.Add(time.Duration(s) * time.Second)
		require.NoError(t, w.WriteInterval("READ", from, from.Add(time.Second), h))
	}
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return all
}

func TestMergeEqualsOneHistogramOfEverything(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	var all []int64
	var inputs []merge.Input
	// Three loaders started a fraction of a second apart; the third's
	// clock runs 250 ms ahead, which its offset corrects.
	for i, c := range []struct {
		start  time.Duration
		offset time.Duration
	}{{0, 0}, {300 * time.Millisecond, 0}, {650 * time.Millisecond, 250 * time.Millisecond}} {
		path := filepath.Join(dir, "l"+string(rune('0'+i))+".hlog")
		all = writeLog(t, path, t0.Add(c.start+c.offset), 10, 500+100*i, uint64(i), all)
		inputs = append(inputs, merge.Input{Path: path, Offset: c.offset})
	}
	r, err := merge.Merge(inputs, merge.Options{})
	require.NoError(t, err)

	union := measure.NewHistogram()
	for _, v := range all {
		require.NoError(t, union.RecordValue(v))
	}
	want, got := measure.StatsOf(union), r.Summary()
	require.Len(t, got, 1)
	require.Equal(t, "READ", got[0].Tag)
	require.Equal(t, want, got[0].Stats, "lossless: the merged summary is the union's")
	require.Equal(t, int64(10*(500+600+700)), got[0].Count)

	require.True(t, t0.Equal(r.Start), "%s", r.Start)
	require.True(t, t0.Add(10*time.Second+650*time.Millisecond).Equal(r.End), "the third loader's corrected end: %s", r.End)
	// Windows of one second from the earliest start: the loaders'
	// intervals (midpoints at +0.5, +0.8, +1.15 s...) land in 11 windows.
	var total int64
	for _, w := range r.Windows {
		total += w.Hist.TotalCount()
	}
	require.Equal(t, got[0].Count, total)
	require.Len(t, r.Windows, 11)
	require.Empty(t, r.Flags)

	// The merged log reads back with the same totals.
	var buf bytes.Buffer
	require.NoError(t, r.WriteLog(&buf, "merged"))
	rd := hlog.NewReader(&buf)
	back := measure.NewHistogram()
	for {
		iv, err := rd.Next()
		if err != nil {
			break
		}
		iv.Histogram.MergeInto(back)
	}
	require.Equal(t, want, measure.StatsOf(back))
}

// widePayload is an empty histogram declaring 1 to 2^63-1 at 5 digits:
// 49 MiB of counts when dense.
const widePayload = "HISTBAAAABp42pNpmczMgACsUJqx/j8E2H+ACAAAk5cJ5A=="

// TestMergeWideAndScatteredLogs: a 39 KB log of 499 histograms declaring
// 1 to 2^63 ran merge out of memory (each held dense, 49 MiB), and so did
// intervals 1,000 s apart (one dense 270 KB window each: 5,000 of them were 1.3 GB).
func TestMergeWideAndScatteredLogs(t *testing.T) {
	dir := t.TempDir()
	// Another tool's range: up to ten hours, where dbarena's stops at one.
	h := hdrhistogram.New(1, int64(10*time.Hour), 3)
	require.NoError(t, h.RecordValue(int64(2*time.Millisecond)))
	require.NoError(t, h.RecordValue(int64(2*time.Hour)))
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	require.NoError(t, err)
	var wide, scattered strings.Builder
	wide.WriteString("#[StartTime: 1700000000.000 (seconds since epoch)]\n#[BaseTime: 1700000000.000 (seconds since epoch)]\n")
	scattered.WriteString(wide.String())
	for i := range 499 {
		fmt.Fprintf(&wide, "Tag=READ,%d.000,1.000,0.000,%s\n", i, widePayload)
	}
	for i := range 5000 {
		fmt.Fprintf(&scattered, "Tag=READ,%d.000,1.000,2.000,%s\n", i*1000, enc)
	}
	for name, c := range map[string]struct {
		text  string
		flags []string
	}{
		"wide":      {text: wide.String()},
		"scattered": {text: scattered.String(), flags: []string{"5000 values outside 1 ns to 1h0m0s were left out"}},
	} {
		t.Run(name, func(t *testing.T) {
			text := c.text
			path := filepath.Join(dir, name+".hlog")
			require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			r, err := merge.Merge([]merge.Input{{Path: path}}, merge.Options{})
			require.NoError(t, err)
			runtime.ReadMemStats(&after)
			require.Less(t, after.HeapAlloc, before.HeapAlloc+200<<20, "heap after the merge")
			require.Equal(t, c.flags, r.Flags)
			var buf bytes.Buffer
			require.NoError(t, r.WriteLog(&buf, "merged"))
		})
	}
}

func TestMergeFlagsLateLoaders(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	a, b := filepath.Join(dir, "a.hlog"), filepath.Join(dir, "b.hlog")
	writeLog(t, a, t0, 10, 10, 1, nil)
	writeLog(t, b, t0.Add(3*time.Second), 4, 10, 2, nil)
	r, err := merge.Merge([]merge.Input{{Name: "a", Path: a}, {Name: "b", Path: b}}, merge.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"b started 3s after the first loader", "b stopped 3s before the last loader"}, r.Flags)

	_, err = merge.Merge([]merge.Input{{Path: filepath.Join(dir, "missing.hlog")}}, merge.Options{})
	require.ErrorContains(t, err, "missing.hlog")
	empty := filepath.Join(dir, "empty.hlog")
	require.NoError(t, os.WriteFile(empty, []byte("#[StartTime: 1.000 (seconds since epoch)]\n"), 0o644))
	_, err = merge.Merge([]merge.Input{{Path: empty}}, merge.Options{})
	require.ErrorContains(t, err, "no intervals")
}

// TestMergeRefusesAFIFO: a FIFO in a log's place fails at once rather
// than blocking the merge until a writer comes.
func TestMergeRefusesAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.hlog")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	_, err := merge.Merge([]merge.Input{{Path: fifo}}, merge.Options{})
	require.ErrorContains(t, err, "not a regular file")
}
