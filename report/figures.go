package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/dbarena/dbarena/results"
)

// maxFigures bounds the report: a 4-target x 24-point matrix would
// otherwise draw hundreds of figures nobody scrolls through, and each
// costs rendering time and page weight.
const maxFigures = 60

// maxSweepFigures bounds the client-sweep figures.
const maxSweepFigures = 12

// Figure sizes, in points (72 to the inch): a figure is about as wide as
// half a 1400-pixel page, or a single column of a paper at 150 dpi.
const (
	figWidth    = vg.Length(520)
	wideWidth   = vg.Length(840)
	panelHeight = vg.Length(200)
	stackHeight = vg.Length(130)
)

// figureGroup is a titled set of figures in the report.
type figureGroup struct {
	Title   string
	Note    string
	Figures []*figure
}

// buildFigures plans and draws every figure, within maxFigures. It
// returns the groups and a note when it left figures out.
func buildFigures(d *results.Data, s *summary) ([]figureGroup, string) {
	tl := newTimeline(d)
	names := map[string]int{}
	name := func(base string) string {
		slug := slugify(base)
		names[slug]++
		if n := names[slug]; n > 1 {
			slug = fmt.Sprintf("%s-%d", slug, n)
		}
		return slug
	}
	var groups []figureGroup
	overview := figureGroup{Title: "Overview"}
	if len(s.rows) > 0 {
		overview.Figures = append(overview.Figures, throughputFigure(s, name("throughput")))
	}
	if len(s.loads) > 0 {
		overview.Figures = append(overview.Figures, loadFigure(s, tl, name("load-throughput")))
	}
	resources := figureGroup{Title: "Resources over time",
		Note: "The whole experiment on one time axis (since it started), every target in its colour and on shared scales: throughput and p99 per interval, then CPU, memory, disk and network of the database hosts, the load generator and the machine; below, the databases' own metrics that moved (cache hits, waits, checkpoints...). Grey lines mark where each trial begins."}
	if f := resourceFigure(d, s, tl, name("resources")); f != nil {
		resources.Figures = append(resources.Figures, f)
	}
	if f := dbMetricsFigure(d, s, tl, name("database-metrics")); f != nil {
		resources.Figures = append(resources.Figures, f)
	}
	budget := maxFigures - len(overview.Figures) - len(resources.Figures)
	note := ""
	perRow := len(s.rows)
	if budget/3 < perRow {
		perRow = max(budget/3, 0)
		note = fmt.Sprintf("Per-workload figures are drawn for the first %d of %d workload rows only, to keep the report to at most %d figures; the tables cover every row.",
			perRow, len(s.rows), maxFigures)
	}
	if len(overview.Figures) > 0 {
		groups = append(groups, overview)
	}
	groups = append(groups, sweepGroups(s, d.Manifest.SLO, name)...)
	if figs := sizingFigures(d, name); len(figs) > 0 {
		groups = append(groups, figureGroup{Title: "Capacity by size", Figures: figs})
	}
	for _, r := range s.rows[:perRow] {
		groups = append(groups, figureGroup{Title: "Workload " + r.label, Figures: []*figure{
			latencyFigure(s, r, name("latency-"+r.label)),
			spectrumFigure(d, s, r, name("spectrum-"+r.label)),
			overtimeFigure(s, r, tl, name("overtime-"+r.label)),
		}})
	}
	if len(resources.Figures) > 0 {
		groups = append(groups, resources)
	}
	for _, g := range groups {
		for _, f := range g.Figures {
			f.render()
		}
	}
	return groups, note
}

// sweepGroups are the figures of the client sweeps and of the rate
// sweeps, at most maxSweepFigures of each.
func sweepGroups(s *summary, slo *results.SLO, name func(string) string) []figureGroup {
	var groups []figureGroup
	for _, k := range []struct {
		title, what, prefix, tables string
		axis                        string
		draw                        func(*summary, *sweep, *results.SLO, string) *figure
	}{
		{"Client sweeps", "sweeps", "sweep-", "the scalability table covers all", sweepAxis, sweepFigure},
		{"Rate sweeps", "rate sweeps", "rates-", "the rate sweep tables cover all", rateAxis, rateSweepFigure},
	} {
		sweeps := findSweepsOn(s, k.axis)
		if len(sweeps) == 0 {
			continue
		}
		g := figureGroup{Title: k.title}
		for i, sw := range sweeps {
			if i == maxSweepFigures {
				g.Note = fmt.Sprintf("Only the first %d of %d %s are drawn; %s.", maxSweepFigures, len(sweeps), k.what, k.tables)
				break
			}
			g.Figures = append(g.Figures, k.draw(s, sw, slo, name(k.prefix+sw.label)))
		}
		groups = append(groups, g)
	}
	return groups
}

// slugify makes a file-name-safe stem: "latency-a · threads=8" ->
// "latency-a-threads-8".
func slugify(s string) string {
	var b strings.Builder
	dashPending := false
	for _, r := range strings.ToLower(s) {
		ok := (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '_' || r == '.'
		if !ok {
			dashPending = b.Len() > 0
			continue
		}
		if dashPending {
			b.WriteByte('-')
			dashPending = false
		}
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return "figure"
	}
	return b.String()
}

// targetLegend keys the targets by colour.
func targetLegend(s *summary, box bool) []legendEntry {
	out := make([]legendEntry, len(s.targets))
	for i, t := range s.targets {
		out[i] = legendEntry{label: t, color: colorAt(i), box: box}
	}
	return out
}

// keepDrawn narrows a figure's legend to the targets it drew and says in
// the caption which it could not, so that a missing line reads as
// missing data rather than as a line hidden under another.
func (f *figure) keepDrawn(s *summary, drawn []bool, why string) {
	var legend []legendEntry
	var missing []string
	for i, e := range f.legend {
		if i < len(drawn) && drawn[i] {
			legend = append(legend, e)
		} else {
			missing = append(missing, s.targets[i])
		}
	}
	f.legend = legend
	if len(missing) > 0 {
		f.Caption += " " + why + ": " + strings.Join(missing, ", ") + "."
	}
}

// categoryAxis names the x positions and tilts long labels so they do not
// overlap.
func categoryAxis(p *panel, labels []string, width vg.Length) {
	ticks := make([]plot.Tick, len(labels))
	longest := vg.Length(0)
	for i, l := range labels {
		ticks[i] = plot.Tick{Value: float64(i), Label: l}
		longest = max(longest, p.X.Tick.Label.Width(l))
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Tick.Length = 0
	if longest > (width-vg.Points(60))/vg.Length(max(len(labels), 1))-vg.Points(6) {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
}

// throughputFigure is a grouped bar per row and target, with the
// min-max spread over repetitions as whiskers.
func throughputFigure(s *summary, name string) *figure {
	p := newPlot()
	b := &bars{groupGap: 0.25}
	labels := make([]string, len(s.rows))
	for i, r := range s.rows {
		labels[i] = r.label
	}
	for ti := range s.targets {
		vals, lo, hi := make([]float64, len(s.rows)), make([]float64, len(s.rows)), make([]float64, len(s.rows))
		for ri, r := range s.rows {
			c := &r.cells[ti]
			vals[ri], lo[ri], hi[ri] = c.mean, math.NaN(), math.NaN()
			if c.n > 1 {
				lo[ri], hi[ri] = c.min, c.max
			}
		}
		b.values, b.lo, b.hi = append(b.values, vals), append(b.lo, lo), append(b.hi, hi)
		b.colors = append(b.colors, colorAt(ti))
	}
	width := max(figWidth, min(vg.Length(len(s.rows)*len(s.targets))*14+120, 3*figWidth))
	p.Add(b)
	p.Y.Label.Text = "throughput (ops/s)"
	p.Y.Tick.Marker = siTicks{}
	p.Y.Min = 0
	categoryAxis(p, labels, width)
	caption := "Mean throughput per workload and target."
	if s.reps > 1 {
		caption += " Whiskers span the slowest to the fastest repetition."
	}
	return &figure{Name: name, Title: "Throughput per workload", Caption: caption,
		width: width, panelHeight: panelHeight + 20, legend: targetLegend(s, true), panels: []*panel{p}}
}

// latencyFigure marks p50, p95, p99 and p99.9 of each target for one
// row with dots. Not bars: on the log axis the percentiles need, a bar
// runs from an arbitrary floor, so its length means nothing (a p50 of
// 0.74 ms drew a tenth as long as one of 2.0 ms); a dot's height is the
// value on either axis.
func latencyFigure(s *summary, r *row, name string) *figure {
	f := &figure{Name: name, Title: "Latency percentiles, " + r.label,
		Caption: "Mean over repetitions of each percentile, in milliseconds; one dot per target.",
		width:   figWidth, panelHeight: panelHeight, legend: targetLegend(s, false)}
	if r.measured == 0 {
		f.Message = "No latency measured for this workload."
		return f
	}
	for i := range f.legend {
		f.legend[i].dot = true
	}
	p := newPlot()
	var all []float64
	drawn := make([]bool, len(s.targets))
	// Targets sit side by side within a percentile, so that equal values
	// do not hide one another.
	step := math.Min(0.15, 0.6/float64(len(s.targets)))
	for ti := range s.targets {
		l := r.cells[ti].lat
		vals := []float64{l.P50 / 1e3, l.P95 / 1e3, l.P99 / 1e3, l.P999 / 1e3}
		var xys plotter.XYs
		for cat, v := range vals {
			if finite(v) && v > 0 {
				xys = append(xys, plotter.XY{X: float64(cat) + (float64(ti)-float64(len(s.targets)-1)/2)*step, Y: v})
				all = append(all, v)
			}
		}
		if len(xys) == 0 {
			continue
		}
		drawn[ti] = true
		if pts, err := plotter.NewScatter(xys); err == nil {
			pts.Color, pts.Shape, pts.Radius = colorAt(ti), draw.CircleGlyph{}, vg.Points(3.5)
			p.Add(pts)
		}
	}
	f.keepDrawn(s, drawn, "No latency for")
	if useLog(p, all...) {
		f.Caption += " Log scale: the percentiles span more than a decade."
	} else {
		fromZero(p)
	}
	p.Y.Label.Text = "latency (ms)"
	categoryAxis(p, []string{"p50", "p95", "p99", "p99.9"}, f.width)
	p.X.Min, p.X.Max = -0.5, 3.5
	f.panels = []*panel{p}
	return f
}

// spectrumFigure draws each target's latency against the percentile on
// a "nines" axis: p50 to p99.9 from the trials' rows, p99.99 from their
// HDR logs, then the maximum. The maximum is one operation, not a
// percentile, so it is a ring at the end of a dashed line, and its tick
// says so.
func spectrumFigure(d *results.Data, s *summary, r *row, name string) *figure {
	f := &figure{Name: name, Title: "Latency spectrum, " + r.label,
		Caption: "Latency by percentile (x: 50, 90, 95, 99, 99.9, 99.99 on a log-of-nines axis, then the maximum), mean over repetitions. " +
			"The maximum is the single slowest operation of a repetition: a ring on a dashed line, not a percentile.",
		width: figWidth, panelHeight: panelHeight, legend: targetLegend(s, false)}
	xs := []float64{nines(50), nines(90), nines(95), nines(99), nines(99.9), nines(99.99)}
	const maxAt = 5 // the max one nine beyond p99.99
	p := newPlot()
	var all []float64
	drawn := make([]bool, len(s.targets))
	var noTail []string
	for ti := range s.targets {
		c := &r.cells[ti]
		p9999 := meanTail(d, c.trials)
		if !finite(p9999) && len(c.trials) > 0 {
			noTail = append(noTail, s.targets[ti])
		}
		l := c.lat
		ys := []float64{l.P50 / 1e3, l.P90 / 1e3, l.P95 / 1e3, l.P99 / 1e3, l.P999 / 1e3, p9999 / 1e3}
		pcts := spectrumLine(p, xs, ys, colorAt(ti))
		tail := spectrumMax(p, pcts, maxAt, l.Max/1e3, colorAt(ti))
		if len(pcts) == 0 && !tail {
			continue
		}
		drawn[ti] = true
		all = append(all, ys...)
		all = append(all, l.Max/1e3)
	}
	if !slices.Contains(drawn, true) {
		f.Message = "No latency measured for this workload."
		return f
	}
	f.keepDrawn(s, drawn, "No latency for")
	if len(noTail) > 0 {
		f.Caption += " No p99.99 for " + strings.Join(noTail, ", ") + ": no HDR log (hdr/) to read it from."
	}
	if !useLog(p, all...) {
		fromZero(p)
	}
	p.X.Min, p.X.Max = nines(50)-0.15, maxAt+0.15
	p.X.Tick.Marker = ninesTicks{maxAt: maxAt}
	p.X.Label.Text = "percentile"
	p.Y.Label.Text = "latency (ms)"
	f.panels = []*panel{p}
	return f
}

// spectrumLine adds the solid line and dots of one target's percentiles
// and returns the points drawn.
func spectrumLine(p *panel, xs, ys []float64, clr color.Color) plotter.XYs {
	line := xyLine(xs, ys, clr, nil, true)
	if line == nil {
		return nil
	}
	pts, err := plotter.NewScatter(line.XYs)
	if err != nil {
		return nil // unreachable: xyLine kept finite points only
	}
	pts.Color, pts.Shape, pts.Radius = clr, draw.CircleGlyph{}, vg.Points(2.5)
	p.Add(line, pts)
	return line.XYs
}

// spectrumMax adds a target's maximum as a ring, joined to its highest
// percentile by a dashed line, and reports whether it drew one.
func spectrumMax(p *panel, pcts plotter.XYs, at, max float64, clr color.Color) bool {
	if !finite(max) || max <= 0 {
		return false
	}
	if len(pcts) > 0 {
		last := pcts[len(pcts)-1]
		if l := xyLine([]float64{last.X, at}, []float64{last.Y, max}, clr, dashed(), true); l != nil {
			p.Add(l)
		}
	}
	ring, err := plotter.NewScatter(plotter.XYs{{X: at, Y: max}})
	if err != nil {
		return false
	}
	ring.Color, ring.Shape, ring.Radius = clr, draw.RingGlyph{}, vg.Points(4)
	p.Add(ring)
	return true
}

// meanTail is the mean p99.99 of trials from their HDR logs, in
// microseconds; NaN when none has a readable log.
func meanTail(d *results.Data, trials []*results.Trial) float64 {
	var vs []float64
	for _, t := range trials {
		if st, ok, _ := d.TrialStats(t.ID); ok && finite(st.P9999) {
			vs = append(vs, st.P9999)
		}
	}
	if len(vs) == 0 {
		return math.NaN()
	}
	return mean(vs)
}

// stack prepares panels that share an x range, labelling only the
// bottom one's axis.
func stack(panels []*panel, xmin, xmax float64, xlabel string) {
	for i, p := range panels {
		p.X.Min, p.X.Max = xmin, xmax
		p.X.Tick.Marker = siTicks{}
		if i < len(panels)-1 {
			p.X.Tick.Marker = unlabelled{siTicks{}}
		} else {
			p.X.Label.Text = xlabel
		}
	}
}

// unlabelled keeps a ticker's marks but drops their labels: the panels
// of a stack share the bottom panel's numbers.
type unlabelled struct{ plot.Ticker }

func (u unlabelled) Ticks(lo, hi float64) []plot.Tick {
	ts := u.Ticker.Ticks(lo, hi)
	for i := range ts {
		ts[i].Label = ""
	}
	return ts
}
