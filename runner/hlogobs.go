package runner

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/measure/hlog"
)

// HlogObserver writes every interval of a run to an HdrHistogram
// interval log, tagged as [hlog.Tag] describes: each operation type's
// service times, its response times under a target rate
// ([hlog.Intended]), its failures' latencies ([hlog.Failed]), the
// operations the window's end cut off ([hlog.CutOff]) and the harness's
// own pacing lateness ([hlog.Pacing]), each marked as warm-up in the
// warm-up's intervals.
// Every interval of the measured run has a line for each operation type
// the run issues, empty when none completed, so that a stalled or dead
// database's seconds stay in the log where they happened. Each interval
// is flushed as it is written: a killed run keeps every completed one.
type HlogObserver struct {
	c   io.Closer
	bw  *bufio.Writer
	w   *hlog.Writer
	err error
}

// CreateHlog creates the log at path, its times counted from start.
func CreateHlog(path string, start time.Time, comment string) (*HlogObserver, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("hdr log: %w", err)
	}
	o, err := NewHlog(f, start, comment)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("hdr log %s: %w", path, err)
	}
	o.c = f
	return o, nil
}

// NewHlog writes the log to w, its times counted from start; Close
// flushes it but leaves w open (standard output, for "--hdr-log -").
func NewHlog(w io.Writer, start time.Time, comment string) (*HlogObserver, error) {
	bw := bufio.NewWriter(w)
	hw, err := hlog.NewWriter(bw, start, comment)
	if err != nil {
		return nil, err
	}
	return &HlogObserver{c: nopCloser{}, bw: bw, w: hw}, nil
}

// nopCloser closes nothing: the writer belongs to the caller.
type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// Interval implements Observer.
func (o *HlogObserver) Interval(iv *Interval) {
	if o.err != nil {
		return
	}
	for i := range iv.Results {
		r := &iv.Results[i]
		planned := i < len(iv.Planned) && iv.Planned[i] && !iv.Warmup
		if planned || r.Service.TotalCount() > 0 {
			o.write(hlog.Tag{Warmup: iv.Warmup, Op: r.Name}, iv, r.Service)
		}
		if r.Response != nil && r.Response.TotalCount() > 0 {
			o.write(hlog.Tag{Warmup: iv.Warmup, Kind: hlog.Intended, Op: r.Name}, iv, r.Response)
		}
		if r.ErrorLatency.TotalCount() > 0 {
			o.write(hlog.Tag{Warmup: iv.Warmup, Kind: hlog.Failed, Op: r.Name}, iv, r.ErrorLatency)
		}
		if r.CutOffCount() > 0 {
			o.write(hlog.Tag{Warmup: iv.Warmup, Kind: hlog.CutOff, Op: r.Name}, iv, r.CutOff)
		}
	}
	if p := iv.Results.PacingHistogram(); p != nil && p.TotalCount() > 0 {
		o.write(hlog.Tag{Warmup: iv.Warmup, Kind: hlog.Pacing}, iv, p)
	}
	if o.err == nil {
		o.err = o.bw.Flush()
	}
}

func (o *HlogObserver) write(tag hlog.Tag, iv *Interval, h *hdrhistogram.Histogram) {
	if o.err == nil {
		o.err = o.w.WriteInterval(tag.String(), iv.Start, iv.End, h)
	}
}

// Close flushes and closes the log, returning the first error met.
func (o *HlogObserver) Close() error {
	err := o.err
	if err == nil {
		err = o.bw.Flush()
	}
	return errors.Join(err, o.c.Close())
}
