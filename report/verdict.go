package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/analysis/compare"
	"github.com/dbarena/dbarena/results"
)

// The terminal verdict stays short: a reader who wants every row opens
// the report.
const (
	maxVerdictRows     = 12
	maxVerdictWarnings = 10
	// tieRatio is how close two means must be to be called a tie: run to
	// run noise on a shared machine is a few percent.
	tieRatio = 1.05
	// ciLevel is the confidence level of the ratios' intervals.
	ciLevel = 0.95
	// mark follows a ratio whose trials carry a fairness warning.
	mark = "*"
)

// unfairKinds are the flags that make a comparison unfair: the figures
// then describe the client, the machine or a moving target rather than
// the database. A ratio between trials that carry one is marked.
func unfairKinds() []results.FlagKind {
	return []results.FlagKind{results.FlagClientBound, results.FlagHostSaturated, results.FlagNotSteady,
		results.FlagClientCeiling, results.FlagPacing, results.FlagTargetMissed}
}

// Verdict is a short plain-text answer for the terminal and the report:
// which target leads in throughput and which in tail latency on how many
// workloads, how many repetitions stand behind it, one line per workload
// with each ratio's confidence interval and p99 latencies (a ratio whose
// trials carry a fairness warning is marked), the load phase, and the
// warnings grouped by kind. A target is called faster on a workload
// only where its lead is established (leadOf): not where the ratio's
// interval includes 1x, nor with one repetition, which has no interval.
func Verdict(d *results.Data) string { return verdict(d, false) }

// VerdictAfterRun is the verdict a run prints at its end, below its own
// log: the errors the log said (a failed trial's, the run's) are named
// there, not said again.
func VerdictAfterRun(d *results.Data) string { return verdict(d, true) }

func verdict(d *results.Data, afterRun bool) string {
	s := summarize(d)
	var b strings.Builder
	b.WriteString(headline(s))
	b.WriteByte('\n')
	marked := map[results.FlagKind][]string{}
	for i, r := range s.rows {
		if i == maxVerdictRows {
			fmt.Fprintf(&b, "  ... %s more in the report\n", plural(len(s.rows)-i, "row"))
			break
		}
		b.WriteString("  " + r.label + ": " + rowSentence(s, r) + "\n")
		if line := boundSentence(s, r); line != "" {
			b.WriteString("    bound by: " + line + "\n")
		}
		for kind, names := range r.fairness(s) {
			marked[kind] = appendNew(marked[kind], names...)
		}
	}
	if line := loadSentence(s); line != "" && len(s.rows) > 0 {
		b.WriteString("  load: " + line + "\n")
	}
	if line := ceilingSentence(d); line != "" {
		b.WriteString("  client ceiling: " + line + "\n")
	}
	// A search's answer is the question the run asked: it comes first
	// among the findings after the rows.
	for i := range d.Manifest.Searches {
		sr := &d.Manifest.Searches[i]
		b.WriteString("  search " + sr.Target + " " + sr.Workload + ": " + sr.Describe() + "\n")
	}
	for _, line := range sizingSentences(d) {
		b.WriteString("  size: " + line + "\n")
	}
	if len(marked) > 0 {
		var parts []string
		for _, k := range unfairKinds() {
			if names := marked[k]; len(names) > 0 {
				parts = append(parts, fmt.Sprintf("%s (%s)", k, strings.Join(names, ", ")))
			}
		}
		b.WriteString("  " + mark + " fairness warning on these trials: " + strings.Join(parts, "; ") + "; see the warnings\n")
	}
	ws := groupWarnings(warningsOf(d, afterRun))
	for i, w := range ws {
		if i == maxVerdictWarnings {
			fmt.Fprintf(&b, "warning: ... %s more in the report\n", plural(len(ws)-i, "warning"))
			break
		}
		fmt.Fprintf(&b, "warning: %s: %s\n", w.Subject, w.Text)
	}
	return strings.TrimRight(b.String(), "\n")
}

// headline is the verdict's first lines: the throughput leaders where
// their lead is established, the workloads where it is not, the p99
// leaders, the repetitions behind them, and a caution when fairness
// warnings touch the comparisons.
func headline(s *summary) string {
	if len(s.rows) == 0 {
		if line := loadSentence(s); line != "" {
			return "no measured runs yet; load: " + line
		}
		return "no trials yet: nothing to report"
	}
	measured := map[int]bool{}
	var t, p tally
	t.won, t.ahead = make([]int, len(s.targets)), make([]int, len(s.targets))
	p.won, p.ahead = make([]int, len(s.targets)), make([]int, len(s.targets))
	unfair := 0
	for _, r := range s.rows {
		for i := range r.cells {
			if r.cells[i].n > 0 {
				measured[i] = true
			}
		}
		if r.measured < 2 {
			continue
		}
		t.add(r.leadOf(), r.best)
		if l, best := r.p99LeadOf(); l != leadNone {
			p.add(l, best)
		}
		if len(r.fairness(s)) > 0 {
			unfair++
		}
	}
	switch {
	case len(measured) == 1:
		for i := range measured {
			return fmt.Sprintf("one target measured, %s: nothing to compare it with (%s)", s.targets[i], plural(s.reps, "repetition")+" at most")
		}
	case t.compared == 0:
		return "no workload was measured on two targets yet: nothing to compare; " + s.repsSentence()
	}
	out := "throughput: " + leadSentence(s, &t, "faster", "fastest")
	if p.compared == 0 {
		out += "\np99 latency: not measured"
	} else {
		out += "\np99 latency: " + leadSentence(s, &p, "lower", "lowest")
	}
	out += "\n" + s.repsSentence()
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

// noInterval says why an unconfirmed lead is one; the repetitions line
// below the headline says how many there are.
const noInterval = "no confidence interval"

// leadSentence says who is better ("faster", "lower") where the lead is
// established, and on how many workloads the figures do not say: "redis
// faster on 1 of 2 workloads; not distinguishable on 1". With every
// lead established it is "postgres is fastest on 2 of 3 workloads,
// cassandra on 1" (best: "fastest", "lowest"); with none confirmed,
// "redis ahead on all 2 workloads, unconfirmed: ...".
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
			return "all " + plural(n, "workload")
		}
		return fmt.Sprintf("%d of %s", n, plural(t.compared, "workload"))
	}
	if won > 0 {
		parts = append(parts, leaders(s, t.won, faster, t.compared, true))
	}
	if t.tied > 0 {
		parts = append(parts, "tied within 5% on "+of(t.tied))
	}
	if t.indistinct > 0 {
		parts = append(parts, "not distinguishable on "+of(t.indistinct))
	}
	if ahead > 0 {
		// Never the first part: with no other, every lead is unconfirmed
		// (above).
		parts = append(parts, fmt.Sprintf("unconfirmed on %s (%s; %s)", of(ahead), noInterval, leaders(s, t.ahead, "ahead", t.compared, false)))
	}
	return strings.Join(parts, "; ")
}

// leaders says "redis faster on 2 of 3 workloads, postgres on 1", the
// targets by falling count; without of, "redis ahead on 2, postgres on
// 1".
func leaders(s *summary, counts []int, verb string, compared int, of bool) string {
	order := byCount(counts)
	first := order[0]
	n := strconv.Itoa(counts[first])
	switch {
	case !of:
	case compared == 1:
		n = "the one workload measured on more than one target"
	case counts[first] == compared:
		n = "all " + plural(compared, "workload")
	default:
		n += " of " + plural(compared, "workload")
	}
	out := fmt.Sprintf("%s %s on %s", s.targets[first], verb, n)
	for _, i := range order[1:] {
		out += fmt.Sprintf(", %s on %d", s.targets[i], counts[i])
	}
	return out
}

// total adds counts.
func total(counts []int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// repsSentence says how many repetitions stand behind the figures and
// so whether the ratios carry intervals.
func (s *summary) repsSentence() string {
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
	switch {
	case hi <= 1:
		return "1 repetition each: no confidence intervals (run.repetitions: 3 or more gives them)"
	case lo == hi:
		return fmt.Sprintf("%d repetitions each; ratios with %.0f%% confidence intervals", hi, 100*ciLevel)
	case lo == 1:
		return fmt.Sprintf("1 to %d repetitions; intervals only where both sides have 2 or more", hi)
	default:
		return fmt.Sprintf("%d to %d repetitions; ratios with %.0f%% confidence intervals", lo, hi, 100*ciLevel)
	}
}

// winsSentence says "postgres is fastest on 2 of 3 workloads, cassandra
// on 1" (best: "fastest", "lowest"): only when every compared
// workload's lead is established.
func winsSentence(s *summary, wins []int, compared int, best string) string {
	order := byCount(wins)
	first := order[0]
	if wins[first] == compared {
		if compared == 1 {
			return fmt.Sprintf("%s is %s on the one workload measured on more than one target", s.targets[first], best)
		}
		return fmt.Sprintf("%s is %s on all %d workloads", s.targets[first], best, compared)
	}
	out := fmt.Sprintf("%s is %s on %d of %d workloads", s.targets[first], best, wins[first], compared)
	for _, i := range order[1:] {
		out += fmt.Sprintf(", %s on %d", s.targets[i], wins[i])
	}
	return out
}

// byCount returns the indexes with a non-zero count, largest first,
// ties in index order.
func byCount(counts []int) []int {
	var order []int
	for i, n := range counts {
		if n > 0 {
			order = append(order, i)
		}
	}
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && counts[order[j]] > counts[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	return order
}

// rowSentence says "postgres 12,300 ops/s ±2%, 1.8x [1.6x, 2.0x]
// cassandra (p99 2.1 ms vs 5.4 ms)".
func rowSentence(s *summary, r *row) string {
	out := rowComparison(s, r)
	for i := range r.cells {
		if f := r.cells[i].failedText(); f != "" {
			out += "; " + s.targets[i] + " " + f
		}
	}
	return out
}

// boundSentence says what bound each target's trials of the row: the
// bottleneck most of its repetitions read ("pg: database CPU; redis:
// client CPU (2 of 3)"), "" when none was judged.
func boundSentence(s *summary, r *row) string {
	var parts []string
	for i := range r.cells {
		counts := map[string]int{}
		best, n := "", 0
		for _, t := range r.cells[i].trials {
			if t.Bottleneck == "" {
				continue
			}
			n++
			counts[t.Bottleneck]++
			if counts[t.Bottleneck] > counts[best] || (counts[t.Bottleneck] == counts[best] && t.Bottleneck < best) {
				best = t.Bottleneck
			}
		}
		if best == "" {
			continue
		}
		part := s.targets[i] + ": " + best
		if counts[best] < n {
			part += fmt.Sprintf(" (%d of %d)", counts[best], n)
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "; ")
}

// rowComparison compares the row's measured cells: the best one's rate
// and spread, then each other one's ratio to it with its interval and a
// mark where either side carries a fairness warning.
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
		ratio := best.mean / c.mean
		lo, hi, ok := ratioInterval(best, c)
		switch {
		case ratio < tieRatio:
			out += ", tied" + m + " with " + s.targets[i] + " within 5%"
		case ok && lo <= 1:
			out += fmt.Sprintf(", %s%s [%s, %s] %s: not distinguishable from 1x", fmtRatio(ratio), m, fmtRatio(lo), fmtRatio(hi), s.targets[i])
		case ok:
			out += fmt.Sprintf(", %s%s [%s, %s] %s", fmtRatio(ratio), m, fmtRatio(lo), fmtRatio(hi), s.targets[i])
		case s.reps > 1:
			// Other rows have intervals: say why this one has none.
			out += fmt.Sprintf(", %s%s [no interval: 1 repetition] %s", fmtRatio(ratio), m, s.targets[i])
		default:
			out += fmt.Sprintf(", %s%s %s", fmtRatio(ratio), m, s.targets[i])
		}
	}
	return out + " (p99 " + strings.Join(p99s, " vs ") + ")"
}

// spread is the cell's repetitions' coefficient of variation, " ±3%",
// or "" for one repetition.
func (c *cell) spread() string {
	if c.n < 2 || !finite(c.std) || c.mean <= 0 {
		return ""
	}
	return fmt.Sprintf(" ±%.0f%%", 100*c.std/c.mean)
}

// unfair reports whether any of the cell's repetitions carries a
// fairness warning.
func (c *cell) unfair() bool { return len(c.fairnessKinds()) > 0 }

// fairnessKinds are the fairness warnings the cell's repetitions carry.
func (c *cell) fairnessKinds() []results.FlagKind {
	var out []results.FlagKind
	for _, k := range unfairKinds() {
		for _, f := range c.flags {
			if results.Flag(f).Kind() == k {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// fairness lists, by kind, the targets whose trials in the row's
// comparison carry a fairness warning (empty when the row compares
// nothing).
func (r *row) fairness(s *summary) map[results.FlagKind][]string {
	out := map[results.FlagKind][]string{}
	if r.measured < 2 {
		return out
	}
	for i := range r.cells {
		for _, k := range r.cells[i].fairnessKinds() {
			out[k] = appendNew(out[k], s.targets[i])
		}
	}
	return out
}

// ratioInterval is the confidence interval of a.mean / b.mean at
// ciLevel, as compare gives its changes (a Welch t interval on the log
// ratio), so that it never crosses zero and is as asymmetric as a
// ratio's should be. ok is false unless both sides have two or more
// repetitions.
func ratioInterval(a, b *cell) (lo, hi float64, ok bool) {
	return compare.RatioInterval(compare.Summary{N: b.n, Mean: b.mean, StdDev: b.std},
		compare.Summary{N: a.n, Mean: a.mean, StdDev: a.std}, ciLevel)
}

// appendNew appends the names not yet in xs.
func appendNew(xs []string, names ...string) []string {
	for _, n := range names {
		if !slices.Contains(xs, n) {
			xs = append(xs, n)
		}
	}
	return xs
}

// groupWarnings folds the trials' warnings of one kind into one line
// that names the trials: a saturated machine flags every trial, and the
// terminal needs it once. Warnings that are not about trials stay as
// they are.
func groupWarnings(ws []warning) []warning {
	type group struct {
		subjects []string
		first    results.Flag
	}
	// How the run ended comes first, as it did; the manifest's and the
	// files' notes last.
	var head, tail []warning
	groups := map[results.FlagKind]*group{}
	var order []results.FlagKind
	for _, w := range ws {
		switch w.Subject {
		case "run":
			head = append(head, w)
			continue
		case "manifest", "files":
			tail = append(tail, w)
			continue
		}
		f := results.Flag(w.Text)
		g := groups[f.Kind()]
		if g == nil {
			g = &group{first: f}
			groups[f.Kind()] = g
			order = append(order, f.Kind())
		}
		g.subjects = append(g.subjects, w.Subject)
	}
	for _, k := range order {
		g := groups[k]
		if len(g.subjects) == 1 {
			head = append(head, warning{Subject: g.subjects[0], Text: string(g.first)})
			continue
		}
		names := g.subjects
		more := ""
		if len(names) > 3 {
			names, more = names[:3], fmt.Sprintf(" and %d more", len(g.subjects)-3)
		}
		head = append(head, warning{Subject: fmt.Sprintf("%s on %d trials (%s%s)", k, len(g.subjects), strings.Join(names, ", "), more),
			Text: "first: " + g.first.Details()})
	}
	return append(head, tail...)
}

// loadSentence gives each target's load throughput: "postgres 45,000
// ops/s, cassandra 30,000 ops/s".
func loadSentence(s *summary) string {
	var parts []string
	for _, name := range s.targets {
		var xs []float64
		for _, t := range s.loads {
			if t.Target == name && finite(t.Throughput) {
				xs = append(xs, t.Throughput)
			}
		}
		if len(xs) > 0 {
			parts = append(parts, fmt.Sprintf("%s %s ops/s", name, fmtRate(mean(xs))))
		}
	}
	return strings.Join(parts, ", ")
}
