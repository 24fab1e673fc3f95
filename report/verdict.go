package report

import (
	"fmt"
	"strings"

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
)

// Verdict is a short plain-text answer for the terminal: which target is
// fastest on how many workloads, one line per workload with the ratio to
// the others and their p99 latencies, the load phase, and one line per
// warning (client-bound trials, errors, an interrupted run).
func Verdict(d *results.Data) string {
	s := summarize(d)
	var b strings.Builder
	b.WriteString(headline(s))
	b.WriteByte('\n')
	for i, r := range s.rows {
		if i == maxVerdictRows {
			fmt.Fprintf(&b, "  ... %s more in the report\n", plural(len(s.rows)-i, "row"))
			break
		}
		b.WriteString("  " + r.label + ": " + rowSentence(s, r) + "\n")
	}
	if line := loadSentence(s); line != "" && len(s.rows) > 0 {
		b.WriteString("  load: " + line + "\n")
	}
	if line := ceilingSentence(d); line != "" {
		b.WriteString("  client ceiling: " + line + "\n")
	}
	ws := warnings(d)
	for i, w := range ws {
		if i == maxVerdictWarnings {
			fmt.Fprintf(&b, "warning: ... %s more in the report\n", plural(len(ws)-i, "warning"))
			break
		}
		fmt.Fprintf(&b, "warning: %s: %s\n", w.Subject, w.Text)
	}
	return strings.TrimRight(b.String(), "\n")
}

// headline is the verdict's first line.
func headline(s *summary) string {
	if len(s.rows) == 0 {
		if line := loadSentence(s); line != "" {
			return "no measured runs yet; load: " + line
		}
		return "no trials yet: nothing to report"
	}
	measured := map[int]bool{}
	wins := make([]int, len(s.targets))
	compared, ties := 0, 0
	for _, r := range s.rows {
		for i := range r.cells {
			if r.cells[i].n > 0 {
				measured[i] = true
			}
		}
		if r.measured >= 2 {
			compared++
			wins[r.best]++
			if o := r.order(); r.cells[o[1]].mean > 0 && r.cells[o[0]].mean/r.cells[o[1]].mean < tieRatio {
				ties++
			}
		}
	}
	reps := ""
	if s.reps > 1 {
		reps = fmt.Sprintf(" (mean of up to %d repetitions)", s.reps)
	}
	switch {
	case len(measured) == 1:
		for i := range measured {
			return fmt.Sprintf("one target measured, %s: nothing to compare it with%s", s.targets[i], reps)
		}
	case compared == 0:
		return "no workload was measured on two targets yet: nothing to compare" + reps
	}
	out := winsSentence(s, wins, compared)
	if ties > 0 {
		out += fmt.Sprintf(", %d of them within 5%% of the runner-up", ties)
	}
	return out + reps
}

// winsSentence says "postgres is fastest on 2 of 3 workloads, cassandra
// on 1".
func winsSentence(s *summary, wins []int, compared int) string {
	order := make([]int, 0, len(wins))
	for i, n := range wins {
		if n > 0 {
			order = append(order, i)
		}
	}
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && wins[order[j]] > wins[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	first := order[0]
	if wins[first] == compared {
		if compared == 1 {
			return s.targets[first] + " is fastest on the one workload measured on more than one target"
		}
		return fmt.Sprintf("%s is fastest on all %d workloads", s.targets[first], compared)
	}
	out := fmt.Sprintf("%s is fastest on %d of %d workloads", s.targets[first], wins[first], compared)
	for _, i := range order[1:] {
		out += fmt.Sprintf(", %s on %d", s.targets[i], wins[i])
	}
	return out
}

// rowSentence says "postgres 12,300 ops/s, 1.8x cassandra (p99 2.1 ms vs
// 5.4 ms)".
func rowSentence(s *summary, r *row) string {
	out := rowComparison(s, r)
	for i := range r.cells {
		if f := r.cells[i].failedText(); f != "" {
			out += "; " + s.targets[i] + " " + f
		}
	}
	return out
}

// rowComparison compares the row's measured cells.
func rowComparison(s *summary, r *row) string {
	order := r.order()
	if len(order) == 0 {
		return "no throughput measured"
	}
	best := &r.cells[order[0]]
	out := fmt.Sprintf("%s %s ops/s", s.targets[order[0]], fmtRate(best.mean))
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
		if c.mean <= 0 {
			out += fmt.Sprintf(", %s %s ops/s", s.targets[i], fmtRate(c.mean))
			continue
		}
		if ratio := best.mean / c.mean; ratio < tieRatio {
			out += ", tied with " + s.targets[i] + " within 5%"
		} else {
			out += fmt.Sprintf(", %s %s", fmtRatio(ratio), s.targets[i])
		}
	}
	return out + " (p99 " + strings.Join(p99s, " vs ") + ")"
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
