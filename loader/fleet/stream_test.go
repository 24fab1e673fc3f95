package fleet

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/measure/hlog"
)

// TestStreamReadsTheLatestRate writes an interval log through a loader's
// stream as a loader would, and checks the file holds it all and the
// live rate is the last whole interval's operations, successes and
// failures of every type, per second.
func TestStreamReadsTheLatestRate(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "loader-0.hlog"))
	require.NoError(t, err)
	defer f.Close()
	pr, pw := io.Pipe()
	s := &stream{f: f, live: pw}
	done := make(chan struct{})
	go func() { s.read(pr); close(done) }()

	start := time.Unix(1_700_000_000, 0)
	w, err := hlog.NewWriter(s, start, "test")
	require.NoError(t, err)
	hist := func(n int) *hdrhistogram.Histogram {
		h := measure.NewHistogram()
		for range n {
			_ = h.RecordValue(1000)
		}
		return h
	}
	for sec, counts := range [][3]int{{100, 50, 0}, {300, 100, 100}, {7, 0, 0}} {
		from, to := start.Add(time.Duration(sec)*time.Second), start.Add(time.Duration(sec+1)*time.Second)
		require.NoError(t, w.WriteInterval(hlog.Tag{Kind: hlog.Service, Op: "READ"}.String(), from, to, hist(counts[0])))
		require.NoError(t, w.WriteInterval(hlog.Tag{Kind: hlog.Service, Op: "UPDATE"}.String(), from, to, hist(counts[1])))
		require.NoError(t, w.WriteInterval(hlog.Tag{Kind: hlog.Failed, Op: "READ"}.String(), from, to, hist(counts[2])))
	}
	require.NoError(t, pw.Close())
	<-done
	// The last interval is still open when the stream ends: the
	// second's 500 operations are the latest whole one.
	require.InDelta(t, 500, math.Float64frombits(s.rate.Load()), 1e-9)
	require.False(t, s.warm.Load())
	require.Positive(t, s.last.Load())
	fi, err := f.Stat()
	require.NoError(t, err)
	require.Positive(t, fi.Size(), "the file holds the stream")
}
