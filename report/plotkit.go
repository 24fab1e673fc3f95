package report

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// colorAt returns the i-th colour of the palette, cycling, that colours
// targets (and hosts) alike in every figure and in the tables' swatches.
// It is the Okabe-Ito set, which stays distinct for the common kinds of
// colour blindness, with its pale yellow replaced by an ochre that reads
// on white.
func colorAt(i int) color.RGBA {
	palette := [...]uint32{
		0x0072B2, // blue
		0xD55E00, // vermillion
		0x009E73, // bluish green
		0xCC79A7, // reddish purple
		0xE69F00, // orange
		0x56B4E9, // sky blue
		0x555555, // grey
		0x8C6D1F, // ochre
	}
	return rgb(palette[i%len(palette)])
}

// paletteSize is how many targets get a colour of their own.
const paletteSize = 8

// Colours of the figures' furniture, as 0xRRGGBB.
const (
	gridRGB    = 0xdddddd
	shadeRGB   = 0xeeeeee
	refRGB     = 0xfbeeb8 // a reference tool's run: pale yellow
	markRGB    = 0xbbbbbb
	textRGB    = 0x222222
	keyRGB     = 0x666666 // legend keys that stand for a line style, not a colour
	loaderRGB  = 0x222222 // the load generator's lines: dark
	machineRGB = 0x999999 // the machine as a whole: light
)

// rgb makes an opaque colour of 0xRRGGBB.
func rgb(v uint32) color.RGBA {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// hexColor writes c as "#rrggbb" for the HTML swatches.
func hexColor(c color.RGBA) string {
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

// dashed is the pattern of write / transmit lines; read / receive lines
// are solid.
func dashed() []vg.Length { return []vg.Length{4, 2} }

// sans is the figures' font: Liberation Sans is metric-compatible with
// Arial and Helvetica, so the inline SVG lays out alike where only those
// are installed (the page's CSS names them as fallbacks).
func sans(size vg.Length) font.Font {
	return font.From(font.Font{Typeface: "Liberation", Variant: "Sans"}, size)
}

// panel is one plot of a figure. It keeps what was added to it, which
// gonum/plot does not give back, for the figure's interactive version
// (chartOf) and for tests.
type panel struct {
	*plot.Plot
	items []plot.Plotter
}

// Add adds plotters to the plot and remembers them.
func (p *panel) Add(ps ...plot.Plotter) {
	p.Plot.Add(ps...)
	p.items = append(p.items, ps...)
}

// newPlot returns a plot in the report's style: sans-serif text, light
// horizontal grid lines, no title (the HTML caption has it).
func newPlot() *panel {
	p := &panel{Plot: plot.New()}
	for _, sty := range []*text.Style{&p.X.Label.TextStyle, &p.Y.Label.TextStyle} {
		sty.Font = sans(11)
		sty.Color = rgb(textRGB)
	}
	for _, sty := range []*text.Style{&p.X.Tick.Label, &p.Y.Tick.Label} {
		sty.Font = sans(10)
		sty.Color = rgb(textRGB)
	}
	p.X.Padding, p.Y.Padding = vg.Points(2), vg.Points(2)
	g := plotter.NewGrid()
	g.Vertical.Color = nil
	g.Horizontal.Color = rgb(gridRGB)
	g.Horizontal.Width = vg.Points(0.5)
	p.Add(g)
	return p
}

// siTicks are the default linear ticks labelled "12k", "1.5M".
type siTicks struct{}

func (siTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = fmtSI(ts[i].Value)
		}
	}
	return ts
}

// logTicks label 1, 2 and 5 of each decade when the axis spans at most
// three decades (else only the powers of ten), so that a log axis always
// has a few numbers on it.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	dense := math.Log10(hi/lo) <= 3
	var ts []plot.Tick
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		base := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := base * float64(m)
			t := plot.Tick{Value: v}
			if m == 1 || (dense && (m == 2 || m == 5)) {
				t.Label = fmtSI(v)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// useLog sets the plot's y axis to a log scale when the values span at
// least a decade: p50 next to p99.9 on a linear axis leaves p50 a flat
// line at zero. It returns whether it did.
func useLog(p *panel, vals ...float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if finite(v) && v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if !finite(lo) || hi/lo < 10 {
		p.Y.Tick.Marker = siTicks{}
		return false
	}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{}
	p.Y.Min, p.Y.Max = lo/1.3, hi*1.3
	return true
}

// fromZero starts a linear y axis at zero, so that a difference is not
// magnified by a cut-off axis, and leaves headroom so that a line at its
// peak does not run along the frame.
func fromZero(p *panel) {
	p.Y.Min = 0
	if finite(p.Y.Max) && p.Y.Max > 0 {
		p.Y.Max *= 1.08
	}
}

// bars is a grouped bar chart: one group per category along x, one bar
// per series within it, with optional whiskers (the spread over
// repetitions). It draws bars from the axis minimum, so it also works on
// a log axis, where plotter.BarChart's bars from zero cannot.
type bars struct {
	// values[s][c] is series s in category c; NaN leaves a gap.
	values   [][]float64
	lo, hi   [][]float64
	colors   []color.Color
	groupGap float64
}

func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := float64(len(b.values))
	w := (1 - b.groupGap) / n
	base := math.Max(p.Y.Min, 0)
	if _, isLog := p.Y.Scale.(plot.LogScale); isLog {
		base = p.Y.Min
	}
	for s, vs := range b.values {
		for cat, v := range vs {
			if !finite(v) || v <= base {
				continue
			}
			x0 := float64(cat) - (1-b.groupGap)/2 + float64(s)*w
			pts := []vg.Point{{X: trX(x0), Y: trY(base)}, {X: trX(x0 + w), Y: trY(base)},
				{X: trX(x0 + w), Y: trY(v)}, {X: trX(x0), Y: trY(v)}}
			c.FillPolygon(b.colors[s], c.ClipPolygonXY(pts))
			if b.lo != nil && finite(b.lo[s][cat]) && finite(b.hi[s][cat]) && b.hi[s][cat] > b.lo[s][cat] {
				b.whisker(c, trX(x0+w/2), trY(b.lo[s][cat]), trY(b.hi[s][cat]), trX(x0+w)-trX(x0))
			}
		}
	}
}

// whisker draws a min-max range over a bar.
func (b *bars) whisker(c draw.Canvas, x, y0, y1, barW vg.Length) {
	sty := draw.LineStyle{Color: rgb(textRGB), Width: vg.Points(0.8)}
	tick := barW / 4
	c.StrokeLine2(sty, x, y0, x, y1)
	c.StrokeLine2(sty, x-tick, y0, x+tick, y0)
	c.StrokeLine2(sty, x-tick, y1, x+tick, y1)
}

func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymax = math.Inf(-1)
	ncat := 0
	for s, vs := range b.values {
		ncat = max(ncat, len(vs))
		for cat, v := range vs {
			if finite(v) {
				ymax = math.Max(ymax, v)
			}
			if b.hi != nil && finite(b.hi[s][cat]) {
				ymax = math.Max(ymax, b.hi[s][cat])
			}
		}
	}
	if !finite(ymax) || ymax <= 0 {
		ymax = 1
	}
	return -0.5, float64(ncat) - 0.5, 0, ymax * 1.08
}

// shade fills x ranges across the whole height: the warm-up, which is
// run but not measured (grey), or where a reference tool ran (refRGB),
// each labelled along the top when there is room.
type shade struct {
	spans  [][2]float64
	labels []string
	rgb    uint32 // 0: shadeRGB
}

func (s *shade) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	clr := rgb(shadeRGB)
	if s.rgb != 0 {
		clr = rgb(s.rgb)
	}
	fill := translucent(clr)
	lab := draw.TextStyle{Color: rgb(textRGB), Font: sans(7), Handler: p.TextHandler, XAlign: draw.XLeft, YAlign: draw.YTop}
	for i, sp := range s.spans {
		x0, x1 := trX(sp[0]), trX(sp[1])
		pts := []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}}
		c.FillPolygon(fill, c.ClipPolygonX(pts))
		if i < len(s.labels) && c.ContainsX(x0) && lab.Width(s.labels[i])+vg.Points(3) < x1-x0 {
			c.FillText(lab, vg.Point{X: x0 + vg.Points(1.5), Y: c.Max.Y - vg.Points(10)}, s.labels[i])
		}
	}
}

// shadeAlpha is the opacity of a shade: a figure whose lines were
// added before its shade (the experiment-wide ones add the warm-ups
// last, over every panel) would otherwise hide them under it.
const shadeAlpha = 0.35

// translucent is c at shadeAlpha, its colour chosen so that on white it
// shows as c does: the shades look as they did, and a line under one
// still shows through.
func translucent(c color.RGBA) color.NRGBA {
	ch := func(v uint8) uint8 {
		return uint8(math.Round(math.Max(0, 255-(255-float64(v))/shadeAlpha)))
	}
	return color.NRGBA{R: ch(c.R), G: ch(c.G), B: ch(c.B), A: uint8(math.Round(255 * shadeAlpha))}
}

// marks draws thin vertical lines, labelled along the top when there is
// room: where each trial of a timeline begins.
type marks struct {
	xs     []float64
	labels []string
}

func (m *marks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	sty := draw.LineStyle{Color: rgb(markRGB), Width: vg.Points(0.5)}
	lab := draw.TextStyle{Color: rgb(textRGB), Font: sans(7), Handler: p.TextHandler, XAlign: draw.XLeft, YAlign: draw.YTop}
	for i, x := range m.xs {
		px := trX(x)
		if !c.ContainsX(px) {
			continue
		}
		c.StrokeLine2(sty, px, c.Min.Y, px, c.Max.Y)
		if i >= len(m.labels) || m.labels[i] == "" {
			continue
		}
		next := c.Max.X
		if i+1 < len(m.xs) {
			next = trX(m.xs[i+1])
		}
		if lab.Width(m.labels[i])+vg.Points(4) < next-px {
			c.FillText(lab, vg.Point{X: px + vg.Points(2), Y: c.Max.Y - vg.Points(1)}, m.labels[i])
		}
	}
}

// xyLine makes a line plotter of the finite points, or nil when none is
// left. NaN marks figures a source cannot measure; plotter.NewLine
// refuses them.
func xyLine(xs, ys []float64, clr color.Color, dash []vg.Length, positive bool) *plotter.Line {
	xys := make(plotter.XYs, 0, len(xs))
	for i := range xs {
		if finite(xs[i]) && finite(ys[i]) && (!positive || ys[i] > 0) {
			xys = append(xys, plotter.XY{X: xs[i], Y: ys[i]})
		}
	}
	if len(xys) == 0 {
		return nil
	}
	xys = downsample(xys, maxLinePoints)
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil // unreachable: only finite points are left
	}
	l.Color = clr
	l.Width = vg.Points(1.2)
	l.Dashes = dash
	return l
}

// sparsePoints is the most points a line has for its points to be
// marked as well: a line through one point draws nothing, and through a
// handful it hides where the samples are.
const sparsePoints = 5

// addLine adds l to p, with a dot at each point when it has few, and
// reports whether it added anything (l is nil when no point was finite).
func addLine(p *panel, l *plotter.Line) bool {
	if l == nil {
		return false
	}
	p.Add(l)
	if len(l.XYs) <= sparsePoints {
		if pts, err := plotter.NewScatter(l.XYs); err == nil {
			pts.Color, pts.Shape, pts.Radius = l.Color, draw.CircleGlyph{}, vg.Points(2.5)
			p.Add(pts)
		}
	}
	return true
}

// maxLinePoints bounds a line's points: an hour of one-second samples
// per host would make the inline SVG megabytes for detail no screen
// shows.
const maxLinePoints = 1200

// downsample averages consecutive points into at most n buckets.
func downsample(xys plotter.XYs, n int) plotter.XYs {
	if len(xys) <= n {
		return xys
	}
	out := make(plotter.XYs, 0, n)
	per := float64(len(xys)) / float64(n)
	for b := range n {
		lo, hi := int(float64(b)*per), int(float64(b+1)*per)
		var sx, sy float64
		for _, p := range xys[lo:hi] {
			sx += p.X
			sy += p.Y
		}
		k := float64(hi - lo)
		out = append(out, plotter.XY{X: sx / k, Y: sy / k})
	}
	return out
}

// ninesTicks label the percentile axis of a latency spectrum, where x is
// the number of nines: -log10(1 - q). The last tick is the maximum, one
// operation rather than a percentile, and says so.
type ninesTicks struct{ maxAt float64 }

func (t ninesTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := []plot.Tick{{Value: nines(50), Label: "50"}, {Value: 1, Label: "90"}, {Value: nines(95), Label: "95"},
		{Value: 2, Label: "99"}, {Value: 3, Label: "99.9"}}
	for e := 4.0; e < t.maxAt; e++ {
		ts = append(ts, plot.Tick{Value: e, Label: "99." + strconv.Itoa(int(math.Pow(10, e-2))-1)})
	}
	return append(ts, plot.Tick{Value: t.maxAt, Label: maxTick})
}

// maxTick labels the maximum on a spectrum's axis.
const maxTick = "max (1 sample)"

// nines maps a percentile to the spectrum's x axis: 90 -> 1, 99 -> 2.
func nines(pct float64) float64 { return -math.Log10(1 - pct/100) }
