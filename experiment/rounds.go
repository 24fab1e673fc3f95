package experiment

// The end of the planned rounds: the trials left to measure again, and
// for run.repetitions: auto, whether another round is worth its time.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dbarena/dbarena/experiment/spec"
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
		more, why := g.another()
		if more {
			added := s.plan.AddRound()
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

// another says whether repetitions: auto runs one more round, and why
// (or why not).
func (g *group) another() (bool, string) {
	s := g.s
	r := s.plan.Spec.Run
	rounds := s.plan.Rounds()
	if len(s.plan.Spec.Targets) < 2 {
		return false, fmt.Sprintf("%s: one target, nothing to decide", plural(rounds, "round"))
	}
	if len(g.runs) < len(s.plan.Spec.Targets) {
		return false, fmt.Sprintf("%s: the targets did not run side by side, so rounds cannot be added until decided", plural(rounds, "round"))
	}
	if rounds >= spec.MaxRounds {
		return false, fmt.Sprintf("%d rounds, the most repetitions: auto runs", rounds)
	}
	d, err := results.Read(s.w.Dir())
	if err != nil {
		return false, fmt.Sprintf("%s: the results could not be read to decide (%v)", plural(rounds, "round"), err)
	}
	open := report.Undecided(d)
	if len(open) == 0 {
		return false, fmt.Sprintf("every workload decided after %s", plural(rounds, "round"))
	}
	last := g.lastRound(d)
	spent := time.Since(s.started)
	if spent+last > r.Budget {
		return false, fmt.Sprintf("%s: another (about %s) would pass the budget of %s (%s spent); undecided: %s",
			plural(rounds, "round"), last.Round(time.Second), r.Budget, spent.Round(time.Second), strings.Join(open, ", "))
	}
	return true, fmt.Sprintf("undecided after %s: %s; another round (about %s, %s of the %s budget left)",
		plural(rounds, "round"), strings.Join(open, ", "), last.Round(time.Second), (r.Budget - spent).Round(time.Second), r.Budget)
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
