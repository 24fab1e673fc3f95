package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/vg"

	"github.com/dbarena/dbarena/analysis/objective"
	"github.com/dbarena/dbarena/results"
)

// rateAxis is the matrix parameter a rate sweep varies: the target rate.
const rateAxis = "target"

// rateSweepView is the analysis of one rate sweep, for the template.
type rateSweepView struct {
	Label   string
	Targets []rateTargetView
}

// rateTargetView is one target's steps of a rate sweep.
type rateTargetView struct {
	Target string
	Steps  []rateStepView
	// Verdict states the max sustainable throughput at the SLO, or why
	// there is none.
	Verdict string
}

// rateStepView is one target rate.
type rateStepView struct {
	Rate, Achieved, Share, P50, P99 string
	// Meets is "meets" or what it missed.
	Meets string
	OK    bool
}

// rateStep is one measured step of one target.
type rateStep struct {
	target, achieved float64
	lat              results.Latency
}

// steps returns one target's steps of a rate sweep (the sweep's axis is
// the target rate), leaving out rates without a throughput.
func (sw *sweep) steps(ti int) []rateStep {
	var out []rateStep
	for i, r := range sw.rows {
		c := &r.cells[ti]
		if c.n == 0 || !finite(c.mean) {
			continue
		}
		out = append(out, rateStep{target: sw.ns[i], achieved: c.mean, lat: c.lat})
	}
	return out
}

// judge says whether a step met the objective (package objective): the
// latency bounds, and keeping up with its rate (an unthrottled step,
// rate 0, always does).
func judge(st rateStep, slo *results.SLO) (bool, string) {
	j := objective.Judge(slo, st.target, st.achieved, st.lat, 0)
	if j.Met() {
		return true, "meets"
	}
	return false, "misses: " + j.Why()
}

// analyzeRateSweep judges every step of every target of a rate sweep.
func analyzeRateSweep(s *summary, sw *sweep, slo *results.SLO) rateSweepView {
	v := rateSweepView{Label: sw.label}
	goal := fmt.Sprintf("keeping up with the target rate (at least %.0f%% of it)", 100*objective.Share(slo))
	if slo != nil {
		goal = fmt.Sprintf("the objective (%s, and at least %.0f%% of the target rate)", slo, 100*objective.Share(slo))
	}
	for ti, target := range s.targets {
		steps := sw.steps(ti)
		if len(steps) == 0 {
			continue
		}
		tv := rateTargetView{Target: target}
		best, bestRate, anyMiss := -1.0, 0.0, false
		for _, st := range steps {
			ok, why := judge(st, slo)
			share := dash
			if st.target > 0 {
				share = fmt.Sprintf("%.0f%%", 100*st.achieved/st.target)
			}
			tv.Steps = append(tv.Steps, rateStepView{Rate: fmtRate(st.target), Achieved: fmtRate(st.achieved), Share: share,
				P50: fmtMs(st.lat.P50), P99: fmtMs(st.lat.P99), Meets: why, OK: ok})
			if ok && st.achieved > best {
				best, bestRate = st.achieved, st.target
			}
			anyMiss = anyMiss || !ok
		}
		switch {
		case best < 0:
			tv.Verdict = fmt.Sprintf("No step met %s: the sustainable throughput is below the lowest rate tried (%s ops/s).", goal, fmtRate(steps[0].target))
		case !anyMiss:
			tv.Verdict = fmt.Sprintf("Every step met %s, up to %s ops/s: the ceiling lies above the highest rate tried; extend the sweep.", goal, fmtRate(best))
		default:
			tv.Verdict = fmt.Sprintf("Max sustainable throughput at %s: %s ops/s (target %s ops/s).", goal, fmtRate(best), fmtRate(bestRate))
		}
		v.Targets = append(v.Targets, tv)
	}
	return v
}

// atSLO is the client-sweep finding under an objective: the highest
// throughput of a thread count whose latencies met every bound.
func atSLO(s *summary, sw *sweep, ti int, slo *results.SLO) string {
	if slo == nil {
		return ""
	}
	best, bestN := -1.0, 0.0
	for i, r := range sw.rows {
		c := &r.cells[ti]
		if c.n > 0 && finite(c.mean) && objective.Judge(slo, 0, c.mean, c.lat, 0).Met() && c.mean > best {
			best, bestN = c.mean, sw.ns[i]
		}
	}
	if best < 0 {
		return "no thread count met " + slo.String()
	}
	return fmt.Sprintf("%s ops/s at %s threads (%s)", fmtRate(best), num(bestN), slo)
}

// sloLine is the objective's bound on p99, in ms, or NaN when it has
// none: the latency panels draw it as a horizontal line.
func sloLine(slo *results.SLO) float64 {
	if slo != nil {
		for _, b := range slo.Bounds {
			if b.Percentile == "p99" {
				return b.MaxMs
			}
		}
	}
	return math.NaN()
}

// addHLine draws a horizontal dashed grey line at y across [x0, x1].
func addHLine(p *panel, y, x0, x1 float64) {
	if !finite(y) {
		return
	}
	if l := xyLine([]float64{x0, x1}, []float64{y, y}, color.Gray{Y: 110}, dashed(), true); l != nil {
		p.Add(l)
	}
}

// rateSweepFigure draws achieved against target throughput with the
// y = x line, p50 and p99 against the target, and p99 against the
// achieved throughput, with the objective's p99 bound dashed.
func rateSweepFigure(s *summary, sw *sweep, slo *results.SLO, name string) *figure {
	f := &figure{Name: name, Title: "Rate sweep, " + sw.label,
		Caption: "Achieved against target throughput (grey: achieved = target), p99 (solid) and p50 (dotted) against the target, and p99 against the achieved throughput; a dashed grey line marks the objective's p99 bound.",
		width:   wideWidth, panelHeight: panelHeight, legend: targetLegend(s, false)}
	ap, lp, kp := newPlot(), newPlot(), newPlot()
	drawn := make([]bool, len(s.targets))
	var lats []float64
	maxT, maxX := 0.0, 0.0
	for ti := range s.targets {
		steps := sw.steps(ti)
		if len(steps) == 0 {
			continue
		}
		drawn[ti] = true
		clr := colorAt(ti)
		ts, xs, p99, p50 := make([]float64, len(steps)), make([]float64, len(steps)), make([]float64, len(steps)), make([]float64, len(steps))
		for i, st := range steps {
			ts[i], xs[i], p99[i], p50[i] = st.target, st.achieved, st.lat.P99/1e3, st.lat.P50/1e3
			maxT, maxX = math.Max(maxT, st.target), math.Max(maxX, st.achieved)
		}
		lats = append(lats, p99...)
		lats = append(lats, p50...)
		addLineWithDots(ap, ts, xs, clr)
		addLineWithDots(lp, ts, p99, clr)
		if l := xyLine(ts, p50, clr, []vg.Length{1, 2}, true); l != nil {
			lp.Add(l)
		}
		addLineWithDots(kp, xs, p99, clr)
	}
	if !anyTrue(drawn) {
		f.Message = "No throughput measured in this sweep."
		return f
	}
	f.keepDrawn(s, drawn, "No sweep points for")
	top := math.Max(maxT, maxX) * 1.05
	if l := xyLine([]float64{0, top}, []float64{0, top}, color.Gray{Y: 170}, nil, false); l != nil {
		ap.Add(l)
	}
	ap.X.Min, ap.X.Max, ap.Y.Min, ap.Y.Max = 0, top, 0, top
	ap.Y.Label.Text = "achieved (ops/s)"
	ap.Y.Tick.Marker = siTicks{}
	for _, p := range []*panel{ap, lp} {
		p.X.Label.Text = "target (ops/s)"
		p.X.Tick.Marker = siTicks{}
	}
	lp.X.Min, lp.X.Max = 0, maxT*1.05
	lp.Y.Label.Text = "latency (ms)"
	kp.X.Label.Text = "achieved (ops/s)"
	kp.X.Tick.Marker = siTicks{}
	kp.X.Min, kp.X.Max = 0, maxX*1.05
	kp.Y.Label.Text = "p99 (ms)"
	bound := sloLine(slo)
	addHLine(lp, bound, 0, maxT*1.05)
	addHLine(kp, bound, 0, maxX*1.05)
	if finite(bound) {
		lats = append(lats, bound)
	}
	for _, p := range []*panel{lp, kp} {
		if !useLog(p, lats...) {
			fromZero(p)
		}
	}
	f.panels = []*panel{ap, lp, kp}
	return f
}
