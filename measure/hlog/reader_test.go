package hlog

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/require"
)

func encoded(t testing.TB, h *hdrhistogram.Histogram) string {
	t.Helper()
	p, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	require.NoError(t, err)
	return string(p)
}

func TestReaderErrors(t *testing.T) {
	payload := encoded(t, latencyHistogram(t, 1000, 2000))
	// A count past int64's half, as a forged or corrupt log holds one:
	// added up it read as 4,611,686,018,427,387,904 operations.
	huge := hdrhistogram.New(1, 3_600_000_000_000, 3)
	require.NoError(t, huge.RecordValues(1000, 1<<62))
	big := hdrhistogram.New(1, 3_600_000_000_000, 3)
	require.NoError(t, big.RecordValues(1000, 6e14)) // 6e14 in a 1e5 s interval: 6e9 a second
	var manyTags strings.Builder
	for i := range 1001 {
		fmt.Fprintf(&manyTags, "Tag=OP%d,%d.000,1.000,0.002,%s\n", i, i, payload)
	}
	header := "#[Histogram log format version 1.3]\n" +
		"#[StartTime: 1709294400.250 (seconds since epoch), Fri Mar 01 12:00:00 UTC 2024]\n" +
		Legend + "\n"
	tests := map[string]struct {
		log  string
		want string
	}{
		"malformed line":          {header + "this is not an interval\n", "line 4: want 4 comma-separated fields"},
		"too few fields":          {header + "0.000,1.000," + payload + "\n", "line 4: want 4"},
		"too many fields":         {header + "0.000,1.000,0.002,0.002," + payload + "\n", "line 4: want 4"},
		"bad base64":              {header + "0.000,1.000,0.002,HISTF!!notbase64\n", "line 4: decode histogram"},
		"truncated payload":       {header + "0.000,1.000,0.002," + payload[:12] + "\n", "line 4: decode histogram"},
		"non-numeric timestamp":   {header + "Tag=READ,soon,1.000,0.002," + payload + "\n", `line 4: start timestamp: "soon" is not a decimal number`},
		"non-numeric length":      {header + "0.000,1s,0.002," + payload + "\n", "line 4: interval length"},
		"NaN max":                 {header + "0.000,1.000,NaN," + payload + "\n", "line 4: interval max"},
		"negative length":         {header + "0.000,-1.000,0.002," + payload + "\n", "line 4: interval length: negative"},
		"empty tag":               {header + "Tag=,0.000,1.000,0.002," + payload + "\n", `line 4: empty tag`},
		"tag alone":               {header + "Tag=READ\n", "line 4: tag without interval fields"},
		"bad start time":          {"#[StartTime: yesterday (seconds since epoch)]\n", "line 1: StartTime header"},
		"bad base time":           {header + "#[BaseTime: x]\n0.000,1.000,0.002," + payload + "\n", "line 4: BaseTime header"},
		"error after good line":   {header + "0.000,1.000,0.002," + payload + "\n\n# note\n1.000,1.000,x," + payload + "\n", "line 7: interval max"},
		"start past year 2255":    {header + "1e300,1.000,0.002," + payload + "\n", "line 4: start timestamp 1e300, length 1.000: want seconds within 9e+09"},
		"length of 1e300 s":       {header + "0.000,1e300,0.002," + payload + "\n", "line 4: start timestamp 0.000, length 1e300"},
		"negative StartTime":      {"#[StartTime: -1e18 (seconds since epoch)]\n", "line 1: StartTime header: -1e18: want seconds since the epoch from 0 to 9e+09"},
		"huge BaseTime":           {"#[BaseTime: 1e12]\n", "line 1: BaseTime header: 1e12"},
		"count of 2^62 in 1 s":    {header + "0.000,1.000,0.002," + encoded(t, huge) + "\n", "line 4: histogram: 4.612e+18 values in 1 s: more than 1e+10 a second"},
		"count of 2^62 in 1e9 s":  {header + "0.000,1e9,0.002," + encoded(t, huge) + "\n", "line 4: the log's histograms hold more than 1e+15 values in all"},
		"two logs' worth":         {header + "0,1e5,0.002," + encoded(t, big) + "\n1e5,1e5,0.002," + encoded(t, big) + "\n", "line 5: the log's histograms hold more than 1e+15 values in all"},
		"1001 distinct tags":      {header + manyTags.String(), `line 1004: tag "OP1000": more than 1000 distinct tags in one log`},
		"line longer than buffer": {header + strings.Repeat("1", maxLineBytes+1) + "\n", "line 4: longer than the 64 MiB limit of a line"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tc.log))
			var err error
			for err == nil {
				_, err = r.Next()
			}
			require.ErrorContains(t, err, tc.want)
			_, again := r.Next()
			require.Equal(t, err, again, "errors are sticky")
		})
	}
}

// widePayload is an empty histogram declaring 1 to 2^63-1 at 5 digits:
// 49 MiB of counts when decoded dense.
const widePayload = "HISTBAAAABp42pNpmczMgACsUJqx/j8E2H+ACAAAk5cJ5A=="

// TestReaderDecodesSparse: a 39 KB log of such histograms ran dbarena
// merge out of memory; decoded sparse, ten of them take kilobytes.
func TestReaderDecodesSparse(t *testing.T) {
	log := strings.Repeat("0.000,1.000,0.000,"+widePayload+"\n", 10)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := NewReader(strings.NewReader(log))
	n := 0
	for {
		iv, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		require.Equal(t, int64(math.MaxInt64), iv.Histogram.HighestTrackableValue())
		n++
	}
	runtime.ReadMemStats(&after)
	require.Equal(t, 10, n)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(10<<20), "bytes allocated reading 10 intervals")
}

// TestReaderTimestamps checks the Java reader's rules for logs without a
// BaseTime line (jHiccup writes relative, YCSB absolute timestamps) and for
// logs without any time header.
func TestReaderTimestamps(t *testing.T) {
	payload := encoded(t, latencyHistogram(t, 1000))
	const start = "#[StartTime: 1709294400.250 (seconds since epoch), Fri Mar 01 12:00:00 UTC 2024]\n"
	tests := map[string]struct {
		log       string
		wantStart []time.Time
		wantLog   time.Time
	}{
		"relative without BaseTime": {
			log:       start + "0.127,1.007,0.001," + payload + "\r\n1.134,0.999,0.001," + payload + "\r\n",
			wantStart: []time.Time{testStart.Add(127 * time.Millisecond), testStart.Add(1134 * time.Millisecond)},
			wantLog:   testStart,
		},
		"absolute without BaseTime": {
			log:       start + "1709294400.300,1.000,0.001," + payload + "\n",
			wantStart: []time.Time{testStart.Add(50 * time.Millisecond)},
			wantLog:   testStart,
		},
		"BaseTime zero": {
			log:       start + "#[BaseTime: 0.000 (seconds since epoch)]\n1709294401.250,1.000,0.001," + payload + "\n",
			wantStart: []time.Time{testStart.Add(time.Second)},
			wantLog:   testStart,
		},
		"no headers: first timestamp is the start": {
			log:       "1709294400.250,1.000,0.001," + payload + "\n1709294402.250,1.000,0.001," + payload + "\n",
			wantStart: []time.Time{testStart, testStart.Add(2 * time.Second)},
			wantLog:   testStart,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tc.log))
			for i, want := range tc.wantStart {
				iv, err := r.Next()
				require.NoError(t, err, "interval %d", i)
				require.True(t, want.Equal(iv.Start), fmt.Sprintf("interval %d: want %s, got %s", i, want, iv.Start))
				require.Equal(t, int64(1), iv.Histogram.TotalCount())
			}
			_, err := r.Next()
			require.ErrorIs(t, err, io.EOF)
			got, ok := r.StartTime()
			require.True(t, ok)
			require.True(t, tc.wantLog.Equal(got), "log start %s", got)
		})
	}
}

func TestReaderComment(t *testing.T) {
	var b strings.Builder
	w, err := NewWriter(&b, time.Unix(1700000000, 0), "dbarena trial pg.a; values in nanoseconds")
	require.NoError(t, err)
	require.NoError(t, w.WriteInterval("READ", time.Unix(1700000000, 0), time.Unix(1700000001, 0), hdrhistogram.New(1, 1000, 3)))
	r := NewReader(strings.NewReader(b.String() + "#a later comment\n"))
	_, err = r.Next()
	require.NoError(t, err)
	require.Equal(t, "dbarena trial pg.a; values in nanoseconds", r.Comment())
	_, err = r.Next()
	require.ErrorIs(t, err, io.EOF)
	require.Equal(t, "dbarena trial pg.a; values in nanoseconds", r.Comment(), "only the header's comment")

	r = NewReader(strings.NewReader("#[StartTime: 1.000 (seconds since epoch)]\n"))
	_, err = r.Next()
	require.ErrorIs(t, err, io.EOF)
	require.Empty(t, r.Comment())
}
