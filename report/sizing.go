package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/dbarena/dbarena/analysis/cost"
	"github.com/dbarena/dbarena/analysis/sizing"
	"github.com/dbarena/dbarena/results"
)

// sizingLevel is the level of the prediction band the figure draws.
const sizingLevel = 0.9

// sizingFigures draws, for each database and workload searched at two or
// more sizes of known cores, its capacity at the objective against
// cores: each size's rate met with a whisker up to the rate missed, and
// with three or more sizes the fit over cores (dashed) with its 90%
// prediction band. The caption prices each size and gives each one's
// error when predicted from the others.
func sizingFigures(d *results.Data, name func(string) string) []*figure {
	var out []*figure
	for _, sz := range sizingAnswers(d) {
		g := sz.group
		var sized []sizing.Measured
		for _, m := range g.Sizes {
			if m.Cores > 0 {
				sized = append(sized, m)
			}
		}
		if len(sized) < 2 {
			continue
		}
		out = append(out, sizingFigure(g, sized, sz.answer, name("sizes-"+g.Database+"-"+g.Workload)))
	}
	return out
}

// sized is one database's sizes and, with the experiment's goal, the
// answer to it.
type sized struct {
	group  *sizing.Group
	answer *sizing.Answer // nil: no goal
}

// sizingAnswers reads a results directory's searches over sizes, priced
// at the built-in catalogue's rates, and answers its goal if it has one.
func sizingAnswers(d *results.Data) []sized {
	if len(d.Manifest.Searches) == 0 {
		return nil
	}
	cat, err := cost.Default()
	if err != nil {
		return nil
	}
	pr := sizing.Pricing{Catalogue: cat, PerCore: sizing.DefaultPerCore, PerGiB: sizing.DefaultPerGiB}
	groups, err := sizing.Read([]*results.Data{d}, nil, pr)
	if err != nil {
		return nil
	}
	var out []sized
	for i := range groups {
		sz := sized{group: &groups[i]}
		if gl := d.Manifest.Goal; gl != nil {
			ask := sizing.Ask{Throughput: gl.Throughput, Headroom: gl.Headroom, Level: sizingLevel, Unit: sz.group.Unit}
			if a, err := sizing.Decide(sz.group.Sizes, sz.group.Candidates(nil, pr, ask), ask); err == nil {
				sz.answer = a
			}
		}
		out = append(out, sz)
	}
	return out
}

// sizingSentences are the verdict's answers to the experiment's goal,
// one per database and workload searched.
func sizingSentences(d *results.Data) []string {
	var out []string
	for _, sz := range sizingAnswers(d) {
		if sz.answer != nil {
			out = append(out, sz.answer.Sentence(sz.group))
		}
	}
	return out
}

func sizingFigure(g *sizing.Group, sized []sizing.Measured, answer *sizing.Answer, name string) *figure {
	f := &figure{Name: name, Title: fmt.Sprintf("Capacity by size, %s, workload %s", g.Database, g.Workload),
		width: figWidth, panelHeight: panelHeight}
	p := newPlot()
	clr := colorAt(0)
	maxC, maxY := 0.0, 0.0
	var xs, ys []float64
	var parts []string
	for _, m := range sized {
		maxC = math.Max(maxC, m.Cores)
		part := m.Label + ": "
		switch {
		case m.Refusal != "":
			part += "refused (" + m.Refusal + ")"
		case m.Rate == 0 && m.Ceiling == 0:
			part += "not judged (no probe was fair)"
		case m.Rate == 0:
			part += "no rate met"
		default:
			xs, ys = append(xs, m.Cores), append(ys, m.Rate)
			maxY = math.Max(maxY, m.Rate)
			part += fmtRate(m.Rate) + " " + g.Unit.Rate() + " met"
			if m.Ceiling > 0 {
				part += ", " + fmtRate(m.Ceiling) + " missed"
				maxY = math.Max(maxY, m.Ceiling)
				if l := xyLine([]float64{m.Cores, m.Cores}, []float64{m.Rate, m.Ceiling}, clr, nil, true); l != nil {
					p.Add(l)
				}
			}
		}
		if finite(m.Monthly) {
			part += fmt.Sprintf(", $%.2f a month", m.Monthly)
		}
		parts = append(parts, part)
	}
	if dots, err := plotter.NewScatter(xyOf(xs, ys)); err == nil && len(xs) > 0 {
		dots.Color, dots.Shape, dots.Radius = clr, draw.CircleGlyph{}, vg.Points(3)
		p.Add(dots)
	}
	caption := fmt.Sprintf("The highest rate each size sustained at %s (dots; whiskers reach the lowest rate that missed)", g.Objective)
	if fitted, top := addSizingFit(p, sized, maxC, clr, g.Unit); fitted != "" {
		caption += fitted
		maxY = math.Max(maxY, top)
	} else {
		p.X.Max = maxC * 1.1
		caption += "; three or more sizes are needed to fit capacity against cores"
	}
	f.Caption = caption + ". " + strings.Join(parts, "; ") + ". Sizes are priced at GCP's N2D per-vCPU and per-GiB rates (dbarena size prices them otherwise with --prices, --per-core, --per-gib)."
	if answer != nil {
		f.Caption += addSizingAnswer(p, answer, clr)
		maxY = math.Max(maxY, answer.Need)
	}
	if len(xs) == 0 {
		f.Message = "No size met the objective."
		if !slices.ContainsFunc(sized, func(m sizing.Measured) bool { return m.Refusal == "" }) {
			// Rates were met, by figures that describe the client or
			// the machine: not the same story as none met.
			f.Message = "Every size was refused: the figures it rests on describe the client or the machine (the caption says why)."
		}
		return f
	}
	p.X.Min = 0
	p.X.Label.Text = "cores"
	p.Y.Label.Text = g.Unit.Rate() + " at the objective"
	p.Y.Tick.Marker = siTicks{}
	p.Y.Min, p.Y.Max = 0, maxY*1.1
	f.panels = []*panel{p}
	return f
}

// addSizingFit draws the capacity curve fitted over cores with its
// prediction band, and returns its caption and the highest rate it
// draws; "" when fewer sizes than a fit needs met the objective.
func addSizingFit(p *panel, sized []sizing.Measured, maxC float64, clr color.RGBA, unit results.Unit) (caption string, top float64) {
	fit, err := sizing.Fit(sized)
	if err != nil {
		return "", 0
	}
	hi := maxC * 1.5
	cx, cy := sampleCurve(fit.Predict, maxC/20, hi)
	var lo, up plotter.XYs
	for _, x := range cx {
		l, h, ok := fit.Interval(x, sizingLevel)
		if ok {
			lo, up = append(lo, plotter.XY{X: x, Y: math.Max(l, 0)}), append(up, plotter.XY{X: x, Y: h})
			top = math.Max(top, math.Min(h, 2*fit.Predict(hi)))
		}
	}
	for _, b := range []plotter.XYs{lo, up} {
		if len(b) > 1 {
			bx, by := splitXY(b)
			if l := xyLine(bx, by, clr, []vg.Length{1, 2}, false); l != nil {
				p.Add(l)
			}
		}
	}
	if l := xyLine(cx, cy, clr, dashed(), true); l != nil {
		p.Add(l)
	}
	caption = fmt.Sprintf("; dashed: %s fitted over cores (λ %s %s per %g cores, σ %.3g, κ %.3g), dotted: its %.0f%% prediction band", fit.Model,
		fmtRate(fit.Lambda), unit.Rate(), fit.Unit, fit.Sigma, fit.Kappa, 100*sizingLevel)
	if a, err := sizing.Decide(sized, nil, sizing.Ask{Throughput: 1, Level: sizingLevel}); err == nil && len(a.HeldOut) > 0 {
		var ho []string
		for _, h := range a.HeldOut {
			ho = append(ho, fmt.Sprintf("%s %+.1f%%", h.Label, 100*h.Error))
		}
		caption += fmt.Sprintf(". Each size predicted from the others: %s", strings.Join(ho, ", "))
	}
	p.X.Max = hi
	return caption, top
}

// addSizingAnswer draws the goal's need and rings the size chosen for
// it, and returns their caption.
func addSizingAnswer(p *panel, answer *sizing.Answer, clr color.RGBA) string {
	addHLine(p, answer.Need, 0, p.X.Max)
	caption := fmt.Sprintf(" Grey dashed: the goal's need, %s %s", fmtRate(answer.Need), answer.Ask.Unit.Rate())
	if answer.Outcome != sizing.Answered {
		return caption + "; " + string(answer.Outcome) + ": " + answer.Reason + "."
	}
	c := answer.Options[answer.Choice]
	if ring, err := plotter.NewScatter(plotter.XYs{{X: c.Cores, Y: c.Capacity}}); err == nil && finite(c.Capacity) {
		ring.Color, ring.Shape, ring.Radius = clr, draw.RingGlyph{}, vg.Points(7)
		p.Add(ring)
	}
	return caption + fmt.Sprintf("; ringed: the answer, %s.", c.Label)
}

func xyOf(xs, ys []float64) plotter.XYs {
	out := make(plotter.XYs, len(xs))
	for i := range xs {
		out[i] = plotter.XY{X: xs[i], Y: ys[i]}
	}
	return out
}

func splitXY(v plotter.XYs) ([]float64, []float64) {
	xs, ys := make([]float64, len(v)), make([]float64, len(v))
	for i, p := range v {
		xs[i], ys[i] = p.X, p.Y
	}
	return xs, ys
}
