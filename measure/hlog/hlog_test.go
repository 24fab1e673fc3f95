package hlog

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/require"
)

// testStart has a millisecond part so that a lost or doubled offset shows.
var testStart = time.Date(2024, 3, 1, 12, 0, 0, 250_000_000, time.UTC)

// denseLike returns p's counts in a dense histogram of like's range, to
// compare with like.
func denseLike(t testing.TB, like *hdrhistogram.Histogram, p *hdrhistogram.PackedHistogram) *hdrhistogram.Histogram {
	t.Helper()
	d := hdrhistogram.New(like.LowestTrackableValue(), like.HighestTrackableValue(), int(like.SignificantFigures()))
	require.Zero(t, p.MergeInto(d), "values dropped")
	return d
}

// latencyHistogram returns a histogram of 1 ns to an hour at 3 digits, the
// geometry dbarena uses, holding the given nanosecond values.
func latencyHistogram(t testing.TB, values ...int64) *hdrhistogram.Histogram {
	t.Helper()
	h := hdrhistogram.New(1, int64(time.Hour), 3)
	for _, v := range values {
		require.NoError(t, h.RecordValue(v))
	}
	return h
}

// micros returns the nanosecond values from µs lo to hi µs, one µs apart.
func micros(lo, hi int64) []int64 {
	vs := make([]int64, 0, hi-lo+1)
	for us := lo; us <= hi; us++ {
		vs = append(vs, us*1000)
	}
	return vs
}

func TestWriterFormat(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, testStart.Add(400*time.Microsecond), "[dbarena test]")
	require.NoError(t, err)
	h := latencyHistogram(t, 1000, 2_768_500)
	require.NoError(t, w.WriteInterval("READ", testStart.Add(127*time.Millisecond), testStart.Add(1134*time.Millisecond), h))
	require.NoError(t, w.WriteInterval("", testStart.Add(1500*time.Microsecond), testStart.Add(2*time.Second), h))

	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	require.Len(t, lines, 7)
	require.Equal(t, []string{
		"#[Histogram log format version 1.3]",
		"#[dbarena test]",
		"#[StartTime: 1709294400.250 (seconds since epoch), Fri Mar 01 12:00:00 UTC 2024]",
		"#[BaseTime: 1709294400.250 (seconds since epoch)]",
		`"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"`,
	}, lines[:5])
	// h.Max() is 2_768_895 ns, the top of 2_768_500's 2048-ns bucket.
	payload, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	require.NoError(t, err)
	require.Equal(t, "Tag=READ,0.127,1.007,2.769,"+string(payload), lines[5])
	// 1.5 ms is exactly half way: rounded up, as Java's %.3f does.
	require.Equal(t, "0.002,1.999,2.769,"+string(payload), lines[6])
	require.True(t, strings.HasPrefix(string(payload), "HISTFAAA"), "V2 compressed cookie")
}

func TestFixed3(t *testing.T) {
	tests := map[string]struct {
		n, unit int64
		want    string
	}{
		"zero":              {0, int64(time.Second), "0.000"},
		"ms from ns":        {int64(127 * time.Millisecond), int64(time.Second), "0.127"},
		"half rounds up":    {1_000_500_000, int64(time.Second), "1.001"},
		"below half down":   {1_000_499_999, int64(time.Second), "1.000"},
		"ms unit exact":     {1_709_294_400_250, 1000, "1709294400.250"},
		"max column":        {2_768_895, MaxValueUnitRatio, "2.769"},
		"max half up":       {2_768_500, MaxValueUnitRatio, "2.769"},
		"large max":         {int64(time.Hour), MaxValueUnitRatio, "3600000.000"},
		"carry into digits": {999_999_999, int64(time.Second), "1.000"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, fixed3(tc.n, tc.unit))
		})
	}
}

func TestRoundTrip(t *testing.T) {
	type written struct {
		tag        string
		start, end time.Duration // after testStart
		h          *hdrhistogram.Histogram
	}
	in := []written{
		{"READ", 0, time.Second, latencyHistogram(t, micros(1, 10_000)...)},
		{"UPDATE", 0, time.Second, latencyHistogram(t, micros(500, 900)...)},
		{"", 0, time.Second, latencyHistogram(t)},
		{"Intended-READ", time.Second, 2 * time.Second, latencyHistogram(t, append(micros(1, 100), int64(3*time.Second))...)},
		{"READ", time.Second + 500*time.Millisecond, 2500 * time.Millisecond, latencyHistogram(t, 1, int64(time.Hour))},
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, testStart, "")
	require.NoError(t, err)
	for _, iv := range in {
		require.NoError(t, w.WriteInterval(iv.tag, testStart.Add(iv.start), testStart.Add(iv.end), iv.h))
	}

	r := NewReader(&buf)
	for i, want := range in {
		got, err := r.Next()
		require.NoError(t, err, "interval %d", i)
		require.Equal(t, want.tag, got.Tag)
		require.True(t, testStart.Add(want.start).Equal(got.Start), "start %s", got.Start)
		require.Equal(t, want.end-want.start, got.Length)
		require.InDelta(t, float64(want.h.Max())/MaxValueUnitRatio, got.Max, 0.0005)
		require.True(t, want.h.Equals(denseLike(t, want.h, got.Histogram)), "interval %d histogram differs", i)
		require.Equal(t, want.tag, got.Histogram.Tag())
		require.Equal(t, testStart.Add(want.end).UnixMilli(), got.Histogram.EndTimeMs())
	}
	_, err = r.Next()
	require.ErrorIs(t, err, io.EOF)
	start, ok := r.StartTime()
	require.True(t, ok)
	require.True(t, testStart.Equal(start))
}

func TestWriterRejects(t *testing.T) {
	h := latencyHistogram(t, 1000)
	tests := map[string]struct {
		comment    string
		tag        string
		start, end time.Time
		h          *hdrhistogram.Histogram
		want       string
	}{
		"comma in tag":       {tag: "a,b", want: "tag"},
		"space in tag":       {tag: "a b", want: "tag"},
		"tab in tag":         {tag: "a\tb", want: "tag"},
		"newline in tag":     {tag: "a\nb", want: "tag"},
		"nil histogram":      {tag: "READ", want: "nil histogram"},
		"before log start":   {start: testStart.Add(-time.Millisecond), want: "before the log start"},
		"ends before start":  {end: testStart.Add(-time.Second), want: "before it starts"},
		"multi-line comment": {comment: "a\nb", want: "single line"},
		"time header comment": {
			comment: "[StartTime: 1 (seconds since epoch)]", want: "time header",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, testStart, tc.comment)
			if tc.comment != "" {
				require.ErrorContains(t, err, tc.want)
				return
			}
			require.NoError(t, err)
			if tc.start.IsZero() {
				tc.start = testStart
			}
			if tc.end.IsZero() {
				tc.end = tc.start.Add(time.Second)
			}
			if tc.h == nil && tc.want != "nil histogram" {
				tc.h = h
			}
			before := buf.Len()
			require.ErrorContains(t, w.WriteInterval(tc.tag, tc.start, tc.end, tc.h), tc.want)
			require.Equal(t, before, buf.Len(), "nothing written")
		})
	}
}

type failingWriter struct{ after int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.after <= 0 {
		return 0, errors.New("disk full")
	}
	f.after--
	return len(p), nil
}

func TestWriterRejectsStartBeforeEpoch(t *testing.T) {
	_, err := NewWriter(io.Discard, time.Unix(-1, 0), "")
	require.ErrorContains(t, err, "before 1970")
}

func TestWriterKeepsFirstError(t *testing.T) {
	_, err := NewWriter(&failingWriter{}, testStart, "")
	require.ErrorContains(t, err, "write header: disk full")

	w, err := NewWriter(&failingWriter{after: 1}, testStart, "")
	require.NoError(t, err)
	h := latencyHistogram(t, 1000)
	require.ErrorContains(t, w.WriteInterval("A", testStart, testStart, h), "disk full")
	require.ErrorContains(t, w.WriteInterval("A", testStart, testStart, h), "disk full")
}
