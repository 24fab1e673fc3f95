package loader

import (
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/measure/hlog"
	"github.com/dbarena/dbarena/merge"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
)

// Part is the warm-up's or the measured phase's part of one merged
// window: its timeseries rows (an ALL row last), its successful
// operations' merged latency histogram and its failures.
type Part struct {
	// Start is the window's start, on this machine's clock.
	Start  time.Time
	Warm   bool
	Points []results.Point
	All    *hdrhistogram.Histogram
	Errs   int64
}

// Series is the merged time series of trial id, window by window in
// time order, each window's warm-up part (where a loader's warm-up
// ended in it) before its measured part. res, the merged result, scales
// the failures: the FAILED- tags also hold a composite operation's
// failed parts and retried inserts' failed attempts, and their counts
// are scaled to the operations the loaders counted as failed.
func Series(id string, m *merge.Result, res *runner.Result) []Part {
	byStart := map[time.Time][]merge.Window{}
	var order []time.Time
	for _, w := range m.Windows {
		if _, ok := byStart[w.Start]; !ok {
			order = append(order, w.Start)
		}
		byStart[w.Start] = append(byStart[w.Start], w)
	}
	errScale := 1.0
	var failed int64
	for name, h := range m.Totals {
		if tag := hlog.ParseTag(name); !tag.Warmup && tag.Kind == hlog.Failed && tag.Op != runner.VerifySeries {
			failed += h.TotalCount()
		}
	}
	if res != nil && failed > 0 {
		errScale = float64(res.Measured.Errors) / float64(failed)
	}
	var out []Part
	for _, t := range order {
		out = append(out, window(id, m, t, byStart[t], errScale)...)
	}
	return out
}

// windowOp is one operation's histograms in a part of a merged window:
// its successes, the latency a user saw, and its failures.
type windowOp struct {
	ok, latency *hdrhistogram.Histogram
	// cut holds the operations the window's end cut off, which a
	// closed loop's latency counts besides ok (a paced one's latency,
	// response time, holds them already).
	cut  *hdrhistogram.Histogram
	errs int64
}

// windowAcc is a part (warm-up or measured) of a merged window by
// operation, in the order the operations came, and its pacing.
type windowAcc struct {
	byOp   map[string]*windowOp
	names  []string
	pacing *hdrhistogram.Histogram
}

// splitWindow sorts a merged window's histograms by part (warm-up
// first, then measured; nil where a part has none) and operation.
// Failure counts are scaled by errScale; data-integrity mismatches
// (VERIFY) are not operations' failures.
func splitWindow(ws []merge.Window, errScale float64) [2]*windowAcc {
	var parts [2]*windowAcc
	for _, w := range ws {
		tag := hlog.ParseTag(w.Tag)
		pi := 1
		if tag.Warmup {
			pi = 0
		}
		if parts[pi] == nil {
			parts[pi] = &windowAcc{byOp: map[string]*windowOp{}}
		}
		p := parts[pi]
		h := measure.NewHistogram()
		w.Hist.MergeInto(h)
		if tag.Kind == hlog.Pacing {
			p.pacing = h
			continue
		}
		a := p.byOp[tag.Op]
		if a == nil {
			a = &windowOp{}
			p.byOp[tag.Op] = a
			p.names = append(p.names, tag.Op)
		}
		switch tag.Kind {
		case hlog.Service:
			a.ok = h
			if a.latency == nil {
				a.latency = h
			}
		case hlog.Intended:
			a.latency = h
		case hlog.CutOff:
			a.cut = h
		case hlog.Failed:
			if tag.Op != runner.VerifySeries {
				a.errs = int64(math.Round(float64(h.TotalCount()) * errScale))
			}
		}
	}
	return parts
}

// window is the rows of the merged window that starts at t: the
// warm-up's part, when a loader's warm-up ended in the window, then the
// measured part. The latency is the one a user saw: response time where
// the loaders were paced, service time where not. Failure counts are
// scaled by errScale; data-integrity mismatches (VERIFY) are not
// operations' failures.
func window(id string, m *merge.Result, t time.Time, ws []merge.Window, errScale float64) []Part {
	parts := splitWindow(ws, errScale)
	end := t.Add(m.Window)
	var out []Part
	for pi, p := range parts {
		if p == nil {
			continue
		}
		warm := pi == 0
		mk := func(op string, ok, errs int64, h *hdrhistogram.Histogram) results.Point {
			pt := results.Point{Trial: id, Time: end, Elapsed: end.Sub(m.Start), Length: m.Window, Warmup: warm, Op: op,
				Ops: ok + errs, Errors: errs, Latency: results.LatencyOf(measure.StatsOf(h))}
			pt.SetRates()
			return pt
		}
		part := Part{Start: t, Warm: warm, All: measure.NewHistogram()}
		for _, name := range p.names {
			a := p.byOp[name]
			var ok int64
			if a.ok != nil {
				ok = a.ok.TotalCount()
			}
			lat := a.latency
			if lat == nil {
				lat = measure.NewHistogram()
			}
			if a.cut != nil && lat == a.ok {
				// Service times: the cut-off operations join them
				// at their latency so far, as in a single process.
				withCut := measure.NewHistogram()
				withCut.Merge(lat)
				withCut.Merge(a.cut)
				lat = withCut
			}
			part.Points = append(part.Points, mk(name, ok, a.errs, lat))
			part.All.Merge(lat)
			part.Errs += a.errs
		}
		sum := mk(results.AllOps, part.All.TotalCount(), part.Errs, part.All)
		if p.pacing != nil {
			sum.Pacing = results.PacingOf(measure.StatsOf(p.pacing))
		}
		part.Points = append(part.Points, sum)
		out = append(out, part)
	}
	return out
}
