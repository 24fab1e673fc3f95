package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// figure is one image of the report: a legend strip over one or more
// panels stacked on a shared x axis.
type figure struct {
	// Name is the file stem under figures/; Title and Caption are shown
	// in the HTML.
	Name, Title, Caption string
	// Message replaces the image when there is nothing to draw or the
	// drawing failed.
	Message string
	// SVG is the inline image; PNGError says why its PNG is missing.
	SVG      template.HTML
	PNGError string
	// Chart is the JSON of the interactive version (charts.js) of a
	// figure over time; "" for the others.
	Chart template.JS

	// interactive: a time series, also drawn with uPlot in the page.
	interactive        bool
	width, panelHeight vg.Length
	legend             []legendEntry
	panels             []*panel
	svg                []byte
}

// Wide figures take the page's whole width.
func (f *figure) Wide() bool { return f.width > figWidth }

// legendEntry is one key of a figure's legend: a line (solid or dashed),
// for bars a filled square, for dots a filled circle.
type legendEntry struct {
	label  string
	color  color.Color
	dashes []vg.Length
	box    bool
	dot    bool
}

// pngDPI is dense enough for a printed column and small enough to mail.
const pngDPI = 150

// Legend strip layout, in points.
const (
	legendFontSize = 10
	legendRow      = vg.Length(14)
	legendKey      = vg.Length(18)
)

// size is the whole figure's size.
func (f *figure) size() (vg.Length, vg.Length) {
	return f.width, f.legendHeight() + f.panelHeight*vg.Length(len(f.panels))
}

// legendHeight is the height of the legend strip, wrapped to the width.
func (f *figure) legendHeight() vg.Length {
	if len(f.legend) == 0 {
		return 0
	}
	return legendRow*vg.Length(len(f.legendLines())) + vg.Points(4)
}

// legendLines splits the legend into lines that fit the width.
func (f *figure) legendLines() [][]legendEntry {
	sty := text.Style{Font: sans(legendFontSize), Handler: plot.DefaultTextHandler}
	var lines [][]legendEntry
	var cur []legendEntry
	var x vg.Length
	for _, e := range f.legend {
		w := legendKey + vg.Points(4) + sty.Width(e.label) + vg.Points(14)
		if len(cur) > 0 && x+w > f.width-vg.Points(50) {
			lines, cur, x = append(lines, cur), nil, 0
		}
		cur = append(cur, e)
		x += w
	}
	return append(lines, cur)
}

// draw paints the figure onto c.
func (f *figure) draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	sty := draw.TextStyle{Color: rgb(textRGB), Font: sans(legendFontSize), Handler: plot.DefaultTextHandler, YAlign: draw.YCenter}
	y := c.Max.Y - legendRow/2 - vg.Points(2)
	for _, line := range f.legendLines() {
		x := c.Min.X + vg.Points(50)
		for _, e := range line {
			f.drawKey(c, e, x, y)
			x += legendKey + vg.Points(4)
			c.FillText(sty, vg.Point{X: x, Y: y}, e.label)
			x += sty.Width(e.label) + vg.Points(14)
		}
		y -= legendRow
	}
	c.Max.Y -= f.legendHeight()
	rows := make([][]*plot.Plot, len(f.panels))
	for i, p := range f.panels {
		rows[i] = []*plot.Plot{p.Plot}
	}
	tiles := draw.Tiles{Rows: len(f.panels), Cols: 1, PadY: vg.Points(10), PadTop: vg.Points(4),
		PadBottom: vg.Points(2), PadLeft: vg.Points(4), PadRight: vg.Points(12)}
	for i, cs := range plot.Align(rows, tiles, c) {
		f.panels[i].Draw(cs[0])
	}
}

func (f *figure) drawKey(c draw.Canvas, e legendEntry, x, y vg.Length) {
	if e.dot {
		c.DrawGlyph(draw.GlyphStyle{Color: e.color, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}, vg.Point{X: x + legendKey/2, Y: y})
		return
	}
	if e.box {
		h := vg.Points(8)
		c.FillPolygon(e.color, []vg.Point{{X: x + legendKey/2 - h/2, Y: y - h/2}, {X: x + legendKey/2 + h/2, Y: y - h/2},
			{X: x + legendKey/2 + h/2, Y: y + h/2}, {X: x + legendKey/2 - h/2, Y: y + h/2}})
		return
	}
	c.StrokeLine2(draw.LineStyle{Color: e.color, Width: vg.Points(2), Dashes: e.dashes}, x, y, x+legendKey, y)
}

// render draws the SVG (kept for the file) and its inline form. A
// drawing failure becomes the figure's message rather than failing the
// report: gonum/plot panics on some degenerate inputs, and one bad
// figure must not cost the reader every other section.
func (f *figure) render() {
	if f.Message != "" {
		return
	}
	w, h := f.size()
	var buf bytes.Buffer
	err := guard(func() error {
		c := vgsvg.New(w, h)
		f.draw(draw.New(c))
		_, err := c.WriteTo(&buf)
		return err
	})
	if err != nil {
		f.Message = fmt.Sprintf("figure not drawn: %v", err)
		return
	}
	f.svg = buf.Bytes()
	f.SVG = template.HTML(inlineSVG(f.svg, w, h, f.Title)) // #nosec G203 -- drawn here; vgsvg escapes its text
	if f.interactive {
		f.Chart = chartJSON(chartOf(f))
	}
}

// png draws the figure as a PNG.
func (f *figure) png() ([]byte, error) {
	w, h := f.size()
	var buf bytes.Buffer
	err := guard(func() error {
		c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI))
		f.draw(draw.New(c))
		_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(&buf)
		return err
	})
	return buf.Bytes(), err
}

// guard turns a panic inside gonum/plot into an error.
func guard(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plot: %v", r)
		}
	}()
	return fn()
}

// inlineSVG makes a standalone SVG document fit for embedding in HTML:
// no XML prolog, and a root element that scales with the page (viewBox
// only) and carries no namespace URLs, which HTML does not need.
func inlineSVG(doc []byte, w, h vg.Length, title string) string {
	s := string(doc)
	start := strings.Index(s, "<svg")
	if start < 0 {
		return ""
	}
	end := strings.Index(s[start:], ">")
	if end < 0 {
		return ""
	}
	root := fmt.Sprintf(`<svg viewBox="0 0 %.5g %.5g" role="img" aria-label="%s">`,
		w.Points(), h.Points(), template.HTMLEscapeString(title))
	return root + s[start+end+1:]
}
