package report

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"

	"github.com/dbarena/dbarena/results"
)

// tsRow is one ALL row of timeseries.csv: elapsed and interval_s in
// seconds, warm-up or not, operations.
type tsRow struct {
	elapsed, length float64
	warm            bool
	ops             int64
}

// points makes a trial's ALL points of rows, started at from, each
// interval's p99 the ops/s it ran at in µs (so that a figure's p99 line
// tells its rows apart too).
func points(trial string, from time.Time, rows ...tsRow) []results.Point {
	var out []results.Point
	for _, r := range rows {
		el := time.Duration(r.elapsed * float64(time.Second))
		p := results.Point{Trial: trial, Time: from.Add(el), Elapsed: el, Length: time.Duration(r.length * float64(time.Second)),
			Warmup: r.warm, Op: results.AllOps, Ops: r.ops}
		p.SetRates()
		p.Latency = results.Latency{P50: 100, P99: 200}
		out = append(out, p)
	}
	return out
}

// pgC is postgres.c of a PostgreSQL against Redis run (3 s warm-up, 10
// s measured, 8 threads) with the runner before intervals were cut at
// one moment: the measured part after the warm-up, 3 ms long, holds 97
// operations (31,000 ops/s in a trial at 20,000), and two warm-up
// operations that completed after the warm-up's last part came as a
// warm-up row of no length.
func pgC() []tsRow {
	rows := []tsRow{
		{1.003165486, 1.003165486, true, 17604},
		{2.003025481, 0.999859995, true, 18142},
		{3.000082568, 0.997057087, true, 18727},
		{3.003173316, 0.003090748, false, 97},
		{3.003173316, 0, true, 2},
	}
	for i := 4; i <= 12; i++ {
		rows = append(rows, tsRow{float64(i) + 0.003, 1, false, 20000})
	}
	return append(rows, tsRow{13.000060416, 0.996891897, false, 20843})
}

// TestDrawnLeavesPartialIntervalsOut: an over-time figure draws a row as
// a rate only when it is a whole interval's, or nearly: the parts at a
// boundary shorter than a quarter of the interval, rows of no length and
// warm-up operations completed after the warm-up ended are left out.
func TestDrawnLeavesPartialIntervalsOut(t *testing.T) {
	t0 := start()
	warm3 := []tsRow{{1, 1, true, 1000}, {2, 1, true, 1000}, {3, 1, true, 1000}}
	tests := []struct {
		name    string
		rows    []tsRow
		lengths bool
		// kept are the elapsed seconds of the rows drawn.
		kept []float64
		left int
	}{
		{name: "fragment and warm-up row of no length", rows: pgC(), lengths: true,
			kept: []float64{1.003165486, 2.003025481, 3.000082568, 4.003, 5.003, 6.003, 7.003, 8.003, 9.003, 10.003, 11.003, 12.003, 13.000060416}, left: 2},
		{name: "part just under a quarter of the interval", rows: append(warm3[:3:3], tsRow{3.249, 0.249, false, 249}, tsRow{4.249, 1, false, 1000}), lengths: true,
			kept: []float64{1, 2, 3, 4.249}, left: 1},
		{name: "part just over a quarter of the interval", rows: append(warm3[:3:3], tsRow{3.251, 0.251, false, 251}, tsRow{4.251, 1, false, 1000}), lengths: true,
			kept: []float64{1, 2, 3, 3.251, 4.251}},
		{name: "warm-up operations completed in a measured interval", lengths: true,
			rows: append(warm3[:3:3], tsRow{3.5, 0.5, false, 500}, tsRow{4.5, 1, true, 2}, tsRow{4.5, 1, false, 1000}, tsRow{5.5, 1, false, 1000}),
			kept: []float64{1, 2, 3, 3.5, 4.5, 5.5}, left: 1},
		{name: "warm-up ended at a collection: its operations in flight come first", lengths: true,
			rows: append(warm3[:3:3], tsRow{4, 1, true, 3}, tsRow{4, 1, false, 1000}, tsRow{5, 1, false, 1000}),
			kept: []float64{1, 2, 3, 4, 5}, left: 1},
		{name: "a longer interval sets the quarter", lengths: true,
			rows: []tsRow{{4, 4, false, 4000}, {4.9, 0.9, false, 900}, {9, 4, false, 4000}, {10.1, 1.1, false, 1100}},
			kept: []float64{4, 9, 10.1}, left: 1},
		{name: "a trial shorter than a quarter of a second", lengths: true,
			rows: []tsRow{{0.013, 0.013, false, 100}}, left: 1},
		{name: "a trial of one short interval", lengths: true,
			rows: []tsRow{{0.68, 0.68, false, 4206}}, kept: []float64{0.68}},
		{name: "format 1: a length of 0 is unknown, not none", lengths: false,
			rows: []tsRow{{1, 1, false, 1000}, {2, 0, false, 0}, {3, 1, false, 1000}}, kept: []float64{1, 2, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl := &timeline{t0: t0, lengths: tc.lengths}
			kept, left := tl.drawn(points("x", t0, tc.rows...))
			var got []float64
			for _, p := range kept {
				got = append(got, p.Elapsed.Seconds())
			}
			require.InDeltaSlice(t, tc.kept, got, 1e-6)
			require.Equal(t, tc.left, left)
		})
	}
}

// TestWarmupShadeEndsWithTheWarmup: the warm-up's band ends where its
// last part did, not at a later row of warm-up operations completed
// after it.
func TestWarmupShadeEndsWithTheWarmup(t *testing.T) {
	lo, hi, ok := warmup(points("x", start(), pgC()...))
	require.True(t, ok)
	require.Zero(t, lo)
	require.InDelta(t, 3.000082568, hi, 1e-9)
	_, _, ok = warmup(points("x", start(), tsRow{1, 1, false, 10}))
	require.False(t, ok, "no warm-up")
}

// TestFiguresOverTimeDrawWholeIntervals: the figure over time of a
// workload and the experiment-wide one draw the same rows, none of them
// the fragment's 31,000 ops/s or the zero of the warm-up row of no
// length, and say how many they left out.
func TestFiguresOverTimeDrawWholeIntervals(t *testing.T) {
	fx := fullFixture()
	d := fx.write(t)
	var kept []results.Point
	for _, p := range d.Points {
		if p.Trial != "postgres.c.1" {
			kept = append(kept, p)
		}
	}
	var trial *results.Trial
	for i := range d.Trials {
		if d.Trials[i].ID == "postgres.c.1" {
			trial = &d.Trials[i]
		}
	}
	require.NotNil(t, trial)
	// The fixture's trials take 13 s, 2 of them warm-up.
	base := trial.Start.Add(-2 * time.Second)
	d.Points = append(kept, points("postgres.c.1", base, pgC()...)...)
	s := summarize(d)
	tl := newTimeline(d)

	var c *row
	for _, r := range s.rows {
		if r.workload == "c" {
			c = r
		}
	}
	require.NotNil(t, c)
	over := overtimeFigure(s, c, tl, "overtime-c")
	requireRates(t, over.panels[0], math.Inf(-1), math.Inf(1), 17000, 21000)
	require.Contains(t, over.Caption, "Left out: 2 partial intervals at a boundary")

	res := resourceFigure(d, s, tl, "resources")
	requireRates(t, res.panels[0], tl.x(base.Add(time.Second/2)), tl.x(base.Add(13*time.Second+time.Second/2)), 17000, 21000)
	require.Contains(t, res.Caption, "Left out: 2 partial intervals at a boundary")
	// The fixture's other trials have whole intervals only: nothing left
	// out, nothing said.
	whole := fx.write(t)
	require.NotContains(t, resourceFigure(whole, summarize(whole), newTimeline(whole), "resources").Caption, "Left out")
}

// requireRates checks that every point of postgres' lines (the
// fixture's first target) between x0 and x1 lies within [lo, hi] ops/s:
// no fragment's rate above, no row of no length as a zero below.
func requireRates(t *testing.T, p *panel, x0, x1, lo, hi float64) {
	t.Helper()
	n := 0
	for _, it := range p.items {
		l, ok := it.(*plotter.Line)
		if !ok || toRGBA(l.Color) != colorAt(0) {
			continue
		}
		for _, xy := range l.XYs {
			if xy.X < x0 || xy.X > x1 {
				continue
			}
			n++
			require.GreaterOrEqual(t, xy.Y, lo, "x=%g", xy.X)
			require.LessOrEqual(t, xy.Y, hi, "x=%g", xy.X)
		}
	}
	require.Equal(t, 13, n, "the trial's 13 whole intervals are drawn")
}

// TestShadeLetsLinesThrough: a shade is translucent, so a line drawn
// before it (the experiment-wide figures shade their warm-ups last)
// still shows, and on white it is the colour it was.
func TestShadeLetsLinesThrough(t *testing.T) {
	for _, c := range []uint32{shadeRGB, refRGB} {
		want := rgb(c)
		got := translucent(want)
		require.Less(t, got.A, uint8(255))
		a := float64(got.A) / 255
		over := func(v uint8) float64 { return 255*(1-a) + float64(v)*a }
		require.InDelta(t, float64(want.R), over(got.R), 1.5)
		require.InDelta(t, float64(want.G), over(got.G), 1.5)
		require.InDelta(t, float64(want.B), over(got.B), 1.5)
	}
}

// TestOverTimeShadingBelongsToEveryLine: each target's line is drawn
// from the start of its own measured window (0 s), its warm-up before
// it, so the one shade (before 0) covers warm-up points only, whatever
// each target's warm-up length: 3 s for postgres and 6 s for cassandra
// here, where one shade per target on a shared elapsed clock covered
// cassandra's warm-up and postgres' first measured seconds alike.
func TestOverTimeShadingBelongsToEveryLine(t *testing.T) {
	d := fullFixture().write(t)
	var kept []results.Point
	for _, p := range d.Points {
		if p.Trial != "postgres.c.1" && p.Trial != "cassandra.c.1" {
			kept = append(kept, p)
		}
	}
	trial := func(warm int) []tsRow {
		var rows []tsRow
		for i := 1; i <= warm+8; i++ {
			if i <= warm {
				rows = append(rows, tsRow{float64(i), 1, true, 1000})
			} else {
				rows = append(rows, tsRow{float64(i), 1, false, 5000})
			}
		}
		return rows
	}
	d.Points = append(kept, points("postgres.c.1", start(), trial(3)...)...)
	d.Points = append(d.Points, points("cassandra.c.1", start(), trial(6)...)...)
	s := summarize(d)
	var c *row
	for _, r := range s.rows {
		if r.workload == "c" {
			c = r
		}
	}
	require.NotNil(t, c)
	over := overtimeFigure(s, c, newTimeline(d), "overtime-c")
	var shades [][2]float64
	for _, it := range over.panels[0].items {
		if sh, ok := it.(*shade); ok {
			shades = append(shades, sh.spans...)
		}
	}
	require.Equal(t, [][2]float64{{-6, 0}}, shades, "one shade, before every line's measured window")
	for ti, warm := range []int{3, 6} {
		n := 0
		for _, it := range over.panels[0].items {
			l, ok := it.(*plotter.Line)
			if !ok || toRGBA(l.Color) != colorAt(ti) {
				continue
			}
			for _, xy := range l.XYs {
				if xy.Y == 1000 {
					n++
					require.LessOrEqual(t, xy.X, 0.0, "a warm-up point lies in the shade")
				} else {
					require.Greater(t, xy.X, 0.0, "a measured point lies outside it")
				}
			}
		}
		require.Equal(t, warm, n, "target %d's warm-up points", ti)
	}
	require.Contains(t, over.Caption, "from the start of its own measured window")
}
