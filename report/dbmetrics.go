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

// dbSeries is one metric of one target's host within the window.
type dbSeries struct {
	target, host string
	xs, ys       []float64
}

// dbMetricsFigure draws the databases' own metrics (dbmetrics.csv) on
// the experiment's clock, under every target's throughput and p99, so
// that a latency spike lines up with its checkpoint, compaction or cache
// misses. Only metrics that moved within the window are drawn, one panel
// each, every target in its colour; ratios and waits come first. It
// returns nil when no database reported anything that moved.
func dbMetricsFigure(d *results.Data, s *summary, tl *timeline, name string) *figure {
	lo, hi, ok := window(d, tl)
	if !ok || len(d.DB) == 0 {
		return nil
	}
	byMetric := dbSeriesOf(d, tl, lo, hi)
	var moved []string
	for metric, ss := range byMetric {
		if movedAny(ss) {
			moved = append(moved, metric)
		}
	}
	if len(moved) == 0 {
		return nil
	}
	slices.SortFunc(moved, func(a, b string) int {
		if ra, rb := dbRank(a), dbRank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	f := &figure{Name: name, Title: "Database metrics over time",
		Caption: "Each metric the databases reported that moved, per second (dbmetrics.csv): rates end in _per_s, ratios are fractions. Warm-ups shaded grey.",
		width:   wideWidth, panelHeight: stackHeight, interactive: true}
	if len(moved) > maxDBPanels {
		f.Caption += fmt.Sprintf(" The first %d of %d that moved are drawn; dbmetrics.csv has them all.", maxDBPanels, len(moved))
		moved = moved[:maxDBPanels]
	}
	for ti, target := range s.targets {
		f.legend = append(f.legend, legendEntry{label: target, color: colorAt(ti)})
	}
	panels, sh, mk, _ := activityPanels(d, tl, s)
	for _, metric := range moved {
		p := newPlot()
		for _, ser := range byMetric[metric] {
			addLine(p, xyLine(ser.xs, ser.ys, colorAt(indexOf(s.targets, ser.target)), nil, false))
		}
		p.Y.Label.Text, p.Y.Tick.Marker = metric, siTicks{}
		fromZero(p)
		panels = append(panels, p)
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
