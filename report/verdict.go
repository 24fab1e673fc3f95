package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/analysis/decide"
	"github.com/dbarena/dbarena/internal/plural"
	"github.com/dbarena/dbarena/results"
)

// The terminal verdict stays short: a reader who wants every row opens
// the report.
const (
	maxVerdictRows     = 12
	maxVerdictWarnings = 10
	// tieRatio is how close two price-performance figures must be to be
	// called a tie: run to run noise on a shared machine is a few
	// percent.
	tieRatio = 1.05
	// ciLevel is the confidence level of the intervals the report's
	// tables print beside each share.
	ciLevel = 0.95
	// mark follows a ratio whose trials carry a fairness warning.
	mark = "*"
)

// unfairKinds are the flags that make a comparison unfair: the figures
// then describe the client, the machine or a moving target rather than
// the database. A ratio between trials that carry one is marked.
func unfairKinds() []results.FlagKind {
	return []results.FlagKind{results.FlagClientBound, results.FlagHostSaturated, results.FlagNotSteady,
		results.FlagClientCeiling, results.FlagPacing, results.FlagTargetMissed, results.FlagInterfered}
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
	b.WriteString(headline(s, d))
	b.WriteByte('\n')
	for _, line := range limits(s, d) {
		b.WriteString("limit: " + line + "\n")
	}
	for _, line := range advice(s, d) {
		b.WriteString("advice: " + line + "\n")
	}
	marked := map[results.FlagKind][]string{}
	for i, r := range s.rows {
		if i == maxVerdictRows {
			fmt.Fprintf(&b, "  ... %s more in the report\n", plural.Count(len(s.rows)-i, "row"))
			break
		}
		b.WriteString("  " + r.label + ": " + rowSentence(s, r) + "\n")
		if line := boundSentence(s, r); line != "" {
			b.WriteString("    bound by: " + line + "\n")
		}
		if line := workloadSentence(s, r); line != "" {
			b.WriteString("    " + line + "\n")
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
			fmt.Fprintf(&b, "warning: ... %s more in the report\n", plural.Count(len(ws)-i, "warning"))
			break
		}
		fmt.Fprintf(&b, "warning: %s: %s\n", w.Subject, w.Text)
	}
	return strings.TrimRight(b.String(), "\n")
}

// noInterval says why an unconfirmed lead is one; the repetitions line
// below the headline says how many there are.
const noInterval = "no confidence interval"

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
		n = "all " + plural.Count(compared, "workload")
	default:
		n += " of " + plural.Count(compared, "workload")
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

// workloadSentence says, for a row of TPC-C or a ledger, what its
// workload judges beside the rate: each target's New-Orders a minute
// (tpmC where earned), New-Order p90 and rollbacks, the consistency
// check or the ledger's audit and declined transfers ("" for a YCSB
// row). It reads each target's last counted repetition.
func workloadSentence(s *summary, r *row) string {
	var parts []string
	kind := ""
	for i := range r.cells {
		var last *results.Trial
		for _, t := range r.cells[i].trials {
			if t.Status == results.StatusCompleted {
				last = t
			}
		}
		if last == nil {
			continue
		}
		var bits []string
		if f := results.TPCCFiguresOf(last.Counters, last.Duration, last.Threads, last.Ops); f != nil {
			kind = "tpcc"
			bits = append(bits, f.Short())
		}
		if n := results.AuditNote(last.Counters, transfers(last)); n != "" {
			if kind == "" {
				kind = "ledger"
			}
			bits = append(bits, n)
		}
		if len(bits) > 0 {
			parts = append(parts, s.targets[i]+": "+strings.Join(bits, "; "))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return kind + ": " + strings.Join(parts, " | ")
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
	return decide.RatioInterval(b.throughput(), a.throughput(), ciLevel)
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
		if k == results.FlagSuperseded {
			head = append(head, remeasured(g.subjects, ws))
			continue
		}
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
		tpcc := ""
		for _, t := range s.loads {
			if t.Target != name {
				continue
			}
			if what, ok := results.TPCCLoadOf(t); ok {
				tpcc = what // its rate in operations says nothing
				continue
			}
			if finite(t.Throughput) {
				xs = append(xs, t.Throughput)
			}
		}
		if tpcc != "" {
			parts = append(parts, name+" "+tpcc)
		}
		if len(xs) > 0 {
			parts = append(parts, fmt.Sprintf("%s %s ops/s", name, fmtRate(mean(xs))))
		}
	}
	return strings.Join(parts, ", ")
}

// remeasured folds the trials measured again into one warning: which,
// and why each was.
func remeasured(ids []string, ws []warning) warning {
	why := map[string]string{}
	for _, w := range ws {
		if f := results.Flag(w.Text); f.Kind() == results.FlagSuperseded {
			reason, _, _ := strings.Cut(f.Details(), ": measured again")
			why[w.Subject] = reason
		}
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = id + " (" + why[id] + ")"
	}
	return warning{Subject: "measured again",
		Text: fmt.Sprintf("%s: %s; the first tries are on record and left out of every comparison", plural.Count(len(ids), "trial"), strings.Join(parts, ", "))}
}
