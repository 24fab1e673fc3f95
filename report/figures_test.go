package report

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// plotted returns the plotters of type T on a panel. gonum/plot keeps
// them in an unexported field and offers no accessor, hence reflect.
func plotted[T any](p *plot.Plot) []T {
	f := reflect.ValueOf(p).Elem().FieldByName("plotters")
	all := *(*[]plot.Plotter)(unsafe.Pointer(f.UnsafeAddr())) // #nosec G103 -- test-only read of gonum's own slice
	var out []T
	for _, pl := range all {
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
