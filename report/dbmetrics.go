package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dbarena/dbarena/results"
)

// maxDBPanels bounds the database metrics drawn: past it the figure
// would be taller than anyone reads; the CSV has every one.
const maxDBPanels = 16

// smoothSeconds is the span of the moving mean drawn for shares and
// 0/1 series: sampled once a second, a wait share of a few sessions
// jumps between 0, 0.5 and 1 from one second to the next, a line that
// only flickers; five seconds show its level and still place a burst.
const smoothSeconds = 5

// dbSeries is one metric of one target's host within the window.
type dbSeries struct {
	target, host string
	xs, ys       []float64
}

// dbPanel is one drawn metric: its series and how it reads.
type dbPanel struct {
	metric string
	series []*dbSeries
	look   metricLook
}

// dbMetricsFigure draws the databases' own metrics (dbmetrics.csv) on
// the experiment's clock, under every target's throughput and p99, so
// that a latency spike lines up with its checkpoint, compaction or cache
// misses. Only metrics that moved within the window are drawn, one panel
// each with a readable title and its unit, every target in its colour.
// Each target gets its share of the panels (dbPanelsOf), so one
// database's many metrics cannot crowd out another's, and the panels
// are grouped by target, ratios and waits first. Shares and 0/1 series
// are drawn as a moving mean. It returns nil when no database reported
// anything that moved.
func dbMetricsFigure(d *results.Data, s *summary, tl *timeline, name string) *figure {
	lo, hi, ok := window(d, tl)
	if !ok || len(d.DB) == 0 {
		return nil
	}
	chosen, counts := dbPanelsOf(s.targets, dbSeriesOf(d, tl, lo, hi))
	if len(chosen) == 0 {
		return nil
	}
	f := &figure{Name: name, Title: "Database metrics over time",
		Caption: "What each database reported about itself every second (dbmetrics.csv) that moved, titled with the database's name; counters as rates per second, ratios and shares in percent. Warm-ups shaded grey.",
		width:   wideWidth, panelHeight: stackHeight, interactive: true}
	var drawn []string
	moved, shown := 0, 0
	for ti, target := range s.targets {
		if c := counts[ti]; c.moved > 0 {
			drawn = append(drawn, fmt.Sprintf("%s %d of %d", target, c.drawn, c.moved))
			moved, shown = moved+c.moved, shown+c.drawn
		}
	}
	if shown < moved {
		f.Caption += fmt.Sprintf(" Each target gets its share of the %d panels: %s that moved; dbmetrics.csv has them all.", maxDBPanels, strings.Join(drawn, ", "))
	}
	smoothed := false
	for ti, target := range s.targets {
		f.legend = append(f.legend, legendEntry{label: target, color: colorAt(ti)})
	}
	panels, sh, mk, _ := activityPanels(d, tl, s)
	halfWindow := smoothSeconds / 2.0
	if tl.minutes {
		halfWindow /= 60
	}
	for _, dp := range chosen {
		p := newPlot()
		smooth := dp.look.share || zeroOne(dp.series)
		for _, ser := range dp.series {
			ys := ser.ys
			if smooth {
				ys = movingMean(ser.xs, ys, halfWindow)
			}
			ys = scaled(ys, dp.look.scale)
			addLine(p, xyLine(ser.xs, ys, colorAt(indexOf(s.targets, ser.target)), nil, false))
		}
		p.Title.Text = dp.look.title
		if smooth {
			p.Title.Text += fmt.Sprintf(" (%d-s moving mean)", smoothSeconds)
			smoothed = true
		}
		p.Title.TextStyle.Font = sans(10)
		p.Title.TextStyle.Color = rgb(textRGB)
		p.Y.Label.Text, p.Y.Tick.Marker = dp.look.unit, siTicks{}
		fromZero(p)
		panels = append(panels, p)
	}
	if smoothed {
		f.Caption += fmt.Sprintf(" Shares and series that only take 0 or 1 are drawn as a %d-second moving mean, which the panel's title says: second by second they only flicker.", smoothSeconds)
	}
	for i, p := range panels {
		p.Add(sh)
		if i == 0 {
			p.Add(mk)
		} else {
			p.Add(&marks{xs: mk.xs})
		}
	}
	stack(panels, lo, hi, tl.label())
	f.panels = panels
	return f
}

// panelCount is how many of a target's metrics moved and how many of
// them are drawn.
type panelCount struct{ moved, drawn int }

// dbPanelsOf chooses the panels: each target's metrics that moved,
// ratios and waits first (dbRank), taken in turns, one target's next
// then the next target's, until maxDBPanels; a metric two targets share
// (two PostgreSQL servers) is one panel with both. The panels come
// grouped by the target that chose them, in target order, and counts
// says, per target, how many of its metrics moved and how many of them
// are drawn.
func dbPanelsOf(targets []string, byMetric map[string][]*dbSeries) ([]dbPanel, []panelCount) {
	own := make([][]string, len(targets))
	counts := make([]panelCount, len(targets))
	for metric, ss := range byMetric {
		for ti, target := range targets {
			var mine []*dbSeries
			for _, s := range ss {
				if s.target == target {
					mine = append(mine, s)
				}
			}
			if movedAny(mine) {
				own[ti] = append(own[ti], metric)
				counts[ti].moved++
			}
		}
	}
	for _, ms := range own {
		slices.SortFunc(ms, func(a, b string) int {
			if ra, rb := dbRank(a), dbRank(b); ra != rb {
				return ra - rb
			}
			return strings.Compare(a, b)
		})
	}
	chosenBy := make([][]string, len(targets))
	taken := map[string]bool{}
	next := make([]int, len(targets))
	for n := 0; n < maxDBPanels; {
		progressed := false
		for ti := range targets {
			for next[ti] < len(own[ti]) && taken[own[ti][next[ti]]] {
				next[ti]++ // chosen by a target before, with this one's line
			}
			if next[ti] == len(own[ti]) || n == maxDBPanels {
				continue
			}
			m := own[ti][next[ti]]
			taken[m] = true
			chosenBy[ti] = append(chosenBy[ti], m)
			next[ti]++
			n++
			progressed = true
		}
		if !progressed {
			break
		}
	}
	var out []dbPanel
	for ti := range targets {
		for _, m := range own[ti] {
			if taken[m] {
				counts[ti].drawn++
			}
		}
		for _, m := range chosenBy[ti] {
			out = append(out, dbPanel{metric: m, series: byMetric[m], look: lookOf(m)})
		}
	}
	return out, counts
}

// dbSeriesOf groups the rows within [lo, hi] by metric, then by target
// and host. A row belongs to the target whose hosts include its host, or
// else to the target of its trial.
func dbSeriesOf(d *results.Data, tl *timeline, lo, hi float64) map[string][]*dbSeries {
	owner := hostOwners(d)
	for _, t := range d.Manifest.Targets {
		if _, ok := owner[t.Name]; !ok {
			owner[t.Name] = t.Name // a target without hosts names its rows
		}
	}
	trialTarget := map[string]string{}
	for i := range d.Trials {
		trialTarget[d.Trials[i].ID] = d.Trials[i].Target
	}
	out := map[string][]*dbSeries{}
	index := map[[3]string]*dbSeries{}
	for i := range d.DB {
		r := &d.DB[i]
		x := tl.x(r.Time)
		if x < lo || x > hi || math.IsNaN(r.Value) {
			continue
		}
		target, ok := owner[r.Host]
		if !ok {
			if target, ok = trialTarget[r.Trial]; !ok {
				continue
			}
		}
		k := [3]string{r.Metric, target, r.Host}
		ser := index[k]
		if ser == nil {
			ser = &dbSeries{target: target, host: r.Host}
			index[k] = ser
			out[r.Metric] = append(out[r.Metric], ser)
		}
		ser.xs, ser.ys = append(ser.xs, x), append(ser.ys, r.Value)
	}
	return out
}

// movedAny reports whether any series took two different values.
func movedAny(ss []*dbSeries) bool {
	for _, s := range ss {
		for _, y := range s.ys {
			if y != s.ys[0] {
				return true
			}
		}
	}
	return false
}

// zeroOne reports whether every value of the series is 0 or 1: a
// gauge of one session waiting or not, which flickers.
func zeroOne(ss []*dbSeries) bool {
	for _, s := range ss {
		for _, y := range s.ys {
			if y != 0 && y != 1 {
				return false
			}
		}
	}
	return true
}

// movingMean is the mean of the values within half on either side of
// each x (xs ascending), so that a gap in the samples narrows the mean
// rather than reaching across it.
func movingMean(xs, ys []float64, half float64) []float64 {
	out := make([]float64, len(ys))
	lo := 0
	for i := range xs {
		for xs[lo] < xs[i]-half {
			lo++
		}
		sum, n := 0.0, 0
		for j := lo; j < len(xs) && xs[j] <= xs[i]+half; j++ {
			sum += ys[j]
			n++
		}
		out[i] = sum / float64(n)
	}
	return out
}

// scaled multiplies ys by k (a copy; 1 returns ys).
func scaled(ys []float64, k float64) []float64 {
	if k == 1 {
		return ys
	}
	out := make([]float64, len(ys))
	for i, y := range ys {
		out[i] = y * k
	}
	return out
}

// dbRank orders the panels: what explains a slow trial first (cache hit
// ratios and wait shares, then waits and queues), then the rest.
func dbRank(metric string) int {
	switch {
	case strings.HasSuffix(metric, "_ratio") || strings.HasSuffix(metric, "_share"):
		return 0
	case strings.Contains(metric, "wait") || strings.Contains(metric, "_lock") || strings.Contains(metric, "pending") ||
		strings.Contains(metric, "blocked") || strings.Contains(metric, "checkpoint") || strings.Contains(metric, "compaction") ||
		strings.Contains(metric, "evict") || strings.Contains(metric, "miss") || strings.Contains(metric, "disk_reads") ||
		strings.Contains(metric, "blocks_read") || strings.Contains(metric, "temp_bytes"):
		return 1
	}
	return 2
}
