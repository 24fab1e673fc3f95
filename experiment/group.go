package experiment

// A group of targets deployed side by side, and the loop that runs the
// plan's steps on them: every target's first load, their warm-ups and
// calibrations, then the rounds, each trial on its data as loaded, the
// load generator kept off the measured database's cores, and the
// trials measured again where their window moved or other processes
// took their cores.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/internal/cgroup"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/sysmetrics"
)

// group is the targets deployed at once and what their run shares.
type group struct {
	s *runState
	// runs are the targets deployed, in file order; byTarget finds them.
	runs     []*targetRun
	byTarget map[*spec.Target]*targetRun
	// pool is the cores this process had before it confined itself;
	// confined the cores it is confined to now (nil: the pool), restore
	// undoes it.
	pool     []int
	confined []int
	restore  func() error
	// round is the round being run (0: the first loads).
	round int
	// again are the trials to measure again at the next round.
	again []*spec.Step
	// warmed says the targets' warm-ups and calibrations ran.
	warmed bool
	// unloaded are targets whose last load failed: their runs are
	// skipped until a load of theirs completes.
	unloaded map[*spec.Target]string
	sweep    *sweepTracker
}

// runGroup deploys targets side by side (one target when they run one
// after another), runs their steps of the plan and tears them down.
// failed are the trials that failed and the deployments that did not
// come up; err is what must stop the whole run.
func (s *runState) runGroup(ctx context.Context, targets []*spec.Target, cores map[*spec.Target][]int) (failed []error, err error) {
	g := &group{s: s, byTarget: map[*spec.Target]*targetRun{}, pool: sysmetrics.Affinity(),
		unloaded: map[*spec.Target]string{}, sweep: newSweepTracker(s.plan.Spec.Run)}
	defer func() { err = errors.Join(err, g.close()) }()
	for _, t := range targets {
		if err := ctx.Err(); err != nil {
			return failed, err
		}
		dep, ti, derr := s.deployTarget(ctx, t, s.stepsOf(t), cores[t])
		if dep == nil {
			var df *deployFailure
			if errors.As(derr, &df) {
				failed = append(failed, df.err)
				continue
			}
			return failed, derr
		}
		tr := &targetRun{s: s, t: t, dep: dep, index: ti, g: g, loads: map[string]*spec.Step{}}
		g.runs = append(g.runs, tr)
		g.byTarget[t] = tr
		if err := tr.recordCores(g.pool); err != nil {
			return failed, err
		}
	}
	more, err := g.run(ctx)
	return append(failed, more...), err
}

// close gives the load generator its cores back and tears the targets
// down, the last deployed first.
func (g *group) close() error {
	var errs []error
	for _, tr := range g.runs {
		if err := tr.resume(); err != nil {
			g.s.log.Warn("a paused target was not resumed before its teardown", "target", tr.t.Name, "err", err)
		}
	}
	if err := g.unconfine(); err != nil {
		g.s.log.Warn("the load generator's cores were not given back", "err", err)
	}
	for i := len(g.runs) - 1; i >= 0; i-- {
		tr := g.runs[i]
		tr.unwatchDatabase()
		for _, h := range tr.dep.Hosts() {
			g.s.coll.Remove(h.Name)
		}
		errs = append(errs, g.s.teardown(tr.t.Name, tr.dep, tr.index))
	}
	return errors.Join(errs...)
}

// run runs the plan's steps of the group's targets in order, and the
// rounds repetitions: auto adds, until none is added.
func (g *group) run(ctx context.Context) (failed []error, err error) {
	s := g.s
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return failed, err
		}
		if i == len(s.plan.Steps) {
			f, err := g.endOfRounds(ctx)
			failed = append(failed, f...)
			if err != nil || i == len(s.plan.Steps) {
				return failed, err
			}
		}
		st := &s.plan.Steps[i]
		tr := g.byTarget[st.Target]
		if tr == nil {
			continue
		}
		if st.Kind == spec.Run && !g.warmed {
			if err := g.warm(ctx); err != nil {
				return failed, err
			}
		}
		if st.Round > g.round {
			// A new round: the trials of the last one to measure again
			// come first.
			f, err := g.measureAgain(ctx)
			failed = append(failed, f...)
			if err != nil {
				return failed, err
			}
			g.round = st.Round
		}
		f, err := g.step(ctx, tr, st)
		failed = append(failed, f...)
		if err != nil {
			return failed, err
		}
	}
}

// step runs one step of the plan on tr, unless its data could not be
// loaded or its sweep saturated, and counts it in the manifest.
func (g *group) step(ctx context.Context, tr *targetRun, st *spec.Step) (failed []error, err error) {
	s := g.s
	if st.Kind == spec.Run {
		if load, ok := g.unloaded[tr.t]; ok {
			s.skipAll([]*spec.Step{st}, fmt.Sprintf("the load %s failed", load))
			return nil, nil
		}
		if at, saturated := g.sweep.saturated(st); saturated {
			s.skip(st, at)
			return nil, nil
		}
	}
	row, err := g.measure(ctx, tr, st)
	var tf *trialFailure
	switch {
	case errors.As(err, &tf):
		failed = append(failed, err)
		s.countStep(false)
	case err != nil:
		return failed, err
	case row.Status == results.StatusSuperseded:
		// Its retry counts the step.
	default:
		g.sweep.record(st, row.Throughput)
		s.countStep(true)
	}
	if err := s.writeManifest(); err != nil {
		return failed, err
	}
	if row.Status != results.StatusSuperseded {
		return failed, nil
	}
	again := againStep(st)
	when := "in the next round"
	if !s.plan.Spec.Run.Rounds() {
		when = "now"
	}
	why, _, _ := strings.Cut(row.StatusReason, ": measured again")
	fmt.Fprintf(s.opts.Stderr, "dbarena: %s: %s: measuring it again %s as %s (both rows are kept; the first is left out of every comparison)\n",
		st.ID, why, when, again.ID)
	if !s.plan.Spec.Run.Rounds() {
		// A sweep's or a search's steps follow each other by design:
		// measured again at once.
		f, err := g.step(ctx, tr, again)
		return append(failed, f...), err
	}
	g.again = append(g.again, again)
	return failed, nil
}

// measure runs st on tr: on the data it needs (loaded again first when
// a run before changed it, or a retry needs it), with the load
// generator off tr's cores.
func (g *group) measure(ctx context.Context, tr *targetRun, st *spec.Step) (results.Trial, error) {
	if err := g.focus(tr); err != nil {
		return results.Trial{}, err
	}
	if st.Kind == spec.Run {
		if err := tr.ensureData(ctx, st); err != nil {
			var tf *trialFailure
			if !errors.As(err, &tf) {
				return results.Trial{}, err
			}
			return tr.failed(tr.emptyRow(st), tr.label(st), "not measured: its data could not be loaded again ("+tf.id+" failed)")
		}
	}
	row, err := tr.step(ctx, st)
	if st.Kind == spec.Load {
		if row.Status == results.StatusCompleted && err == nil {
			delete(g.unloaded, tr.t)
		} else if ctx.Err() == nil {
			g.unloaded[tr.t] = st.ID
		}
	}
	return row, err
}

// measureAgain runs the trials queued to be measured again.
func (g *group) measureAgain(ctx context.Context) (failed []error, err error) {
	queue := g.again
	g.again = nil
	for _, st := range queue {
		f, err := g.step(ctx, g.byTarget[st.Target], st)
		failed = append(failed, f...)
		if err != nil {
			return failed, err
		}
	}
	return failed, nil
}

// warm runs every target's warm-up (run.prewarm) and calibration
// (run.threads: auto) on its first data, before any trial, and, where
// the targets run side by side, gives every target one count where it
// costs none of them much (commonThreads): figures, latency too,
// compared at one concurrency.
func (g *group) warm(ctx context.Context) error {
	g.warmed = true
	s := g.s
	chosen := 0
	warmed := map[*targetRun]*spec.Step{}
	for _, tr := range g.runs {
		st := s.plan.KeepsData(tr.t)
		if st == nil {
			continue
		}
		if _, unloaded := g.unloaded[tr.t]; unloaded {
			continue
		}
		if err := g.focus(tr); err != nil {
			return err
		}
		if err := tr.warmTarget(ctx, st); err != nil {
			return err
		}
		warmed[tr] = st
		chosen = max(chosen, tr.threads)
	}
	if len(g.runs) < 2 || chosen == 0 || !s.plan.Spec.Run.ThreadsAuto {
		return nil
	}
	// A ramp that stopped below the count another chose is measured on
	// to it, so that the counts can be weighed on every ramp.
	for _, tr := range g.runs {
		c := s.calibrationOf(tr)
		if warmed[tr] == nil || tr.calibrationErr != nil || c == nil || len(c.Points) == 0 || c.Points[len(c.Points)-1].Threads >= chosen {
			continue
		}
		if err := g.focus(tr); err != nil {
			return err
		}
		if err := tr.extendCalibration(ctx, warmed[tr], chosen); err != nil {
			if ctx.Err() != nil {
				return err
			}
			s.log.Warn("the calibration could not be measured on; each target may run its own count", "target", tr.t.Name, "err", err)
		}
	}
	if common, ok := g.commonThreads(); ok {
		for _, tr := range g.runs {
			if tr.calibrationErr == nil && tr.threads > 0 {
				tr.threads = common
			}
		}
		s.mu.Lock()
		if s.manifest.Run != nil {
			s.manifest.Run.CommonThreads = common
		}
		s.mu.Unlock()
		fmt.Fprintf(s.opts.Stderr, "dbarena: every target runs %d workers, a count a calibration chose, within %.0f%% of each one's best: every figure, latency too, is read at one concurrency\n",
			common, 100*(1-commonShare))
	}
	return nil
}

// commonShare is the share of its best throughput (its ramp's most) a
// target must keep at the common count for the targets to share it: an
// A/A pair whose ramps chose 16 and 8 workers from noise (PostgreSQL on
// one core is within 10% of its best from 8 to 32) runs one count,
// while PostgreSQL, past its best at 8 workers on one core (31,375
// ops/s; 23,711 at 32), is not pushed to Cassandra's 64.
const commonShare = 0.90

// commonThreads is the count every calibrated target of the group runs:
// of the counts the calibrations chose, the one whose worst share of a
// target's best (by that target's own ramp) is the highest, the larger
// on a tie; ok is false when that share is under commonShare, or a
// target has no ramp (each then runs its own, and their p99s are not
// compared).
func (g *group) commonThreads() (int, bool) {
	var ramps []*results.Calibration
	for _, tr := range g.runs {
		c := g.s.calibrationOf(tr)
		if tr.calibrationErr != nil || c == nil {
			return 0, false
		}
		ramps = append(ramps, c)
	}
	best, bestShare := 0, -1.0
	for _, cand := range ramps {
		n := cand.Threads
		worst := 1.0
		for _, c := range ramps {
			worst = math.Min(worst, shareAt(c, n))
		}
		if worst > bestShare || (worst == bestShare && n > best) {
			best, bestShare = n, worst
		}
	}
	return best, bestShare >= commonShare
}

// shareAt is a ramp's throughput at n workers over its most (0 when the
// ramp stopped before n).
func shareAt(c *results.Calibration, n int) float64 {
	most, at := 0.0, 0.0
	for _, p := range c.Points {
		most = math.Max(most, p.Throughput)
		if p.Threads == n {
			at = p.Throughput
		}
	}
	if most <= 0 {
		return 0
	}
	return at / most
}

// focus makes tr the target measured: the others paused where their
// provider can (deploy.Pauser), tr resumed, the load generator off its
// database's cores and its rows labelled with it.
func (g *group) focus(tr *targetRun) error {
	for _, o := range g.runs {
		if o != tr {
			o.pause()
		}
	}
	if err := tr.resume(); err != nil {
		return err
	}
	g.s.setTarget(tr)
	return g.confine(tr)
}

// confine keeps the load generator off the cores tr's database was
// given, and gives it every other core it had.
func (g *group) confine(tr *targetRun) error {
	want := cgroup.Others(g.pool, tr.databaseCores())
	if len(want) == len(g.pool) {
		want = nil
	}
	if slices.Equal(want, g.confined) {
		return nil
	}
	if err := g.unconfine(); err != nil {
		return err
	}
	if want == nil {
		return nil
	}
	if len(want) == 0 {
		return fmt.Errorf("target %s: deploy.pin: the database took cores %v, every one this process may use; none is left for the load generator", tr.t.Name, tr.databaseCores())
	}
	restore, err := cgroup.ConfineSelf(want)
	if err != nil {
		return fmt.Errorf("target %s: keep the load generator off the database's cores: %w", tr.t.Name, err)
	}
	g.confined, g.restore = want, restore
	return nil
}

// unconfine gives the load generator back the cores it had.
func (g *group) unconfine() error {
	if g.restore == nil {
		return nil
	}
	err := g.restore()
	g.confined, g.restore = nil, nil
	return err
}

// idle are the group's targets other than tr: idle while tr is
// measured.
func (g *group) idle(tr *targetRun) []*targetRun {
	var out []*targetRun
	for _, o := range g.runs {
		if o != tr {
			out = append(out, o)
		}
	}
	return out
}

// againStep is st to be measured again: its next attempt, under the ID
// results.AgainID gives.
func againStep(st *spec.Step) *spec.Step {
	again := *st
	again.Attempt++
	again.ID = results.AgainID(baseID(st), again.Attempt)
	return &again
}

// baseID is a step's ID without its attempt's suffix.
func baseID(st *spec.Step) string {
	if st.Attempt == 0 {
		return st.ID
	}
	return st.ID[:len(st.ID)-len(results.AgainID("", st.Attempt))]
}

// pause stops the target's servers while another target is measured,
// and the sampling of its database's metrics, whose connection would
// wait on them (its next trial opens one again).
// A provider that cannot pause leaves it running: its background work
// then shows in the others' trials as an idle target's CPU.
func (tr *targetRun) pause() {
	p, ok := tr.dep.(deploy.Pauser)
	if !ok || tr.paused {
		return
	}
	tr.detachDatabase()
	if err := p.Pause(); err != nil {
		tr.s.log.Warn("a target could not be paused while another is measured; it runs on beside it", "target", tr.t.Name, "err", err)
		_ = p.Resume()
		return
	}
	tr.paused = true
}

// resume lets a paused target's servers go on.
func (tr *targetRun) resume() error {
	if !tr.paused {
		return nil
	}
	tr.paused = false
	if err := tr.dep.(deploy.Pauser).Resume(); err != nil {
		return fmt.Errorf("target %s: resume: %w", tr.t.Name, err)
	}
	return nil
}
