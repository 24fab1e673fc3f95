package report

import (
	"fmt"
	"sort"

	"github.com/dbarena/dbarena/analysis/cost"
	"github.com/dbarena/dbarena/analysis/saturation"
	"github.com/dbarena/dbarena/results"
)

// scalingView is one scaling series: targets of one database and driver
// that differ only in node count (horizontal) or in CPUs or memory per
// node (vertical).
type scalingView struct {
	Label string
	Rows  []scalingRowView
}

// scalingRowView is one workload row's step from the base to a larger
// deployment.
type scalingRowView struct {
	Workload, From, To, Throughput, Speedup, Resources, Efficiency, PerCost string
}

// scalingKind says what a series scales.
type scalingKind struct {
	name, unit string
	of         func(*results.TargetInfo) float64
	// same reports whether two targets differ in nothing else.
	same func(a, b *results.TargetInfo) bool
}

func scalingKinds() []scalingKind {
	return []scalingKind{
		{name: "horizontal", unit: "nodes", of: func(t *results.TargetInfo) float64 { return float64(max(t.Nodes, 1)) },
			same: func(a, b *results.TargetInfo) bool { return a.CPUs == b.CPUs && a.MemoryBytes == b.MemoryBytes }},
		{name: "vertical", unit: "CPUs", of: func(t *results.TargetInfo) float64 { return t.CPUs },
			same: func(a, b *results.TargetInfo) bool { return a.Nodes == b.Nodes && a.MemoryBytes == b.MemoryBytes }},
		{name: "vertical", unit: "GiB of memory", of: func(t *results.TargetInfo) float64 { return float64(t.MemoryBytes) / (1 << 30) },
			same: func(a, b *results.TargetInfo) bool { return a.Nodes == b.Nodes && a.CPUs == b.CPUs }},
	}
}

// scalingSection finds the scaling series among the targets and weighs
// each step's speedup against the resources, and the cost, it added.
func scalingSection(d *results.Data, s *summary) []scalingView {
	index := map[string]int{}
	for i, name := range s.targets {
		index[name] = i
	}
	groups := map[string][]*results.TargetInfo{}
	var keys []string
	for i := range d.Manifest.Targets {
		t := &d.Manifest.Targets[i]
		k := t.Database + "/" + t.Driver
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], t)
	}
	var out []scalingView
	for _, k := range keys {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		for _, kind := range scalingKinds() {
			series := seriesOf(g, kind)
			if len(series) < 2 {
				continue
			}
			v := scalingView{Label: fmt.Sprintf("%s, %s: %s", g[0].Database, kind.name, kind.unit)}
			base := series[0]
			for _, r := range s.rows {
				bc := &r.cells[index[base.Name]]
				if bc.n == 0 || !(bc.mean > 0) {
					continue
				}
				var pts []saturation.Point
				pts = append(pts, saturation.Point{N: kind.of(base), X: bc.mean})
				for _, t := range series[1:] {
					c := &r.cells[index[t.Name]]
					if c.n == 0 || !(c.mean > 0) {
						continue
					}
					pts = append(pts, saturation.Point{N: kind.of(t), X: c.mean})
					speedup, ratio := c.mean/bc.mean, kind.of(t)/kind.of(base)
					row := scalingRowView{Workload: r.label, From: fmt.Sprintf("%s (%s %s)", base.Name, num(kind.of(base)), kind.unit),
						To: fmt.Sprintf("%s (%s %s)", t.Name, num(kind.of(t)), kind.unit), Throughput: fmtRate(bc.mean) + " → " + fmtRate(c.mean),
						Speedup: fmt.Sprintf("%.2fx", speedup), Resources: fmt.Sprintf("%.2fx", ratio),
						Efficiency: fmt.Sprintf("%.0f%%", 100*speedup/ratio), PerCost: dash}
					if base.Cost != nil && t.Cost != nil && base.Cost.MonthlyUSD > 0 && t.Cost.MonthlyUSD > 0 {
						if st, err := cost.Scaling(cost.Entry{Name: base.Name, Throughput: bc.mean, MonthlyCost: base.Cost.MonthlyUSD},
							cost.Entry{Name: t.Name, Throughput: c.mean, MonthlyCost: t.Cost.MonthlyUSD}); err == nil {
							row.PerCost = fmt.Sprintf("+%.0f%% throughput for +%.0f%% cost (%.0f%%); %.1f ops/s per added $ vs %.1f for the base",
								100*st.ThroughputGain, 100*st.CostAdded, 100*st.Efficiency, st.MarginalOpsPerDollar, bc.mean/base.Cost.MonthlyUSD)
						}
					}
					v.Rows = append(v.Rows, row)
				}
				if kind.unit == "nodes" && len(pts) >= minSweepPoints {
					v.Rows = append(v.Rows, scalingRowView{Workload: r.label, From: "Universal Scalability Law over nodes", To: fitSummaryOf(pts, "node", "nodes")})
				}
			}
			if len(v.Rows) > 0 {
				out = append(out, v)
			}
		}
	}
	return out
}

// seriesOf returns the targets of g that differ from the smallest only
// in kind's resource, smallest first; fewer than two when g holds no
// such series.
func seriesOf(g []*results.TargetInfo, kind scalingKind) []*results.TargetInfo {
	sorted := append([]*results.TargetInfo(nil), g...)
	sort.SliceStable(sorted, func(i, j int) bool { return kind.of(sorted[i]) < kind.of(sorted[j]) })
	base := sorted[0]
	if !(kind.of(base) > 0) {
		return nil
	}
	out := []*results.TargetInfo{base}
	for _, t := range sorted[1:] {
		if kind.same(base, t) && kind.of(t) > kind.of(out[len(out)-1]) {
			out = append(out, t)
		}
	}
	return out
}
