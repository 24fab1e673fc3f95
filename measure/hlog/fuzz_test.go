package hlog

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FuzzReader checks the interval log reader on any input: it never
// panics, errors name the line and stay, and every interval read has a
// histogram, a length >= 0, times within the range that converts
// without wrapping, and counts that add up within maxLogCount. The
// corpus in testdata/fuzz/FuzzReader keeps the inputs that broke it.
func FuzzReader(f *testing.F) {
	var log bytes.Buffer
	w, err := NewWriter(&log, testStart, "fuzz seed")
	require.NoError(f, err)
	require.NoError(f, w.WriteInterval("READ", testStart, testStart.Add(time.Second), latencyHistogram(f, 1000, 2_768_500)))
	require.NoError(f, w.WriteInterval("", testStart.Add(time.Second), testStart.Add(2*time.Second), latencyHistogram(f)))
	f.Add(log.Bytes())
	f.Add([]byte("#[StartTime: 1709294400.250 (seconds since epoch)]\n0.127,1.007,0.001," + encoded(f, latencyHistogram(f, 1000)) + "\r\n"))
	f.Add([]byte("Tag=READ,0.000,1.000,0.000," + widePayload + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data))
		var total int64
		for range 10_000 {
			iv, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				require.True(t, strings.HasPrefix(err.Error(), "hlog: line "), "error without the line: %v", err)
				_, again := r.Next()
				require.Equal(t, err, again, "errors are sticky")
				return
			}
			require.NotNil(t, iv.Histogram)
			require.GreaterOrEqual(t, iv.Length, time.Duration(0))
			require.GreaterOrEqual(t, iv.Histogram.TotalCount(), int64(0))
			// No count a run cannot make, and no total that wraps.
			total += iv.Histogram.TotalCount()
			require.LessOrEqual(t, total, int64(maxLogCount), "the log's total")
			require.False(t, strings.ContainsAny(iv.Tag, ",\n"), "tag %q", iv.Tag)
			require.True(t, iv.Start.After(time.Unix(-maxSeconds-1, 0)) && iv.Start.Before(time.Unix(3*maxSeconds, 0)), "start %s", iv.Start)
		}
	})
}
