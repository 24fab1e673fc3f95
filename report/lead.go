package report

// Who leads a row of the comparison, by throughput and by p99, and the
// tally of leads over the rows. Every judgement is analysis/decide's:
// a lead where the ratio's interval excludes 1x, equivalence where it
// lies within the margin, and otherwise that the repetitions cannot
// tell.

import (
	"cmp"
	"slices"

	"github.com/dbarena/dbarena/analysis/decide"
)

// lead is how far a row's figures back its leader, the target of the
// highest mean throughput (or lowest mean p99).
type lead int

const (
	// leadNone: fewer than two targets measured, nothing to lead.
	leadNone lead = iota
	// leadEstablished: every other target's ratio to the leader has an
	// interval that excludes 1x (decide.Lead).
	leadEstablished
	// leadEquivalent: the runner-up's ratio lies within the equivalence
	// margin (decide.Equivalent): the two are the same to a user.
	leadEquivalent
	// leadIndistinct: a ratio's interval holds 1x and reaches past the
	// margin: the repetitions cannot tell (decide.Undecided).
	leadIndistinct
	// leadUnconfirmed: a side has one repetition, so a ratio has no
	// interval to judge by.
	leadUnconfirmed
	// leadUnlike: the targets' p99s were read at different
	// concurrencies or rates: not compared.
	leadUnlike
)

// decided reports whether the lead is a finding: a lead, or
// equivalence.
func (l lead) decided() bool { return l == leadEstablished || l == leadEquivalent }

// judgement is one row's comparison on one figure: the lead and the
// judgement of the ratio that decided it (the runner-up's, or the
// first that kept it from being decided).
type judgement struct {
	lead lead
	// best is the index of the leader (-1: none).
	best int
	j    decide.Judgement
	// other is the index of the target whose ratio j is.
	other int
}

// leadOf judges the row's throughput leader against every other
// measured target: equivalent where the runner-up is, else cannot tell
// where an interval holds 1x, else unconfirmed where one is missing,
// else established. A target measured at 0 ops/s has no ratio interval
// (its log is undefined): the leader's lead over it is established with
// two repetitions on each side, as another ratio's would be.
func (r *row) leadOf() lead { return r.throughputJudgement(r.rule).lead }

// throughputJudgement judges the row's throughput by rule.
func (r *row) throughputJudgement(rule decide.Rule) judgement {
	order := r.order()
	out := judgement{best: -1, other: -1}
	if len(order) < 2 {
		return out
	}
	out.best = order[0]
	top := &r.cells[order[0]]
	if top.mean <= 0 {
		out.lead = leadEquivalent // every target at 0 ops/s
		return out
	}
	sides := func(i int) (decide.Summary, decide.Summary) {
		c := &r.cells[i]
		return c.throughput(), top.throughput()
	}
	return judgeAgainst(order, rule, sides, func(i int) bool { return r.cells[i].mean <= 0 && top.n >= 2 && r.cells[i].n >= 2 })
}

// judgeAgainst judges the leader order[0] against each other target:
// the first equivalent runner-up makes the row equivalent; otherwise the
// weakest of the ratios decides (cannot tell, then unconfirmed, then
// established). sides gives the other's and the leader's summaries;
// zero says the other measured 0, a lead without a ratio.
func judgeAgainst(order []int, rule decide.Rule, sides func(int) (decide.Summary, decide.Summary), zero func(int) bool) judgement {
	out := judgement{lead: leadEstablished, best: order[0], other: -1}
	rank := map[lead]int{leadEstablished: 0, leadUnconfirmed: 1, leadIndistinct: 2}
	for k, i := range order[1:] {
		if zero(i) {
			continue
		}
		a, b := sides(i)
		j := decide.Judge(a, b, rule)
		l := leadEstablished
		switch j.Outcome {
		case decide.Equivalent:
			if k == 0 {
				return judgement{lead: leadEquivalent, best: order[0], j: j, other: i}
			}
		case decide.Undecided:
			l = leadIndistinct
		case decide.NoInterval:
			l = leadUnconfirmed
		}
		if out.other < 0 || rank[l] > rank[out.lead] {
			out.lead, out.j, out.other = l, j, i
		}
	}
	return out
}

// p99LeadOf judges the row's lowest p99 as leadOf judges its highest
// throughput, on the ratio of each other target's mean p99 to the
// lowest: a lower p99 that the repetitions cannot tell apart is no
// lead. best is the target of the lowest p99.
func (r *row) p99LeadOf() (l lead, best int) {
	j := r.p99Judgement(r.rule)
	return j.lead, j.best
}

// p99Judgement judges the row's p99 by rule. Latencies read at
// different concurrencies or rates are not compared: a closed loop's
// p99 at twice the workers is twice the queue.
func (r *row) p99Judgement(rule decide.Rule) judgement {
	var order []int
	for i := range r.cells {
		if c := &r.cells[i]; c.n > 0 && c.p99n > 0 && finite(c.lat.P99) {
			order = append(order, i)
		}
	}
	out := judgement{best: -1, other: -1}
	if len(order) < 2 {
		return out
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(r.cells[i].lat.P99, r.cells[j].lat.P99) })
	out.best = order[0]
	if _, like := r.loadOfCells(order); !like {
		out.lead = leadUnlike
		return out
	}
	top := &r.cells[order[0]]
	if top.lat.P99 <= 0 {
		out.lead = leadEquivalent
		return out
	}
	sides := func(i int) (decide.Summary, decide.Summary) {
		c := &r.cells[i]
		// the lowest's p99 over the other's: below 1x is the lead
		return c.p99(), top.p99()
	}
	return judgeAgainst(order, rule, sides, func(int) bool { return false })
}

// loadOfCells is the load every one of the cells' trials ran under
// ("16 workers", "at 5,000 ops/s"), and whether it was the same for
// all of them.
func (r *row) loadOfCells(cells []int) (string, bool) {
	load := ""
	for _, i := range cells {
		for _, t := range r.cells[i].trials {
			l := loadText(t.Threads, t.TargetRate)
			if load == "" {
				load = l
			}
			if l != load {
				return "", false
			}
		}
	}
	return load, true
}

// tally counts the compared rows by how their leads stand: won and
// ahead are by target, established and unconfirmed leads.
type tally struct {
	compared, equivalent, indistinct, unlike int
	won, ahead                               []int
	// open are the labels of the rows that cannot tell.
	open []string
}

// add counts one compared row whose lead is l, led by best.
func (t *tally) add(l lead, best int, label string) {
	t.compared++
	switch l {
	case leadEstablished:
		t.won[best]++
	case leadEquivalent:
		t.equivalent++
	case leadIndistinct:
		t.indistinct++
		t.open = append(t.open, label)
	case leadUnconfirmed:
		t.ahead[best]++
	case leadUnlike:
		t.unlike++
	}
}
