package report

// The verdict's head: who leads where the figures decide, where the
// targets are equivalent, where the repetitions cannot tell, how the
// repetitions ran, and the lines of each row.

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/analysis/decide"
	"github.com/dbarena/dbarena/internal/plural"
	"github.com/dbarena/dbarena/results"
)

// headline is the verdict's first lines: the throughput leaders where
// their lead is established, the workloads where the targets are
// equivalent and those where the repetitions cannot tell, the same for
// p99 (where it was read at one concurrency or rate), how the
// repetitions ran, and a caution when fairness warnings touch the
// comparisons.
func headline(s *summary, d *results.Data) string {
	if len(s.rows) == 0 {
		if line := loadSentence(s); line != "" {
			return "no measured runs yet; load: " + line
		}
		return "no trials yet: nothing to report"
	}
	measured := map[int]bool{}
	t, p := newTally(len(s.targets)), newTally(len(s.targets))
	unfair := 0
	loads := map[string]bool{}
	for _, r := range s.rows {
		for i := range r.cells {
			if r.cells[i].n > 0 {
				measured[i] = true
			}
		}
		if r.measured < 2 {
			continue
		}
		tj := r.throughputJudgement(r.rule)
		t.add(tj.lead, tj.best, r.label)
		if pj := r.p99Judgement(r.rule); pj.lead != leadNone {
			p.add(pj.lead, pj.best, r.label)
			if load, like := r.loadOfCells(r.order()); like && load != "" {
				loads[load] = true
			}
		}
		if len(r.fairness(s)) > 0 {
			unfair++
		}
	}
	switch {
	case len(measured) == 1:
		for i := range measured {
			return fmt.Sprintf("one target measured, %s: nothing to compare it with (%s)", s.targets[i], plural.Count(s.reps, "repetition")+" at most")
		}
	case t.compared == 0:
		return "no workload was measured on two targets yet: nothing to compare; " + s.repsSentence(d)
	}
	if base, ok := sizesOfOne(d); ok {
		return sizesHeadline(s, d, base)
	}
	out := "throughput: " + leadSentence(s, t, "faster", "fastest")
	switch {
	case p.compared == 0:
		out += "\np99 latency: not measured"
	case p.unlike == p.compared:
		out += "\np99 latency: not compared: each target's p99 was read at a concurrency of its own (" + s.loadsText() + "), and a closed loop's p99 at twice the workers is twice the queue; fixed run.threads, or a run.target every target sustains, compares them"
	default:
		at := ""
		if len(loads) == 1 {
			for l := range loads {
				at = " (read at " + l + " on every target)"
			}
		}
		out += "\np99 latency" + at + ": " + leadSentence(s, p, "lower", "lowest")
	}
	out += "\n" + s.repsSentence(d)
	if unfair > 0 {
		verb := "involve"
		if unfair == 1 {
			verb = "involves"
		}
		out += fmt.Sprintf("\ncaution: %d of %d comparisons %s trials with a fairness warning (marked %s): those ratios may describe the client, the machine or a warm-up rather than the databases",
			unfair, t.compared, verb, mark)
	}
	return out
}

// sizesOfOne says whether every target is a size of one target of the
// experiment file (a size axis over one database), and which.
func sizesOfOne(d *results.Data) (base string, ok bool) {
	for _, t := range d.Manifest.Targets {
		if t.Base == "" || (base != "" && t.Base != base) {
			return "", false
		}
		base = t.Base
	}
	return base, base != ""
}

// sizesHeadline is the headline of one database measured at several
// sizes: how its throughput goes with the size, workload by workload,
// from the smallest size to the largest, never one size "faster" than
// another as if they were rival databases. The rows below still give
// each pair's ratio and interval.
func sizesHeadline(s *summary, d *results.Data, base string) string {
	type size struct {
		i     int
		name  string
		cores float64
	}
	var sizes []size
	for _, t := range d.Manifest.Targets {
		for i, n := range s.targets {
			if n == t.Name {
				sizes = append(sizes, size{i: i, name: t.Size, cores: t.CPUs})
			}
		}
	}
	slices.SortStableFunc(sizes, func(a, b size) int { return cmp.Compare(a.cores, b.cores) })
	out := fmt.Sprintf("%s at %s (a size axis: one database, not rivals)", base, plural.Count(len(sizes), "size"))
	for _, r := range s.rows {
		var parts []string
		for _, z := range sizes {
			if c := r.cells[z.i]; c.n > 0 {
				parts = append(parts, fmt.Sprintf("%s %s", z.name, fmtRate(c.mean)))
			}
		}
		// A rate search's probes are rows of one size each: its
		// capacity is the search line's.
		if len(parts) > 1 {
			out += fmt.Sprintf("\n  %s: %s ops/s", r.label, strings.Join(parts, ", "))
		}
	}
	return out + "\n" + s.repsSentence(d)
}

// newTally is a tally over n targets.
func newTally(n int) *tally { return &tally{won: make([]int, n), ahead: make([]int, n)} }

// loadText is the load a trial ran under: "16 workers" in a closed
// loop, "5,000 ops/s" when paced.
func loadText(threads int, rate float64) string {
	if rate > 0 {
		return fmtRate(rate) + " ops/s"
	}
	return plural.Count(threads, "worker")
}

// leadSentence says who is better ("faster", "lower") where the lead is
// established, where the targets are equivalent and where the figures
// cannot tell: "redis faster on 1 of 3 workloads; equivalent within ±5%
// on 1; cannot tell on 1 (b)". With every lead established it is
// "postgres is fastest on 2 of 3 workloads, cassandra on 1" (best:
// "fastest", "lowest"); with none confirmed, "redis ahead on all 2
// workloads, unconfirmed: ...".
func leadSentence(s *summary, t *tally, better, best string) string {
	won, ahead := total(t.won), total(t.ahead)
	switch {
	case won == t.compared:
		return winsSentence(s, t.won, t.compared, best)
	case ahead == t.compared:
		return leaders(s, t.ahead, "ahead", t.compared, true) + ", unconfirmed: " + noInterval
	}
	faster := better
	if len(s.targets) > 2 {
		faster = best
	}
	var parts []string
	// of writes the first count with the number of workloads, the later
	// ones alone.
	of := func(n int) string {
		switch {
		case len(parts) > 0:
			return strconv.Itoa(n)
		case n == 1 && t.compared == 1:
			return "the one workload measured on more than one target"
		case n == t.compared:
			return "all " + plural.Count(n, "workload")
		}
		return fmt.Sprintf("%d of %s", n, plural.Count(t.compared, "workload"))
	}
	if won > 0 {
		parts = append(parts, leaders(s, t.won, faster, t.compared, true))
	}
	if t.equivalent > 0 {
		parts = append(parts, fmt.Sprintf("equivalent within ±%s on %s", marginText(s), of(t.equivalent)))
	}
	if t.indistinct > 0 {
		parts = append(parts, fmt.Sprintf("cannot tell on %s (%s)", of(t.indistinct), strings.Join(t.open, ", ")))
	}
	if ahead > 0 {
		// Never the first part: with no other, every lead is unconfirmed
		// (above).
		parts = append(parts, fmt.Sprintf("unconfirmed on %s (%s; %s)", of(ahead), noInterval, leaders(s, t.ahead, "ahead", t.compared, false)))
	}
	if t.unlike > 0 {
		parts = append(parts, fmt.Sprintf("not compared on %s (read at different concurrencies or rates)", of(t.unlike)))
	}
	return strings.Join(parts, "; ")
}

// marginText is the equivalence margin as a percentage: "5%".
func marginText(s *summary) string {
	m := s.rule.Margin
	if !(m > 0) {
		m = decide.DefaultMargin
	}
	return strconv.FormatFloat(100*m, 'f', -1, 64) + "%"
}

// repsSentence says how many repetitions stand behind the figures, in
// what order they ran, and how a ratio's interval is read.
func (s *summary) repsSentence(d *results.Data) string {
	lo, hi := 0, 0
	for _, r := range s.rows {
		for i := range r.cells {
			if n := r.cells[i].n; n > 0 {
				if lo == 0 || n < lo {
					lo = n
				}
				hi = max(hi, n)
			}
		}
	}
	level := strconv.FormatFloat(100*levelOf(s.rule), 'f', -1, 64) + "%"
	rule := fmt.Sprintf("a lead counts where its %s interval excludes 1x, equivalence where its 90%% interval lies within ±%s", level, marginText(s))
	how := ""
	if r := d.Manifest.Run; r != nil && r.Order == "rounds" && hi > 1 {
		how = fmt.Sprintf(" in rounds, each visiting every target and workload in an order drawn from seed %d", d.Manifest.Seed)
		if !r.Together && len(s.targets) > 1 {
			how += ", one target after another"
		}
	}
	switch {
	case hi <= 1:
		return "1 repetition each: no confidence intervals (run.repetitions: 3 or more, or auto, gives them)"
	case lo == hi:
		return fmt.Sprintf("%d repetitions each%s; %s", hi, how, rule)
	case lo == 1:
		return fmt.Sprintf("1 to %d repetitions%s; intervals only where both sides have 2 or more; %s", hi, how, rule)
	default:
		return fmt.Sprintf("%d to %d repetitions%s; %s", lo, hi, how, rule)
	}
}

// levelOf is the rule's level as decide.Judge applies it.
func levelOf(r decide.Rule) float64 {
	if r.Level > 0 && r.Level < 1 {
		return r.Level
	}
	return decide.DefaultLevel
}

// rowComparison compares the row's measured cells: the best one's rate
// and spread, then each other one's ratio to it with its interval (or
// its equivalence, or that the repetitions cannot tell) and a mark where
// either side carries a fairness warning, then the p99s and the load
// they were read at.
func rowComparison(s *summary, r *row) string {
	order := r.order()
	if len(order) == 0 {
		return "no throughput measured"
	}
	best := &r.cells[order[0]]
	unit := rowUnit(r).Rate()
	out := fmt.Sprintf("%s %s %s%s", s.targets[order[0]], fmtRate(best.mean), unit, best.spread())
	if len(order) == 1 {
		if len(s.targets) > 1 {
			out = "only " + out
		}
		return out + fmt.Sprintf(" (p99 %s)", fmtMs(best.lat.P99))
	}
	p99s := []string{fmtMs(best.lat.P99)}
	for _, i := range order[1:] {
		c := &r.cells[i]
		p99s = append(p99s, fmtMs(c.lat.P99))
		m := ""
		if best.unfair() || c.unfair() {
			m = mark
		}
		if c.mean <= 0 {
			out += fmt.Sprintf(", %s %s %s%s", s.targets[i], fmtRate(c.mean), unit, m)
			continue
		}
		out += ", " + ratioText(s, r, best, c, s.targets[i], m)
	}
	p99 := " (p99 " + strings.Join(p99s, " vs ")
	if rowUnit(r) == results.UnitTransactions {
		// TPC-C's five transactions in one percentile: said as such; the
		// line below the row gives New-Order's p90, the one judged.
		p99 = " (p99 of all five transactions " + strings.Join(p99s, " vs ")
	}
	if load, like := r.loadOfCells(order); like && load != "" {
		p99 += " at " + load
	} else if !like {
		p99 += ", at different concurrencies: not compared"
	}
	return out + p99 + ")"
}

// ratioText says how the best cell compares with c: "1.8x [1.6x,
// 2.0x] cassandra", "equivalent to cassandra within ±5% (...)", "1.1x
// [0.9x, 1.4x] cassandra: cannot tell".
func ratioText(s *summary, r *row, best, c *cell, name, m string) string {
	j := decide.Judge(c.throughput(), best.throughput(), r.rule)
	ratio := best.mean / c.mean
	switch j.Outcome {
	case decide.Equivalent:
		return fmt.Sprintf("equivalent%s to %s within ±%s (%s [%s, %s] at 90%%)", m, name, marginText(s), fmtRatio(ratio), fmtRatio(j.EqLow), fmtRatio(j.EqHigh))
	case decide.Undecided:
		return fmt.Sprintf("%s%s [%s, %s] %s: cannot tell", fmtRatio(ratio), m, fmtRatio(j.Low), fmtRatio(j.High), name)
	case decide.Lead:
		return fmt.Sprintf("%s%s [%s, %s] %s", fmtRatio(ratio), m, fmtRatio(j.Low), fmtRatio(j.High), name)
	}
	if s.reps > 1 {
		// Other rows have intervals: say why this one has none.
		return fmt.Sprintf("%s%s [no interval: 1 repetition] %s", fmtRatio(ratio), m, name)
	}
	return fmt.Sprintf("%s%s %s", fmtRatio(ratio), m, name)
}

// loadsText says each target's load across the rows: "postgres 8
// workers, cassandra 64 workers" (several per target joined by "or").
func (s *summary) loadsText() string {
	var parts []string
	for i, name := range s.targets {
		var loads []string
		for _, r := range s.rows {
			if i >= len(r.cells) {
				continue
			}
			for _, t := range r.cells[i].trials {
				if l := loadText(t.Threads, t.TargetRate); !slices.Contains(loads, l) {
					loads = append(loads, l)
				}
			}
		}
		if len(loads) > 0 {
			parts = append(parts, name+" "+strings.Join(loads, " or "))
		}
	}
	return strings.Join(parts, ", ")
}
