package report

import (
	"encoding/json"
	"html/template"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// uplotVersion is the vendored uPlot (uplot/README.md).
const uplotVersion = "1.6.32"

// chart is the data of a figure's interactive version, drawn in the page
// by charts.js with uPlot: the same panels, lines, bands and marks as the
// SVG, which stays for readers without JavaScript, for print and for
// papers. It is derived from the drawn panels, so the two cannot drift.
type chart struct {
	XLabel string       `json:"xlabel"`
	XMin   jsonNum      `json:"xmin"`
	XMax   jsonNum      `json:"xmax"`
	Panels []chartPanel `json:"panels"`
	Bands  []chartBand  `json:"bands,omitempty"`
	Marks  []chartMark  `json:"marks,omitempty"`
}

type chartPanel struct {
	// Title names what the panel shows when its axis label is only a
	// unit (a database metric's panel).
	Title  string        `json:"title,omitempty"`
	Label  string        `json:"label"`
	Log    bool          `json:"log,omitempty"`
	Series []chartSeries `json:"series"`
}

// chartSeries is one key of the legend on one panel: every line of that
// colour and dash, joined, with a null between lines so that the gap
// between two trials stays a gap.
type chartSeries struct {
	Label string    `json:"label"`
	Color string    `json:"color"`
	Dash  bool      `json:"dash,omitempty"`
	X     []jsonNum `json:"x"`
	Y     []jsonNum `json:"y"`
}

type chartBand struct {
	From  jsonNum `json:"from"`
	To    jsonNum `json:"to"`
	Color string  `json:"color"`
	Label string  `json:"label,omitempty"`
}

type chartMark struct {
	X     jsonNum `json:"x"`
	Label string  `json:"label,omitempty"`
}

// jsonNum writes a float with six significant digits (a millisecond in an
// hour-long run), and NaN as null: a gap.
type jsonNum float64

func (n jsonNum) MarshalJSON() ([]byte, error) {
	if !finite(float64(n)) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, float64(n), 'g', 6, 64), nil
}

// chartOf derives the interactive chart of a drawn figure.
func chartOf(f *figure) *chart {
	if len(f.panels) == 0 {
		return nil
	}
	bottom := f.panels[len(f.panels)-1]
	c := &chart{XLabel: bottom.X.Label.Text, XMin: jsonNum(bottom.X.Min), XMax: jsonNum(bottom.X.Max)}
	for _, p := range f.panels {
		c.Panels = append(c.Panels, panelOf(p, f.legend))
	}
	for _, pl := range f.panels[0].items {
		switch v := pl.(type) {
		case *shade:
			clr := uint32(shadeRGB)
			if v.rgb != 0 {
				clr = v.rgb
			}
			for i, sp := range v.spans {
				b := chartBand{From: jsonNum(sp[0]), To: jsonNum(sp[1]), Color: hexColor(rgb(clr))}
				if i < len(v.labels) {
					b.Label = v.labels[i]
				}
				c.Bands = append(c.Bands, b)
			}
		case *marks:
			for i, x := range v.xs {
				m := chartMark{X: jsonNum(x)}
				if i < len(v.labels) {
					m.Label = v.labels[i]
				}
				c.Marks = append(c.Marks, m)
			}
		}
	}
	return c
}

// panelOf groups a panel's lines into series by colour and dash, named
// after the legend key of their colour.
func panelOf(p *panel, legend []legendEntry) chartPanel {
	cp := chartPanel{Title: p.Title.Text, Label: p.Y.Label.Text}
	_, cp.Log = p.Y.Scale.(plot.LogScale)
	type key struct {
		color string
		dash  bool
	}
	index := map[key]int{}
	dashedToo := map[string]bool{}
	for _, pl := range p.items {
		l, ok := pl.(*plotter.Line)
		if !ok {
			continue
		}
		k := key{hexColor(toRGBA(l.Color)), len(l.Dashes) > 0}
		dashedToo[k.color] = dashedToo[k.color] || k.dash
		i, seen := index[k]
		if !seen {
			i = len(cp.Series)
			index[k] = i
			cp.Series = append(cp.Series, chartSeries{Label: labelOf(legend, l.Color), Color: k.color, Dash: k.dash})
		}
		s := &cp.Series[i]
		if len(s.X) > 0 {
			// a gap between this line and the one before
			s.X, s.Y = append(s.X, (s.X[len(s.X)-1]+jsonNum(l.XYs[0].X))/2), append(s.Y, jsonNum(math.NaN()))
		}
		for _, xy := range l.XYs {
			s.X, s.Y = append(s.X, jsonNum(xy.X)), append(s.Y, jsonNum(xy.Y))
		}
	}
	for i := range cp.Series {
		s := &cp.Series[i]
		switch {
		case s.Dash:
			s.Label += " write/tx"
		case dashedToo[s.Color]:
			s.Label += " read/rx"
		}
		sortSeries(s)
	}
	return cp
}

// sortSeries orders a series by x: lines of one colour are added in
// trial order, which need not be time order.
func sortSeries(s *chartSeries) {
	idx := make([]int, len(s.X))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case s.X[a] < s.X[b]:
			return -1
		case s.X[a] > s.X[b]:
			return 1
		}
		return 0
	})
	xs, ys := make([]jsonNum, len(idx)), make([]jsonNum, len(idx))
	for i, j := range idx {
		xs[i], ys[i] = s.X[j], s.Y[j]
	}
	s.X, s.Y = xs, ys
}

// labelOf names a colour after its legend key, or "series" for a colour
// the legend does not key (a target's second database host).
func labelOf(legend []legendEntry, c color.Color) string {
	want := toRGBA(c)
	for _, e := range legend {
		if e.color != nil && toRGBA(e.color) == want {
			return e.label
		}
	}
	return hexColor(want)
}

func toRGBA(c color.Color) color.RGBA {
	r, g, b, a := c.RGBA()
	return color.RGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: uint8(a >> 8)}
}

// chartJSON is the chart as JSON for a <script type="application/json">
// element; encoding/json escapes <, > and &, so the text cannot end the
// element early.
func chartJSON(c *chart) template.JS {
	if c == nil {
		return ""
	}
	b, err := json.Marshal(c)
	if err != nil {
		return "" // unreachable: jsonNum writes finite numbers or null
	}
	return template.JS(b) // #nosec G203 -- our own JSON, <>& escaped
}
