package experiment

// The end of the planned rounds: the trials left to measure again, and
// for run.repetitions: auto, whether another round is worth its time.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dbarena/dbarena/analysis/decide"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/internal/plural"
	"github.com/dbarena/dbarena/report"
	"github.com/dbarena/dbarena/results"
)

// endOfRounds is called once the plan's steps have run. Repetitions:
// auto adds a round (whose start measures again what the last one
// flagged) unless every workload is decided, the budget would be spent,
// or the targets ran apart. Otherwise the trials still to measure again
// are measured now, in a catch-up round, and so is what that flags in
// turn (at most maxAttempts deep): a superseded row names its retry,
// and the retry runs.
func (g *group) endOfRounds(ctx context.Context) (failed []error, err error) {
	s := g.s
	r := s.plan.Spec.Run
	if !r.Rounds() {
		return nil, nil
	}
	if r.RepetitionsAuto {
		visit, why := g.another()
		if visit != nil {
			added := s.plan.AddRound(visit)
			s.mu.Lock()
			for i := range added {
				s.manifest.Steps = append(s.manifest.Steps, stepOf(&added[i]))
			}
			s.manifest.PlannedSteps = len(s.plan.Steps)
			s.mu.Unlock()
			fmt.Fprintf(s.opts.Stderr, "dbarena: round %d: %s\n", s.plan.Rounds(), why)
			return nil, s.writeManifest()
		}
		s.stopRounds(s.plan.Rounds(), why)
	}
	for len(g.again) > 0 {
		f, err := g.measureAgain(ctx)
		failed = append(failed, f...)
		if err != nil {
			return failed, err
		}
	}
	return failed, nil
}

// another says whether repetitions: auto runs one more round, which
// rows it visits, and why (or why not).
func (g *group) another() (visit func(string, []spec.KV) bool, why string) {
	s := g.s
	r := s.plan.Spec.Run
	rounds := s.plan.Rounds()
	if len(s.plan.Spec.Targets) < 2 {
		return nil, fmt.Sprintf("%s: one target, nothing to decide", plural.Count(rounds, "round"))
	}
	if len(g.runs) < len(s.plan.Spec.Targets) {
		return nil, fmt.Sprintf("%s: the targets did not run side by side, so rounds cannot be added until decided", plural.Count(rounds, "round"))
	}
	if rounds >= spec.MaxRounds {
		return nil, fmt.Sprintf("%d rounds, the most repetitions: auto runs", rounds)
	}
	d, err := results.Read(s.w.Dir())
	if err != nil {
		return nil, fmt.Sprintf("%s: the results could not be read to decide (%v)", plural.Count(rounds, "round"), err)
	}
	open := report.Undecided(d)
	if len(open) == 0 {
		return nil, fmt.Sprintf("every workload decided after %s", plural.Count(rounds, "round"))
	}
	spent := time.Since(s.started)
	perRow := g.lastRound(d) / time.Duration(max(g.rowsIn(rounds), 1))
	plan := planRound(open, perRow, r.Budget-spent)
	if len(plan.visit) == 0 {
		if len(plan.futile) == 0 {
			return nil, fmt.Sprintf("%s: another (about %s) would pass the budget of %s (%s spent); undecided: %s",
				plural.Count(rounds, "round"), (perRow * time.Duration(len(open))).Round(time.Second), r.Budget, spent.Round(time.Second), rowNames(open))
		}
		return nil, fmt.Sprintf("%s: no undecided workload can be decided within the budget of %s (%s spent): %s",
			plural.Count(rounds, "round"), r.Budget, spent.Round(time.Second), plan.futileText())
	}
	keep := map[string]bool{}
	for _, f := range plan.visit {
		keep[report.RowKey(f.Workload, f.Params)] = true
	}
	visit = func(w string, pt []spec.KV) bool { return keep[report.RowKey(w, paramsOf(pt))] }
	why = fmt.Sprintf("undecided after %s: %s; another round of %s (about %s, %s of the %s budget left)",
		plural.Count(rounds, "round"), rowNames(open), rowNames(plan.visit), (perRow * time.Duration(len(plan.visit))).Round(time.Second),
		(r.Budget - spent).Round(time.Second), r.Budget)
	if len(plan.futile) > 0 {
		why += "; left out: " + plan.futileText()
	}
	return visit, why
}

// futileFactor: a row is left out of the rounds added when deciding it
// would likely take more than this many times the repetitions the
// budget can still give it. The estimate (decide.Judgement.Needed) comes
// from the spread of a few repetitions, which may be half or twice the
// true one, so only a long shot is dropped.
const futileFactor = 2

// roundPlan is the rows the next round visits and those left out as
// beyond the budget, with the repetitions a side the budget can give
// each row visited (fit: the rounds that fit, beyond those it has).
type roundPlan struct {
	visit, futile []report.Finding
	fit           int
}

// planRound chooses the undecided rows the next round visits, when each
// costs about perRow and left remains of the budget: the rows whose
// decision looks nearest (fewest repetitions needed), as many as can
// each still hope to be decided by the rounds that would fit with them
// all (more rows, fewer rounds). A row with no interval yet (a side
// with fewer than two repetitions) needs one more. With none left
// (every row futile, or no round fits), visit is empty.
func planRound(open []report.Finding, perRow, left time.Duration) roundPlan {
	rows := slices.Clone(open)
	need := func(f report.Finding) int {
		if f.Needed <= 0 {
			return f.Repetitions + 1
		}
		return f.Needed
	}
	slices.SortStableFunc(rows, func(a, b report.Finding) int { return need(a) - need(b) })
	for k := len(rows); k > 0; k-- {
		fit := 0
		if perRow > 0 {
			fit = int(left / (perRow * time.Duration(k)))
		} else if left > 0 {
			fit = decide.MaxNeeded
		}
		if fit == 0 {
			continue
		}
		hopeful := true
		for _, f := range rows[:k] {
			hopeful = hopeful && f.Needed <= decide.MaxNeeded && need(f) <= futileFactor*(f.Repetitions+fit)
		}
		if hopeful {
			return roundPlan{visit: rows[:k], futile: rows[k:], fit: fit}
		}
	}
	var futile []report.Finding
	for _, f := range rows {
		if perRow <= 0 || left >= perRow {
			futile = append(futile, f)
		}
	}
	return roundPlan{futile: futile}
}

// futileText names the rows left out and what each would need: "b
// (about 74 repetitions a side), f (more than 100)".
func (p roundPlan) futileText() string {
	var parts []string
	for _, f := range p.futile {
		if f.Needed > decide.MaxNeeded {
			parts = append(parts, fmt.Sprintf("%s (more than %d repetitions a side would be needed)", f.Row, decide.MaxNeeded))
		} else {
			parts = append(parts, fmt.Sprintf("%s (about %d repetitions a side would be needed, %d so far)", f.Row, f.Needed, f.Repetitions))
		}
	}
	return strings.Join(parts, ", ")
}

// rowNames lists the rows' names: "a, b · threads=8".
func rowNames(fs []report.Finding) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Row
	}
	return strings.Join(names, ", ")
}

// rowsIn counts the rows (a workload at a matrix point) that round ran.
func (g *group) rowsIn(round int) int {
	seen := map[string]bool{}
	for i := range g.s.plan.Steps {
		st := &g.s.plan.Steps[i]
		if st.Round != round || st.Kind != spec.Run {
			continue
		}
		seen[report.RowKey(st.Workload.Name, paramsOf(st.Params))] = true
	}
	return len(seen)
}

// lastRound is how long the last round took, from its first trial's
// start (its load's, when one came first) to now.
func (g *group) lastRound(d *results.Data) time.Duration {
	round := g.s.plan.Rounds()
	var first time.Time
	for i := range g.s.plan.Steps {
		st := &g.s.plan.Steps[i]
		if st.Round != round {
			continue
		}
		for j := range d.Trials {
			if t := &d.Trials[j]; t.ID == st.ID && (first.IsZero() || t.Start.Before(first)) {
				first = t.Start
			}
		}
	}
	if first.IsZero() {
		return 0
	}
	return time.Since(first)
}

// stopRounds records how many rounds ran and why no more did.
func (s *runState) stopRounds(rounds int, why string) {
	s.mu.Lock()
	if s.manifest.Run != nil {
		s.manifest.Run.Rounds, s.manifest.Run.Stopped = rounds, why
	}
	s.mu.Unlock()
	fmt.Fprintf(s.opts.Stderr, "dbarena: %s\n", why)
}
