package report

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/dbarena/dbarena/analysis/saturation"
	"github.com/dbarena/dbarena/results"
)

// sweepAxis is the matrix parameter a client sweep varies.
const sweepAxis = "threads"

// minSweepPoints is the fewest distinct thread counts that make a sweep
// worth drawing (and a USL fit possible).
const minSweepPoints = 3

// Saturation analysis settings: a step that gains under 5% counts as
// flat, and two flat steps in a row make a plateau; latencies are also
// quoted at 75% of the maximum throughput, as a ScyllaDB/DynamoDB study
// reported everything at 75% utilisation.
const (
	plateauGain  = 0.05
	plateauSteps = 2
	sweepShare   = 0.75
)

// sweep is one client sweep: the rows of one workload and matrix point
// other than the thread count, in increasing thread order.
type sweep struct {
	label string
	rows  []*row
	ns    []float64
}

// findSweeps groups the summary's rows into sweeps over the threads axis.
func findSweeps(s *summary) []*sweep { return findSweepsOn(s, sweepAxis) }

// findSweepsOn groups the summary's rows into sweeps over a matrix axis
// (threads for client sweeps, target for rate sweeps).
func findSweepsOn(s *summary, axis string) []*sweep {
	byKey := map[string]*sweep{}
	var order []*sweep
	for _, r := range s.rows {
		n, rest, ok := splitAxis(r.params, axis)
		if !ok {
			continue
		}
		key := r.workload + "|" + rest
		sw := byKey[key]
		if sw == nil {
			label := r.workload
			if rest != "" {
				label += " · " + rest
			}
			sw = &sweep{label: label}
			byKey[key] = sw
			order = append(order, sw)
		}
		sw.rows = append(sw.rows, r)
		sw.ns = append(sw.ns, n)
	}
	var out []*sweep
	for _, sw := range order {
		sort.Sort(byN{sw})
		if len(sw.ns) >= minSweepPoints {
			out = append(out, sw)
		}
	}
	return out
}

type byN struct{ *sweep }

func (b byN) Len() int           { return len(b.ns) }
func (b byN) Less(i, j int) bool { return b.ns[i] < b.ns[j] }
func (b byN) Swap(i, j int) {
	b.ns[i], b.ns[j] = b.ns[j], b.ns[i]
	b.rows[i], b.rows[j] = b.rows[j], b.rows[i]
}

// splitAxis takes the axis out of a matrix point: its value, and the
// remaining parameters as a label.
func splitAxis(ps []results.Param, axis string) (float64, string, bool) {
	var n float64
	found := false
	var rest []string
	for _, p := range ps {
		if p.Key == axis {
			v, err := strconv.ParseFloat(p.Value, 64)
			if err != nil {
				return 0, "", false
			}
			n, found = v, true
			continue
		}
		rest = append(rest, p.Key+"="+p.Value)
	}
	return n, strings.Join(rest, " "), found
}

// points returns one target's sweep: threads, mean throughput and mean
// p99 (ms), leaving out thread counts it has no throughput for.
func (sw *sweep) points(ti int) []saturation.Point {
	var pts []saturation.Point
	for i, r := range sw.rows {
		c := &r.cells[ti]
		if c.n == 0 || !finite(c.mean) {
			continue
		}
		pts = append(pts, saturation.Point{N: sw.ns[i], X: c.mean, Latency: c.lat.P99 / 1e3})
	}
	return pts
}

// sweepFinding is what the analysis says of one target's sweep.
type sweepFinding struct {
	Target string
	// MaxX is the highest throughput and MaxN its thread count; Max says
	// both.
	MaxX, MaxN float64
	Max        string
	// Plateau describes where throughput stopped growing.
	Plateau string
	// Knee is the thread count of maximum power (throughput / p99).
	Knee string
	// AtShare is the p99 at 75% of the maximum throughput.
	AtShare string
	// USL is the fit's summary, or why there is none.
	USL string
	// AtSLO is the highest throughput that met the objective ("" when
	// the experiment states none).
	AtSLO string
}

// analyzeSweep fits and summarizes every target of a sweep.
func analyzeSweep(s *summary, sw *sweep, slo *results.SLO) []sweepFinding {
	var out []sweepFinding
	for ti, target := range s.targets {
		pts := sw.points(ti)
		if len(pts) < minSweepPoints {
			continue
		}
		f := sweepFinding{Target: target}
		sat, err := saturation.Find(pts, plateauGain, plateauSteps)
		if err == nil {
			f.MaxX, f.MaxN = pts[sat.MaxIndex].X, pts[sat.MaxIndex].N
			f.Max = fmt.Sprintf("%s ops/s at %s threads", fmtRate(f.MaxX), num(f.MaxN))
			if sat.Index >= 0 {
				f.Plateau = fmt.Sprintf("from %s threads (each of the next %d steps gained under %.0f%%)",
					num(pts[sat.Index].N), plateauSteps, plateauGain*100)
			} else {
				f.Plateau = "not reached: throughput still grew"
			}
		}
		if k, err := saturation.Knee(pts); err == nil {
			f.Knee = fmt.Sprintf("%s threads (%s ops/s at p99 %s)", num(pts[k].N), fmtRate(pts[k].X), fmtMs(pts[k].Latency*1e3))
		}
		if l, err := saturation.LatencyAtShare(pts, sweepShare); err == nil {
			f.AtShare = fmt.Sprintf("p99 %s at %s ops/s", fmtMs(l*1e3), fmtRate(sweepShare*f.MaxX))
		}
		f.USL = fitSummary(pts)
		f.AtSLO = atSLO(s, sw, ti, slo)
		out = append(out, f)
	}
	return out
}

// sweepFigure draws throughput and p99 against threads for every target,
// with the fitted USL curve dashed, and p99 against throughput with each
// target's knee ringed.
func sweepFigure(s *summary, sw *sweep, slo *results.SLO, name string) *figure {
	f := &figure{Name: name, Title: "Client sweep, " + sw.label,
		Caption: "Throughput and p99 against client threads (dashed: the Universal Scalability Law fitted to the points), and p99 against throughput with each target's knee (maximum throughput / p99) ringed.",
		width:   wideWidth, panelHeight: panelHeight, legend: targetLegend(s, false)}
	tp, lp, kp := newPlot(), newPlot(), newPlot()
	drawn := make([]bool, len(s.targets))
	var lats []float64
	maxN := 0.0
	for ti := range s.targets {
		pts := sw.points(ti)
		if len(pts) == 0 {
			continue
		}
		drawn[ti] = true
		clr := colorAt(ti)
		ns, xs, ls := make([]float64, len(pts)), make([]float64, len(pts)), make([]float64, len(pts))
		for i, p := range pts {
			ns[i], xs[i], ls[i] = p.N, p.X, p.Latency
			maxN = math.Max(maxN, p.N)
		}
		lats = append(lats, ls...)
		addLineWithDots(tp, ns, xs, clr)
		addLineWithDots(lp, ns, ls, clr)
		addLineWithDots(kp, xs, ls, clr)
		if curve := fitCurve(pts); curve != nil {
			cx, cy := sampleCurve(curve, ns[0], ns[len(ns)-1])
			if l := xyLine(cx, cy, clr, dashed(), true); l != nil {
				tp.Add(l)
			}
		}
		if k, err := saturation.Knee(pts); err == nil {
			ring, err := plotter.NewScatter(plotter.XYs{{X: xs[k], Y: ls[k]}})
			if err == nil {
				ring.Shape = draw.CircleGlyph{}
				ring.Color = clr
				ring.Radius = vg.Points(6)
				ring.Shape = draw.RingGlyph{}
				kp.Add(ring)
			}
		}
	}
	if !anyTrue(drawn) {
		f.Message = "No throughput measured in this sweep."
		return f
	}
	f.keepDrawn(s, drawn, "No sweep points for")
	for _, p := range []*panel{tp, lp} {
		p.X.Min = 0
		p.X.Max = maxN * 1.05
		p.X.Tick.Marker = siTicks{}
		p.X.Label.Text = "client threads"
	}
	tp.Y.Label.Text = "throughput (ops/s)"
	tp.Y.Tick.Marker = siTicks{}
	fromZero(tp)
	lp.Y.Label.Text = "p99 (ms)"
	if !useLog(lp, lats...) {
		fromZero(lp)
	}
	kp.X.Label.Text = "throughput (ops/s)"
	kp.X.Tick.Marker = siTicks{}
	kp.Y.Label.Text = "p99 (ms)"
	if bound := sloLine(slo); finite(bound) {
		addHLine(kp, bound, 0, kp.X.Max)
		lats = append(lats, bound)
	}
	if !useLog(kp, lats...) {
		fromZero(kp)
	}
	f.panels = []*panel{tp, lp, kp}
	return f
}

func addLineWithDots(p *panel, xs, ys []float64, clr color.Color) {
	line := xyLine(xs, ys, clr, nil, true)
	if line == nil {
		return
	}
	dots, err := plotter.NewScatter(line.XYs)
	if err != nil {
		return
	}
	dots.Color = clr
	dots.Shape = draw.CircleGlyph{}
	dots.Radius = vg.Points(2.5)
	p.Add(line, dots)
}

// sampleCurve evaluates f at 100 points over [lo, hi].
func sampleCurve(f func(float64) float64, lo, hi float64) ([]float64, []float64) {
	const n = 100
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i] = lo + (hi-lo)*float64(i)/(n-1)
		ys[i] = f(xs[i])
	}
	return xs, ys
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

// num prints a thread count without a decimal part.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
