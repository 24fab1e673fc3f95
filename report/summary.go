package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/dbarena/dbarena/analysis/decide"
	"github.com/dbarena/dbarena/results"
)

// summary is what the report and the verdict say about a results
// directory, computed once from its trials.
type summary struct {
	// targets are the target names in manifest order, then any target
	// that has trials but no manifest entry (a manifest written before
	// the target came up).
	targets []string
	// rows are the measured cases: one per workload and matrix point, in
	// the order the plan first ran them.
	rows  []*row
	loads []*results.Trial
	// reps is the largest number of repetitions of any cell.
	reps int
	// rule is how every comparison is judged (ruleOf).
	rule decide.Rule
}

// row is one workload at one matrix point, across targets.
type row struct {
	key      string
	workload string
	params   []results.Param
	label    string
	// cells are indexed like summary.targets.
	cells []cell
	// best is the index of the target with the highest mean throughput,
	// -1 when no target has one.
	best int
	// measured counts cells with a throughput.
	measured int
	// rule is how the row's leads are judged: the run's equivalence
	// margin, analysis/decide's level.
	rule decide.Rule
}

// cell is one target's repetitions of one row.
type cell struct {
	trials []*results.Trial
	// n counts the repetitions with a finite throughput; mean, min, max
	// and std (sample standard deviation) are over those.
	n                   int
	mean, min, max, std float64
	// lat averages each latency percentile over the repetitions. A mean of
	// percentiles is not the percentile of the merged runs, but with
	// repetitions of equal length it is close, and the HDR logs hold the
	// exact figures for anyone who needs them.
	lat results.Latency
	// p99n counts the repetitions with a finite p99 and p99std is their
	// sample standard deviation (lat.P99 is their mean): the p99 lead
	// is judged by its interval, as the throughput's is.
	p99n   int
	p99std float64
	// share is mean / the row's best mean (1 for the best).
	share float64
	// flags are the validity warnings of the repetitions, without
	// duplicates.
	flags []string
	// failed are the repetitions that failed (a database that died, an
	// error rate above the policy): left out of every figure above and
	// of every comparison, and shown with their reason.
	failed []*results.Trial
	// prior and p99Prior are the spreads of the same target's other
	// rows (decide.Prior), which moderate this cell's in a comparison.
	prior, p99Prior struct{ cv, df float64 }
}

// throughput summarizes the cell's throughputs for analysis/decide.
func (c *cell) throughput() decide.Summary {
	return decide.Summary{N: c.n, Mean: c.mean, StdDev: c.std, PriorCV: c.prior.cv, PriorDF: c.prior.df}
}

// p99 summarizes the cell's p99s for analysis/decide.
func (c *cell) p99() decide.Summary {
	return decide.Summary{N: c.p99n, Mean: c.lat.P99, StdDev: c.p99std, PriorCV: c.p99Prior.cv, PriorDF: c.p99Prior.df}
}

// setPriors gives each cell the spread of its target's other rows:
// the machine's noise is one per target, and its other workloads say
// much of what this one's is (decide.DefaultPriorDF).
func (s *summary) setPriors() {
	for ti := range s.targets {
		for _, r := range s.rows {
			var thr, p99 []decide.Summary
			for _, o := range s.rows {
				if o != r {
					thr, p99 = append(thr, o.cells[ti].ownThroughput()), append(p99, o.cells[ti].ownP99())
				}
			}
			c := &r.cells[ti]
			c.prior.cv, c.prior.df = decide.Prior(thr)
			c.p99Prior.cv, c.p99Prior.df = decide.Prior(p99)
		}
	}
}

// ownThroughput and ownP99 are the cell's summaries without a prior.
func (c *cell) ownThroughput() decide.Summary {
	return decide.Summary{N: c.n, Mean: c.mean, StdDev: c.std}
}

func (c *cell) ownP99() decide.Summary {
	return decide.Summary{N: c.p99n, Mean: c.lat.P99, StdDev: c.p99std}
}

// failedText says why a cell's repetitions failed: "failed: REASON", or
// "N of M repetitions failed: REASON" next to measured ones.
func (c *cell) failedText() string {
	if len(c.failed) == 0 {
		return ""
	}
	reason := c.failed[0].StatusReason
	if reason == "" {
		reason = "the trial did not finish"
	}
	if len(c.trials) == 0 && len(c.failed) == 1 {
		return "failed: " + reason
	}
	return fmt.Sprintf("%d of %d repetitions failed (first: %s)", len(c.failed), len(c.failed)+len(c.trials), reason)
}

// summarize groups the run trials of d into rows and computes each
// cell's statistics and the best target per row.
func summarize(d *results.Data) *summary {
	s := &summary{rule: ruleOf(d)}
	index := map[string]int{}
	addTarget := func(name string) int {
		if i, ok := index[name]; ok {
			return i
		}
		index[name] = len(s.targets)
		s.targets = append(s.targets, name)
		return index[name]
	}
	for _, t := range d.Manifest.Targets {
		addTarget(t.Name)
	}
	byKey := map[string]*row{}
	for i := range d.Trials {
		t := &d.Trials[i]
		ti := addTarget(t.Target)
		if t.Kind == results.KindLoad {
			if t.Status != results.StatusFailed {
				s.loads = append(s.loads, t)
			}
			continue
		}
		if t.Status == results.StatusSuperseded {
			// Measured again under its retry's ID: the trials table
			// shows it, no figure counts it.
			continue
		}
		key := rowKey(t)
		r, ok := byKey[key]
		if !ok {
			r = &row{key: key, workload: t.Workload, params: t.Params, label: rowLabel(t), rule: ruleOf(d)}
			byKey[key] = r
			s.rows = append(s.rows, r)
		}
		for len(r.cells) <= ti {
			r.cells = append(r.cells, cell{})
		}
		if t.Status == results.StatusFailed {
			r.cells[ti].failed = append(r.cells[ti].failed, t)
			continue
		}
		r.cells[ti].trials = append(r.cells[ti].trials, t)
	}
	for _, r := range s.rows {
		for len(r.cells) < len(s.targets) {
			r.cells = append(r.cells, cell{})
		}
		for i := range r.cells {
			r.cells[i].compute()
			s.reps = max(s.reps, len(r.cells[i].trials))
		}
		r.rank()
	}
	s.setPriors()
	return s
}

// ruleOf is the rule d's comparisons are judged by: analysis/decide's
// defaults with the margin the run set.
func ruleOf(d *results.Data) decide.Rule {
	var r decide.Rule
	if d.Manifest.Run != nil {
		r.Margin = d.Manifest.Run.Equivalence
	}
	return r
}

// rowKey identifies a trial's row.
func rowKey(t *results.Trial) string { return RowKey(t.Workload, t.Params) }

// RowKey identifies a row of the comparison: a workload at its matrix
// point (a Finding's Workload and Params).
func RowKey(workload string, params []results.Param) string {
	var b strings.Builder
	b.WriteString(workload)
	for _, p := range params {
		b.WriteString("\x00" + p.Key + "=" + p.Value)
	}
	return b.String()
}

// rowLabel names a row for people: "a" or "a · threads=8".
func rowLabel(t *results.Trial) string {
	label := t.Workload
	if label == "" {
		label = "(unnamed workload)"
	}
	if len(t.Params) > 0 {
		label += " · " + fmtParams(t.Params)
	}
	return label
}

// compute fills the cell's statistics from its trials.
func (c *cell) compute() {
	c.mean, c.min, c.max, c.std, c.share = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
	var xs []float64
	seen := map[results.Flag]bool{}
	for _, t := range c.trials {
		if finite(t.Throughput) {
			xs = append(xs, t.Throughput)
		}
		for _, f := range trialFlags(t) {
			if !seen[f] {
				seen[f] = true
				c.flags = append(c.flags, string(f))
			}
		}
	}
	c.n = len(xs)
	if c.n > 0 {
		c.mean, c.min, c.max = mean(xs), minOf(xs), maxOf(xs)
	}
	if c.n > 1 {
		c.std = stddev(xs)
	}
	lat := func(f func(*results.Latency) float64) float64 {
		var vs []float64
		for _, t := range c.trials {
			if v := f(&t.Latency); finite(v) {
				vs = append(vs, v)
			}
		}
		if len(vs) == 0 {
			return math.NaN()
		}
		return mean(vs)
	}
	var p99s []float64
	for _, t := range c.trials {
		if finite(t.Latency.P99) {
			p99s = append(p99s, t.Latency.P99)
		}
	}
	c.p99n, c.p99std = len(p99s), math.NaN()
	if c.p99n > 1 {
		c.p99std = stddev(p99s)
	}
	c.lat = results.Latency{
		Mean: lat(func(l *results.Latency) float64 { return l.Mean }),
		P50:  lat(func(l *results.Latency) float64 { return l.P50 }),
		P90:  lat(func(l *results.Latency) float64 { return l.P90 }),
		P95:  lat(func(l *results.Latency) float64 { return l.P95 }),
		P99:  lat(func(l *results.Latency) float64 { return l.P99 }),
		P999: lat(func(l *results.Latency) float64 { return l.P999 }),
		Max:  lat(func(l *results.Latency) float64 { return l.Max }),
	}
}

// rank finds the best cell of the row and each cell's share of it. Ties
// go to the first target, in manifest order.
func (r *row) rank() {
	r.best = -1
	for i := range r.cells {
		c := &r.cells[i]
		if c.n == 0 {
			continue
		}
		r.measured++
		if r.best < 0 || c.mean > r.cells[r.best].mean {
			r.best = i
		}
	}
	if r.best < 0 {
		return
	}
	top := r.cells[r.best].mean
	for i := range r.cells {
		if c := &r.cells[i]; c.n > 0 && top > 0 {
			c.share = c.mean / top
		}
	}
}

// order returns the row's measured cells' target indexes by falling
// mean throughput, the best first.
func (r *row) order() []int {
	var out []int
	for i := range r.cells {
		if r.cells[i].n > 0 {
			out = append(out, i)
		}
	}
	// insertion sort: a handful of targets, and it keeps ties stable
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && r.cells[out[j]].mean > r.cells[out[j-1]].mean; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func mean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// stddev is the sample standard deviation (n-1): repetitions are a
// sample of the runs one could have made.
func stddev(xs []float64) float64 {
	m := mean(xs)
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}

func minOf(xs []float64) float64 {
	m := math.Inf(1)
	for _, x := range xs {
		m = math.Min(m, x)
	}
	return m
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}
