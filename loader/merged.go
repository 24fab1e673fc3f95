package loader

import (
	"fmt"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/measure/hlog"
	"github.com/dbarena/dbarena/merge"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
)

// OpsScale turns the values a merge holds into operations: a
// read-modify-write records its read and update besides itself, and a
// loader's summary counts it once. It is 1 where no operation nests
// others; 0 when the result is missing.
func OpsScale(m *merge.Result, res *runner.Result) float64 {
	if res == nil || m == nil {
		return 0
	}
	var values int64
	for name, h := range m.Totals {
		if tag := hlog.ParseTag(name); !tag.Warmup && tag.Kind == hlog.Service {
			values += h.TotalCount()
		}
	}
	if values == 0 {
		return 0
	}
	return float64(res.Measured.Operations-res.Measured.Errors) / float64(values)
}

// FillLost gives a loader that left no summary (nil in sums, by slot)
// one made from the intervals it streamed: its operations and failures
// by the tags' counts.
func FillLost(m *merge.Result, sums []*results.Summary) {
	byName := map[string]merge.Loader{}
	for _, l := range m.Loaders {
		byName[l.Name] = l
	}
	for i, sum := range sums {
		if sum != nil {
			continue
		}
		l, ok := byName[fmt.Sprintf("loader %d", i)]
		if !ok {
			continue
		}
		s := &results.Summary{StopReason: "lost"}
		for tag, c := range l.Counts {
			t := hlog.ParseTag(tag)
			if t.Warmup || t.Op == runner.VerifySeries {
				continue
			}
			switch t.Kind {
			case hlog.Service:
				s.Measured.Operations += c
			case hlog.Failed:
				s.Measured.Operations += c
				s.Measured.Errors += c
			}
		}
		sums[i] = s
	}
}

// Summaries are the summaries by loader, an empty one for a loader
// that left none and measured nothing.
func Summaries(sums []*results.Summary) []results.Summary {
	out := make([]results.Summary, len(sums))
	for i, s := range sums {
		if s != nil {
			out[i] = *s
		}
	}
	return out
}

// Result turns a merge into the runner's result for the trial
// row: one series per operation, histograms added, errors and counts
// from the loaders' summaries.
func Result(m *merge.Result, sums []results.Summary, cfg runner.Config) *runner.Result {
	intended := cfg.Paced()
	rs := measure.NewResults(runner.Series(), intended)
	var start, end time.Time
	for _, w := range m.Windows {
		if hlog.ParseTag(w.Tag).Warmup {
			continue
		}
		if start.IsZero() || w.Start.Before(start) {
			start = w.Start
		}
		if e := w.Start.Add(m.Window); e.After(end) {
			end = e
		}
	}
	var ops, errCount, aborted int64
	interrupted, errorStopped, stopReason := false, false, ""
	for i, sum := range sums {
		ops += sum.Measured.Operations
		errCount += sum.Measured.Errors
		aborted += sum.Measured.Aborted
		interrupted = interrupted || sum.Interrupted
		if !errorStopped && strings.Contains(sum.StopReason, core.StopOnErrorRate) {
			errorStopped, stopReason = true, fmt.Sprintf("loader %d of %d: %s", i, len(sums), sum.StopReason)
		}
	}
	for i := range rs {
		r := &rs[i]
		merged := func(k hlog.Kind) *hdrhistogram.Histogram { return m.Totals[hlog.Tag{Kind: k, Op: r.Name}.String()] }
		if h := merged(hlog.Service); h != nil {
			r.Service.Merge(h)
		}
		if h := merged(hlog.Intended); intended && h != nil {
			r.Response.Merge(h)
		}
		if h := merged(hlog.Failed); h != nil {
			r.ErrorLatency.Merge(h)
		}
		if h := merged(hlog.CutOff); h != nil && h.TotalCount() > 0 {
			// The loaders' windows closed on these: the stall flag
			// and a closed loop's latency count them.
			r.CutOff = measure.NewHistogram()
			r.CutOff.Merge(h)
		}
		for _, sum := range sums {
			for _, op := range sum.Measured.Ops {
				if op.Name == r.Name {
					for class, c := range op.Errors {
						r.Errors[class] += c
					}
					r.Aborted += op.Aborted
				}
			}
		}
		r.Counted = r.OK() + r.ErrorCount()
		r.CountedErrors = r.ErrorCount()
	}
	if h := m.Totals[hlog.Tag{Kind: hlog.Pacing}.String()]; intended && h != nil {
		// The log's PACING tag is every operation type's: kept with
		// the first series, which PacingHistogram merges all of.
		rs[0].Pacing.Merge(h)
	}
	phase := measure.NewPhase(start, end.Sub(start), rs)
	// The loaders counted composite operations once; their totals win
	// over the series' sums.
	phase.Operations, phase.Errors, phase.Aborted = ops, errCount, aborted
	phase.SetRates()
	// The loaders' INSERT latencies were their batches': so are the
	// merged ones (a lost loader's filled summary says nothing of it).
	for _, sum := range sums {
		for _, op := range sum.Measured.Ops {
			if op.BatchOf > 1 {
				phase.LabelBatches(op.BatchOf)
			}
		}
	}
	return &runner.Result{Phase: cfg.Phase, Config: cfg, Series: runner.Series(), Start: start, End: end,
		Measured: phase, MeasuredResults: rs, Interrupted: interrupted, ErrorStopped: errorStopped, StopReason: stopReason}
}
