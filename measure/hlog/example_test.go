package hlog_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/measure/hlog"
)

// A run writes one tagged line per operation and interval; the reader gives
// back absolute times and the histograms.
func Example() {
	start := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	var buf bytes.Buffer // a bufio.Writer over a file in a real run
	w, err := hlog.NewWriter(&buf, start, "[example; values in nanoseconds]")
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range 2 {
		h := hdrhistogram.New(1, int64(time.Hour), 3)
		for us := int64(1); us <= 1000; us++ {
			_ = h.RecordValue(us * 1000 * int64(i+1))
		}
		from := start.Add(time.Duration(i) * time.Second)
		if err := w.WriteInterval("READ", from, from.Add(time.Second), h); err != nil {
			fmt.Println(err)
			return
		}
	}

	r := hlog.NewReader(&buf)
	for {
		iv, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s %s +%s n=%d p99=%dµs max=%.3fms\n", iv.Tag, iv.Start.UTC().Format(time.TimeOnly), iv.Length,
			iv.Histogram.TotalCount(), iv.Histogram.ValueAtPercentile(99)/1000, iv.Max)
	}
	// Output:
	// READ 12:00:00 +1s n=1000 p99=990µs max=1.000ms
	// READ 12:00:01 +1s n=1000 p99=1980µs max=2.001ms
}
