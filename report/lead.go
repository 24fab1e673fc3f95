package report

// Who leads a row of the comparison, by throughput and by p99, and the
// tally of leads over the rows.

import (
	"cmp"
	"slices"

	"github.com/dbarena/dbarena/analysis/compare"
)

// lead is how far a row's throughput figures back its leader, the
// target of the highest mean.
type lead int

const (
	// leadNone: fewer than two targets measured, nothing to lead.
	leadNone lead = iota
	// leadEstablished: more than tieRatio ahead of every other target,
	// and every ratio's confidence interval excludes 1x.
	leadEstablished
	// leadTied: the runner-up is within tieRatio, run-to-run noise on a
	// shared machine, whatever the interval says.
	leadTied
	// leadIndistinct: a ratio's interval includes 1x: the repetitions
	// do not tell the two apart.
	leadIndistinct
	// leadUnconfirmed: a side has one repetition, so a ratio has no
	// interval to judge by.
	leadUnconfirmed
)

// leadOf judges the row's leader against every other measured target:
// tied with the runner-up within tieRatio, else not distinguishable
// where an interval includes 1x, else unconfirmed where one is missing,
// else established. A target measured at 0 ops/s has no ratio interval
// (its log is undefined): the leader's lead over it is established with
// two repetitions on each side, as another ratio's would be.
func (r *row) leadOf() lead {
	order := r.order()
	if len(order) < 2 {
		return leadNone
	}
	top := &r.cells[order[0]]
	if top.mean <= 0 {
		return leadTied // every target at 0 ops/s
	}
	out := leadEstablished
	for _, i := range order[1:] {
		c := &r.cells[i]
		if c.mean > 0 && top.mean/c.mean < tieRatio {
			return leadTied
		}
		lo, _, ok := ratioInterval(top, c)
		switch {
		case ok && lo <= 1:
			out = leadIndistinct
		case !ok && (c.mean > 0 || top.n < 2 || c.n < 2) && out == leadEstablished:
			out = leadUnconfirmed
		}
	}
	return out
}

// p99LeadOf judges the row's lowest p99 as leadOf judges its highest
// throughput, on the ratio of each other target's mean p99 to the
// lowest and that ratio's interval over the repetitions' p99s: a lower
// p99 that the repetitions cannot tell apart is no lead. best is the
// target of the lowest p99.
func (r *row) p99LeadOf() (l lead, best int) {
	var order []int
	for i := range r.cells {
		if c := &r.cells[i]; c.n > 0 && c.p99n > 0 && finite(c.lat.P99) {
			order = append(order, i)
		}
	}
	if len(order) < 2 {
		return leadNone, -1
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(r.cells[i].lat.P99, r.cells[j].lat.P99) })
	top := &r.cells[order[0]]
	if top.lat.P99 <= 0 {
		return leadTied, order[0]
	}
	l = leadEstablished
	for _, i := range order[1:] {
		c := &r.cells[i]
		if c.lat.P99/top.lat.P99 < tieRatio {
			return leadTied, order[0]
		}
		// the interval of c's p99 / the lowest
		lo, _, ok := compare.RatioInterval(compare.Summary{N: top.p99n, Mean: top.lat.P99, StdDev: top.p99std},
			compare.Summary{N: c.p99n, Mean: c.lat.P99, StdDev: c.p99std}, ciLevel)
		switch {
		case ok && lo <= 1:
			l = leadIndistinct
		case !ok && l == leadEstablished:
			l = leadUnconfirmed
		}
	}
	return l, order[0]
}

// tally counts the compared rows by how their leads stand: won and
// ahead are by target, established and unconfirmed leads.
type tally struct {
	compared, tied, indistinct int
	won, ahead                 []int
}

// add counts one compared row whose lead is l, led by best.
func (t *tally) add(l lead, best int) {
	t.compared++
	switch l {
	case leadEstablished:
		t.won[best]++
	case leadTied:
		t.tied++
	case leadIndistinct:
		t.indistinct++
	case leadUnconfirmed:
		t.ahead[best]++
	}
}
