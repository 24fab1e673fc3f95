package experiment

import (
	"errors"
	"fmt"
	"io"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
)

// trialObserver turns each collected interval into timeseries rows and
// HdrHistogram log lines, both flushed at once so that a killed run keeps
// every completed interval, and feeds the progress line.
type trialObserver struct {
	trial string
	w     *results.Writer
	hl    *runner.HlogObserver
	prog  *progress
	err   error
	// stages accumulate a schedule's stages: merged histograms, so that
	// each stage's percentiles are exact, not averaged per interval.
	stages []*stageAcc
	// rates are the measured intervals' successful operations per
	// second, in time order: what the steadiness judgement reads.
	rates []float64
}

// minRateInterval is the shortest interval whose rate counts: a run's
// last interval may be a sliver, whose rate is noise.
const minRateInterval = 500 * time.Millisecond

// addRate keeps a measured interval's rate from its ALL row.
func (o *trialObserver) addRate(all results.Point) {
	if !all.Warmup && all.Length >= minRateInterval {
		o.rates = append(o.rates, all.Rate)
	}
}

// stageAcc is one stage's measured intervals merged.
type stageAcc struct {
	hist       *hdrhistogram.Histogram
	ops, errs  int64
	start, end time.Time
}

func newTrialObserver(w *results.Writer, trial string, start time.Time, prog *progress) (*trialObserver, error) {
	hl, err := runner.CreateHlog(w.HdrPath(trial), start, "dbarena trial "+trial+"; values in nanoseconds")
	if err != nil {
		return nil, err
	}
	return &trialObserver{trial: trial, w: w, hl: hl, prog: prog}, nil
}

// Interval implements runner.Observer.
func (o *trialObserver) Interval(iv *runner.Interval) {
	o.hl.Interval(iv)
	var points []results.Point
	all := measure.NewHistogram()
	var allErrs, allAborted int64
	for i := range iv.Results {
		r := &iv.Results[i]
		ops, errs := r.OK(), r.ErrorCount()
		planned := i < len(iv.Planned) && iv.Planned[i]
		if ops == 0 && errs == 0 && r.Aborted == 0 && !planned {
			continue
		}
		h := r.Latency()
		all.Merge(h)
		allErrs += r.CountedErrors
		allAborted += r.Aborted
		points = append(points, point(o.trial, iv, r.Name, ops+errs, errs, r.Aborted, h))
	}
	sum := point(o.trial, iv, results.AllOps, iv.Ops, allErrs, allAborted, all)
	if p := iv.Results.PacingHistogram(); p != nil && p.TotalCount() > 0 {
		sum.Pacing = results.PacingOf(measure.StatsOf(p))
	}
	points = append(points, sum)
	o.addRate(sum)
	if iv.Stage >= 0 && !iv.Warmup {
		o.addStage(iv, all, allErrs)
	}
	if err := o.w.AddPoints(points); err != nil && o.err == nil {
		o.err = err
	}
	if o.prog != nil {
		o.prog.interval(iv, all, allErrs)
	}
}

func (o *trialObserver) addStage(iv *runner.Interval, all *hdrhistogram.Histogram, errs int64) {
	o.addStageSpan(iv.Stage, iv.Start, iv.End, all, iv.Ops, errs)
}

// addStageSpan adds one measured span (an interval, or a window merged
// from loaders) to stage i.
func (o *trialObserver) addStageSpan(i int, start, end time.Time, all *hdrhistogram.Histogram, ops, errs int64) {
	for len(o.stages) <= i {
		o.stages = append(o.stages, nil)
	}
	a := o.stages[i]
	if a == nil {
		a = &stageAcc{hist: measure.NewHistogram(), start: start}
		o.stages[i] = a
	}
	a.hist.Merge(all)
	a.ops += ops
	a.errs += errs
	a.end = end
}

// stageRows are the trial's per-stage rows (kind stage), numbered from 1,
// the run's own figures laid over row.
func (o *trialObserver) stageRows(row results.Trial, stages []runner.Stage) []results.Trial {
	var out []results.Trial
	for i, a := range o.stages {
		if a == nil || i >= len(stages) {
			continue
		}
		st := row
		st.ID = fmt.Sprintf("%s.stage%d", row.ID, i+1)
		st.Kind = results.KindStage
		st.Params = append(append([]results.Param(nil), row.Params...), results.Param{Key: "stage", Value: fmt.Sprint(i + 1)})
		st.Threads, st.TargetRate = stages[i].Threads, stages[i].Target
		st.Start, st.End, st.Duration = a.start, a.end, a.end.Sub(a.start)
		st.Operations, st.Errors, st.Aborted, st.Pacing = a.ops, a.errs, 0, results.PacingLateness{}
		st.SetRates()
		st.Latency = results.LatencyOf(measure.StatsOf(a.hist))
		st.Ops, st.Flags, st.Reference, st.Concurrency = nil, nil, results.Reference{}, 0
		out = append(out, st)
	}
	return out
}

// point is one row of timeseries.csv: ops completed operations, errs of
// them failed, aborted cut short by the stop; rates are per second of
// the interval's own length.
func point(trial string, iv *runner.Interval, op string, ops, errs, aborted int64, h *hdrhistogram.Histogram) results.Point {
	p := results.Point{Trial: trial, Time: iv.End, Elapsed: iv.Elapsed, Length: iv.End.Sub(iv.Start), Warmup: iv.Warmup, Op: op,
		Ops: ops, Errors: errs, Aborted: aborted, Latency: results.LatencyOf(measure.StatsOf(h)), Stage: iv.Stage + 1}
	p.SetRates()
	return p
}

// Close flushes the log and returns the first error met.
func (o *trialObserver) Close() error { return errors.Join(o.err, o.hl.Close()) }

// progress prints one line per interval: trial i of N, live ops/s and
// p99, and the time left. On a terminal it rewrites one line; elsewhere it
// prints every tenth interval, so a log file stays readable.
type progress struct {
	w        io.Writer
	terminal bool
	label    string
	// eta returns the time left in the plan given the current step's
	// elapsed time.
	eta func(elapsed time.Duration) time.Duration
	n   int
}

func (p *progress) interval(iv *runner.Interval, all *hdrhistogram.Histogram, errs int64) {
	secs := iv.End.Sub(iv.Start).Seconds()
	rate, errRate := 0.0, 0.0
	if secs > 0 {
		rate, errRate = float64(iv.Ops-errs)/secs, float64(errs)/secs
	}
	detail := fmt.Sprintf("p99 %8.2f ms", float64(all.ValueAtQuantile(99))/1e6)
	if errs > 0 {
		detail += fmt.Sprintf("  %.0f errors/s", errRate)
	}
	p.show(iv.Elapsed, iv.Warmup, rate, detail)
}

// loaders shows the merged rate of a trial's loaders, read from their
// streams as they arrive, as interval does a trial run here.
func (p *progress) loaders(elapsed time.Duration, rate float64, warm bool, reporting, n int) {
	p.show(elapsed, warm, rate, fmt.Sprintf("%d of %d loaders sending", reporting, n))
}

// show writes the live line: rewritten in place on a terminal, every
// 10th one on a line of its own elsewhere.
func (p *progress) show(elapsed time.Duration, warm bool, rate float64, detail string) {
	p.n++
	if !p.terminal && p.n%10 != 0 {
		return
	}
	phase := " measuring"
	if warm {
		phase = " warm-up  "
	}
	line := fmt.Sprintf("%s %5.0fs%s %9.0f ops/s  %s  ETA %s", p.label, elapsed.Seconds(), phase, rate, detail,
		p.eta(elapsed).Round(time.Second))
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// done clears a terminal's rewritten line: the trial's summary line
// takes its place.
func (p *progress) done() {
	if p.terminal && p.n > 0 {
		fmt.Fprint(p.w, "\r\033[K")
	}
	p.n = 0
}
