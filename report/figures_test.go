package report

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"github.com/dbarena/dbarena/results"
)

// plotted returns the plotters of type T on a panel.
func plotted[T any](p *panel) []T {
	var out []T
	for _, pl := range p.items {
		if v, ok := pl.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// TestLatencyFigureDots: the percentiles are dots at their values, not
// bars, whose length from the log axis's arbitrary floor means nothing.
func TestLatencyFigureDots(t *testing.T) {
	d := fullFixture().write(t)
	s := summarize(d)
	r := s.rows[0]
	f := latencyFigure(s, r, "latency-a")
	require.Len(t, f.panels, 1)
	p := f.panels[0]
	require.Empty(t, plotted[*bars](p), "no bars on a log axis")
	require.IsType(t, plot.LogScale{}, p.Y.Scale, "the fixture's percentiles span more than a decade")
	dots := plotted[*plotter.Scatter](p)
	require.Len(t, dots, len(s.targets))
	for ti, sc := range dots {
		l := r.cells[ti].lat
		var ys []float64
		for _, xy := range sc.XYs {
			ys = append(ys, xy.Y)
		}
		require.InDeltaSlice(t, []float64{l.P50 / 1e3, l.P95 / 1e3, l.P99 / 1e3, l.P999 / 1e3}, ys, 1e-9, s.targets[ti])
	}
	for _, e := range f.legend {
		require.True(t, e.dot, "the legend keys dots as dots")
	}
}

// TestSpectrumFigure: the axis labels every point (no stray 0, p95
// named), p99.99 comes from the HDR logs, and the maximum is a ring
// labelled as the single sample it is.
func TestSpectrumFigure(t *testing.T) {
	d, err := results.Read(filepath.Join(goldenResults, "format2/sweep"))
	require.NoError(t, err)
	s := summarize(d)
	var r *row
	for _, rw := range s.rows {
		if rw.label == "c · threads=4" {
			r = rw
		}
	}
	require.NotNil(t, r)
	f := spectrumFigure(d, s, r, "spectrum")
	require.Empty(t, f.Message)
	p := f.panels[0]

	var labels []string
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		labels = append(labels, tk.Label)
	}
	require.Equal(t, []string{"50", "90", "95", "99", "99.9", "99.99", "max (1 sample)"}, labels)
	require.Greater(t, p.X.Min, 0.0, "no empty stretch left of p50")

	var dots, rings []*plotter.Scatter
	for _, sc := range plotted[*plotter.Scatter](p) {
		if _, ok := sc.GlyphStyle.Shape.(draw.RingGlyph); ok {
			rings = append(rings, sc)
		} else {
			dots = append(dots, sc)
		}
	}
	require.Len(t, dots, 2)
	require.Len(t, rings, 2)
	for ti := range s.targets {
		c := &r.cells[ti]
		var want []float64
		for _, tr := range c.trials {
			st, ok, err := d.TrialStats(tr.ID)
			require.NoError(t, err)
			require.True(t, ok)
			want = append(want, st.P9999)
		}
		require.Len(t, dots[ti].XYs, 6, "p50 to p99.99")
		require.InDelta(t, mean(want)/1e3, dots[ti].XYs[5].Y, 1e-9, "p99.99 of %s", s.targets[ti])
		require.Equal(t, plotter.XY{X: 5, Y: c.lat.Max / 1e3}, rings[ti].XYs[0])
	}
}

// TestLoadFigureShort: a load shorter than one whole interval is named
// as too short to chart (the golden sweep's took 13 ms), and a load of a
// few intervals gets its points marked, so one point still shows.
func TestLoadFigureShort(t *testing.T) {
	d, err := results.Read(filepath.Join(goldenResults, "format2/sweep"))
	require.NoError(t, err)
	s := summarize(d)
	f := loadFigure(s, newTimeline(d), "load")
	require.Contains(t, f.Message+f.Caption, "too short to chart")
	require.Contains(t, f.Message+f.Caption, "fast (13ms)")

	fx := fullFixture()
	dd := fx.write(t)
	tl := newTimeline(dd)
	id := "postgres.load.1"
	tl.points[id] = tl.points[id][:1] // a load of one interval
	f = loadFigure(summarize(dd), tl, "load")
	require.Empty(t, f.Message)
	require.NotEmpty(t, plotted[*plotter.Scatter](f.panels[0]), "a lone interval is a dot")
}

// TestResourceFigure: one figure holds every target on the experiment's
// clock with shared scales, and labels the window a reference tool ran in.
func TestResourceFigure(t *testing.T) {
	fx := fullFixture()
	fx.refs = map[string]results.Reference{"postgres.c.1": {Tool: "pgbench", Throughput: 21000}}
	d := fx.write(t)
	s := summarize(d)
	groups, _ := buildFigures(d, s)
	var res []*figure
	for _, g := range groups {
		if g.Title == "Resources over time" {
			res = g.Figures
		}
	}
	require.Len(t, res, 1, "one figure for all targets")
	f := res[0]
	require.Equal(t, "resources", f.Name)

	tl := newTimeline(d)
	var first, last float64 = 1e18, -1e18
	for i := range d.Trials {
		first = min(first, tl.x(begin(&d.Trials[i], tl)))
		last = max(last, tl.x(d.Trials[i].End))
	}
	for _, p := range f.panels {
		require.LessOrEqual(t, p.X.Min, first, "every panel spans the first target's first trial")
		require.GreaterOrEqual(t, p.X.Max, last, "and the last target's last")
	}
	lines := plotted[*plotter.Line](f.panels[0])
	colors := map[any]bool{}
	for _, l := range lines {
		colors[l.Color] = true
	}
	require.Len(t, colors, 2, "both targets' throughput on the first panel")

	var ref *shade
	for _, sh := range plotted[*shade](f.panels[0]) {
		if len(sh.labels) > 0 {
			ref = sh
		}
	}
	require.NotNil(t, ref, "the reference window is drawn and labelled")
	require.Equal(t, []string{"pgbench"}, ref.labels)
	var trial *results.Trial
	for i := range d.Trials {
		if d.Trials[i].ID == "postgres.c.1" {
			trial = &d.Trials[i]
		}
	}
	require.InDelta(t, tl.x(trial.End), ref.spans[0][0], 1e-9, "it starts where the trial ended")
	require.Greater(t, ref.spans[0][1], ref.spans[0][0])
	require.Contains(t, f.Caption, "pgbench")
	require.Contains(t, f.Caption, "reference")
}

// TestChartOf: the interactive chart carries the SVG's panels, one series
// per target with a gap between its trials, and the labelled bands.
func TestChartOf(t *testing.T) {
	fx := fullFixture()
	fx.refs = map[string]results.Reference{"postgres.c.1": {Tool: "pgbench", Throughput: 21000}}
	d := fx.write(t)
	s := summarize(d)
	f := resourceFigure(d, s, newTimeline(d), "resources")
	c := chartOf(f)
	require.Len(t, c.Panels, len(f.panels))
	require.Equal(t, "seconds since the experiment started", c.XLabel)
	top := c.Panels[0]
	require.Equal(t, "ops/s", top.Label)
	require.Len(t, top.Series, 2)
	require.Equal(t, "postgres", top.Series[0].Label)
	require.Equal(t, "#0072b2", top.Series[0].Color)
	gaps := 0
	for _, y := range top.Series[0].Y {
		if !finite(float64(y)) {
			gaps++
		}
	}
	require.Equal(t, 7-1, gaps, "postgres' 7 trials, a gap between each two")
	var labels []string
	for _, b := range c.Bands {
		if b.Label != "" {
			labels = append(labels, b.Label)
		}
	}
	require.Equal(t, []string{"pgbench"}, labels)
	require.NotEmpty(t, c.Marks)
	js := string(chartJSON(c))
	require.Contains(t, js, `"label":"pgbench"`)
	require.Contains(t, js, "null", "gaps as null")
	require.NotContains(t, js, "NaN")
}
