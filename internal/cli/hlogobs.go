package cli

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/measure/hlog"
	"github.com/dbarena/dbarena/runner"
)

// hlogObserver writes every interval's histograms to an HdrHistogram log,
// one line per series that saw operations, tagged with the series name.
// Response times under a target rate are tagged "Intended-OP", and warm-up
// intervals carry a "WARMUP-" prefix so tools can select or skip them.
// Each interval is flushed to disk as it is written: a killed run keeps
// every completed interval.
type hlogObserver struct {
	f   *os.File
	bw  *bufio.Writer
	w   *hlog.Writer
	err error
}

func newHlogObserver(path string, start time.Time, comment string) (*hlogObserver, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("hdr log: %w", err)
	}
	bw := bufio.NewWriter(f)
	w, err := hlog.NewWriter(bw, start, "dbarena "+Version+"; values in nanoseconds"+comment)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("hdr log %s: %w", path, err)
	}
	return &hlogObserver{f: f, bw: bw, w: w}, nil
}

// Interval implements runner.Observer.
func (o *hlogObserver) Interval(iv *runner.Interval) {
	if o.err != nil {
		return
	}
	prefix := ""
	if iv.Warmup {
		prefix = "WARMUP-"
	}
	for i := range iv.Results {
		r := &iv.Results[i]
		if r.Service.TotalCount() > 0 {
			o.write(prefix+r.Name, iv, r.Service)
		}
		if r.Response != nil && r.Response.TotalCount() > 0 {
			o.write(prefix+"Intended-"+r.Name, iv, r.Response)
		}
	}
	if o.err == nil {
		o.err = o.bw.Flush()
	}
}

func (o *hlogObserver) write(tag string, iv *runner.Interval, h *hdrhistogram.Histogram) {
	if o.err != nil {
		return
	}
	o.err = o.w.WriteInterval(tag, iv.Start, iv.End, h)
}

// Close flushes and closes the log, returning the first error met.
func (o *hlogObserver) Close() error {
	err := o.err
	if err == nil {
		err = o.bw.Flush()
	}
	return errors.Join(err, o.f.Close())
}
