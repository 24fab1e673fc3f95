package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dbarena/dbarena/internal/plural"
	"github.com/dbarena/dbarena/results"
)

// timeline indexes the time series: each trial's merged ("ALL") points
// in elapsed order, and the clock that puts trials and system metrics on
// one axis.
type timeline struct {
	// t0 is the experiment's start; x values are measured from it.
	t0 time.Time
	// minutes says the experiment is long enough to count in minutes.
	minutes bool
	points  map[string][]results.Point
	// lengths says every point's Length was recorded (format 2): a zero
	// is then a row of no length, not one whose length is unknown.
	lengths bool
}

func newTimeline(d *results.Data) *timeline {
	tl := &timeline{t0: d.Manifest.Start, points: map[string][]results.Point{}, lengths: d.Manifest.Format >= 2}
	var first, last time.Time
	see := func(t time.Time) {
		if t.IsZero() {
			return
		}
		if first.IsZero() || t.Before(first) {
			first = t
		}
		if t.After(last) {
			last = t
		}
	}
	for _, p := range d.Points {
		if p.Op == results.AllOps {
			tl.points[p.Trial] = append(tl.points[p.Trial], p)
		}
		see(p.Time)
	}
	for _, ps := range tl.points {
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].Elapsed < ps[j].Elapsed })
	}
	for i := range d.Trials {
		see(d.Trials[i].Start)
		see(d.Trials[i].End)
	}
	for i := range d.Sys {
		see(d.Sys[i].Time)
	}
	if tl.t0.IsZero() {
		tl.t0 = first
	}
	tl.minutes = last.Sub(tl.t0) > 15*time.Minute
	return tl
}

// x places a wall-clock time on the shared axis.
func (tl *timeline) x(t time.Time) float64 {
	d := t.Sub(tl.t0).Seconds()
	if tl.minutes {
		return d / 60
	}
	return d
}

// label names the shared axis.
func (tl *timeline) label() string {
	if tl.minutes {
		return "minutes since the experiment started"
	}
	return "seconds since the experiment started"
}

// warmup returns the span of a trial's warm-up in its own elapsed
// seconds, ok false when it had none. It ends with the warm-up's last
// part, not with a tail of warm-up operations completed later.
func warmup(ps []results.Point) (lo, hi float64, ok bool) {
	first := firstMeasured(ps)
	for i, p := range ps {
		if !p.Warmup || p.Elapsed >= first {
			continue
		}
		if !ok {
			lo = 0
			if p.Length > 0 {
				lo = (p.Elapsed - p.Length).Seconds()
			} else if i > 0 {
				lo = ps[i-1].Elapsed.Seconds()
			}
			ok = true
		}
		hi = p.Elapsed.Seconds()
	}
	return lo, hi, ok
}

// measuredFrom is when a trial's measured window began, in its elapsed
// seconds: the start of its first measured interval (0 when it has
// none).
func measuredFrom(ps []results.Point) float64 {
	for i, p := range ps {
		switch {
		case p.Warmup:
			continue
		case p.Length > 0:
			return (p.Elapsed - p.Length).Seconds()
		case i > 0:
			return ps[i-1].Elapsed.Seconds()
		}
		return 0
	}
	return 0
}

// firstMeasured is when the first measured interval of a trial's points
// ended, in its elapsed time (the largest duration when none did).
func firstMeasured(ps []results.Point) time.Duration {
	for _, p := range ps {
		if !p.Warmup {
			return p.Elapsed
		}
	}
	return math.MaxInt64
}

// partialShare is the share of a trial's collection interval below
// which a part of an interval is not drawn as a rate. A quarter of the
// runner's second still holds thousands of operations at the rates
// databases run at, so the few that a boundary puts on either side
// (one per worker at most) move it by well under a percent.
const partialShare = 0.25

// minInterval is the shortest collection interval a trial is taken to
// have: the runner collects every second (runner.Settings), and a trial
// whose every row is shorter ran for less than one, which is no
// interval to draw a rate over either.
const minInterval = time.Second

// drawn returns the points of one trial's series that an over-time
// figure draws as rates, in elapsed order, and how many it left out. It
// leaves rows out rather than merging them into a neighbour of the same
// phase: the merged rate would be exact (operations over the summed
// lengths), but not its p99, as two rows' percentiles do not combine.
// Left out are:
//   - parts of an interval shorter than partialShare of the trial's
//     interval: the collector splits the interval a warm-up or a stage
//     ends in at that moment, and the run's last ends with the run;
//     their rates are exact per second of their own length, but over a
//     few milliseconds they are mostly noise (earlier versions of the runner
//     also put into them operations completed after their end);
//   - rows of no length, which earlier versions of the runner wrote for warm-up
//     operations that completed after the warm-up's last part;
//   - warm-up rows from the first measured one on: operations still
//     running when the warm-up ended, at most one per worker, whose
//     count over an interval is no rate of the trial's and whose latency
//     is the boundary's.
func (tl *timeline) drawn(ps []results.Point) (kept []results.Point, left int) {
	nominal := minInterval
	for _, p := range ps {
		nominal = max(nominal, p.Length)
	}
	shortest := time.Duration(partialShare * float64(nominal))
	first := firstMeasured(ps)
	for _, p := range ps {
		switch {
		case p.Length == 0 && tl.lengths,
			p.Length > 0 && p.Length < shortest,
			p.Warmup && p.Elapsed >= first:
			left++
		default:
			kept = append(kept, p)
		}
	}
	return kept, left
}

// series returns a trial's x (elapsed seconds), successful ops/s and p99
// (ms) of the points it draws, and how many it left out (drawn).
func (tl *timeline) series(ps []results.Point) (xs, rate, p99 []float64, left int) {
	kept, left := tl.drawn(ps)
	for _, p := range kept {
		xs = append(xs, p.Elapsed.Seconds())
		rate = append(rate, p.Rate)
		p99 = append(p99, p.Latency.P99/1e3)
	}
	return xs, rate, p99, left
}

// partialNote is the caption's word on the rows drawn left out.
func partialNote(left int) string {
	if left == 0 {
		return ""
	}
	return fmt.Sprintf(" Left out: %s at a boundary (the part where a warm-up or stage ended, or the run did, shorter than a quarter of an interval; warm-up operations that completed after the warm-up ended).",
		plural.Count(left, "partial interval"))
}

// stageMarks returns where each stage of a schedule after the first
// begins, in the trial's elapsed seconds (the end of the interval before
// it: the collector closes an interval at each boundary), and labels.
func stageMarks(ps []results.Point) (xs []float64, labels []string) {
	for i := 1; i < len(ps); i++ {
		if ps[i].Stage > 0 && ps[i].Stage != ps[i-1].Stage {
			xs = append(xs, ps[i-1].Elapsed.Seconds())
			labels = append(labels, fmt.Sprintf("stage %d", ps[i].Stage))
		}
	}
	return xs, labels
}

// firstWithPoints returns the trial of the lowest repetition that has
// points: over-time figures show one repetition, not a tangle of all.
func (tl *timeline) firstWithPoints(ts []*results.Trial) *results.Trial {
	var best *results.Trial
	for _, t := range ts {
		if len(tl.points[t.ID]) == 0 {
			continue
		}
		if best == nil || t.Repetition < best.Repetition {
			best = t
		}
	}
	return best
}

// overtimeFigure draws throughput and p99 per interval of one row, one
// line per target, over the trial's elapsed time.
func overtimeFigure(s *summary, r *row, tl *timeline, name string) *figure {
	f := &figure{Name: name, Title: "Throughput and p99 over time, " + r.label,
		Caption: "Per interval, first repetition of each target, each line from the start of its own measured window (0 s); warm-ups (not measured) run before 0, shaded.",
		width:   wideWidth, panelHeight: stackHeight, legend: targetLegend(s, false), interactive: true}
	top, bottom := newPlot(), newPlot()
	sh := &shade{}
	top.Add(sh)
	bottom.Add(sh)
	// Stage boundaries of a schedule (run.stages), from the first target
	// that ran one: every target ran the same schedule.
	stages := &marks{}
	var p99s []float64
	xmin, xmax := 0.0, 0.0
	short := 0
	drawn := make([]bool, len(s.targets))
	for ti := range s.targets {
		t := tl.firstWithPoints(r.cells[ti].trials)
		if t == nil {
			continue
		}
		drawn[ti] = true
		ps := tl.points[t.ID]
		// Each line is drawn from its own measured window's start:
		// targets warm up for different lengths (until steady), and
		// on a shared elapsed clock one's warm-up shade would cover
		// another's measured seconds.
		origin := measuredFrom(ps)
		if len(stages.xs) == 0 {
			stages.xs, stages.labels = stageMarks(ps)
			for i := range stages.xs {
				stages.xs[i] -= origin
			}
		}
		xs, rate, p99, n := tl.series(ps)
		short += n
		if lo, _, ok := warmup(ps); ok {
			xmin = min(xmin, lo-origin)
		}
		for i := range xs {
			xs[i] -= origin
			xmin, xmax = min(xmin, xs[i]), max(xmax, xs[i])
		}
		addLine(top, xyLine(xs, rate, colorAt(ti), nil, false))
		if addLine(bottom, xyLine(xs, p99, colorAt(ti), nil, true)) {
			p99s = append(p99s, p99...)
		}
	}
	if xmin == 0 && xmax == 0 {
		f.Message = "No time series recorded for this workload (the trials have no points)."
		return f
	}
	if xmin < 0 {
		sh.spans = [][2]float64{{xmin, 0}}
	}
	f.keepDrawn(s, drawn, "No time series recorded for")
	f.Caption += partialNote(short)
	if len(stages.xs) > 0 {
		top.Add(stages)
		bottom.Add(&marks{xs: stages.xs})
		f.Caption += " Vertical lines mark where each stage of the schedule begins."
	}
	top.Y.Label.Text = "ops/s"
	top.Y.Tick.Marker = siTicks{}
	fromZero(top)
	if !useLog(bottom, p99s...) {
		fromZero(bottom)
	}
	bottom.Y.Label.Text = "p99 (ms)"
	f.panels = []*panel{top, bottom}
	stack(f.panels, xmin, xmax, "seconds from the start of the measured window (warm-up before 0)")
	return f
}

// loadFigure draws each target's load throughput over the load's
// elapsed time. A load of a few intervals gets its points marked, and
// one shorter than a whole interval is named as too short to chart
// rather than left as an empty frame.
func loadFigure(s *summary, tl *timeline, name string) *figure {
	f := &figure{Name: name, Title: "Load phase throughput", Caption: "Inserts per second during the load, first load of each target.",
		width: figWidth, panelHeight: panelHeight, legend: targetLegend(s, false), interactive: true}
	p := newPlot()
	drawn := make([]bool, len(s.targets))
	var tooShort []string
	short := 0
	for ti, target := range s.targets {
		var ts []*results.Trial
		for _, t := range s.loads {
			if _, tpcc := results.TPCCLoadOf(t); t.Target == target && !tpcc {
				ts = append(ts, t)
			}
		}
		t := tl.firstWithPoints(ts)
		if t == nil {
			continue
		}
		xs, rate, _, n := tl.series(tl.points[t.ID])
		short += n
		if addLine(p, xyLine(xs, rate, colorAt(ti), nil, false)) {
			drawn[ti] = true
		} else {
			tooShort = append(tooShort, fmt.Sprintf("%s (%s)", target, loadLength(t, tl.points[t.ID])))
		}
	}
	if len(tooShort) > 0 {
		f.Caption += fmt.Sprintf(" Too short to chart, shorter than one whole interval: %s; the trial table has its throughput.", strings.Join(tooShort, ", "))
	}
	var tpcc []string
	for _, t := range s.loads {
		if what, ok := results.TPCCLoadOf(t); ok {
			tpcc = append(tpcc, t.Target+": "+what)
		}
	}
	if len(tpcc) > 0 {
		// A warehouse a unit: its rate over time is a line of zeros.
		f.Caption += " A TPC-C load counts warehouses, not inserts: " + strings.Join(tpcc, ", ") + "."
	}
	if !slices.Contains(drawn, true) {
		f.Message = "No time series recorded for the load phase."
		if len(tooShort) > 0 {
			f.Message = "Each load was too short to chart over time: " + strings.Join(tooShort, ", ") + ". The trial table has its throughput."
		} else if len(tpcc) > 0 {
			f.Message = "Nothing to chart: a TPC-C load counts warehouses, not inserts (" + strings.Join(tpcc, ", ") + "); its rate over time would be a line of zeros."
		}
		return f
	}
	f.keepDrawn(s, drawn, "No load time series for")
	f.Caption += partialNote(short)
	p.Y.Label.Text = "ops/s"
	p.Y.Tick.Marker = siTicks{}
	fromZero(p)
	p.X.Min = 0
	p.X.Label.Text = "seconds since the load began"
	p.X.Tick.Marker = siTicks{}
	f.panels = []*panel{p}
	return f
}

// loadLength is how long a load took: its row's span, else its last
// interval's elapsed time; to the millisecond under a second, where
// fmtDuration would say "0s".
func loadLength(t *results.Trial, ps []results.Point) string {
	d := t.End.Sub(t.Start)
	if d <= 0 && len(ps) > 0 {
		d = ps[len(ps)-1].Elapsed
	}
	if d > 0 && d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return fmtDuration(d)
}
