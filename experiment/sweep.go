package experiment

import (
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/analysis/saturation"
	"github.com/dbarena/dbarena/experiment/spec"
)

// sweepAxis is the matrix axis a sweep run until saturated varies.
const sweepAxis = "threads"

// sweepTracker ends client sweeps early (run.until: saturated): it keeps,
// per target, workload and matrix point other than the thread count, the
// mean throughput of each thread count in the order run, and once the
// last SaturationSteps steps each gained under SaturationGain, the
// remaining thread counts of that sweep are skipped.
type sweepTracker struct {
	on     bool
	gain   float64
	steps  int
	groups map[string]*sweepGroup
}

// sweepGroup is one sweep's progress.
type sweepGroup struct {
	means []float64
	// cur is the thread count being measured and sum, n its repetitions.
	cur      string
	sum      float64
	n        int
	lastDone string
	// at is the thread count where the sweep saturated ("" not yet).
	at string
}

func newSweepTracker(r spec.RunSettings) *sweepTracker {
	return &sweepTracker{on: r.Until == spec.UntilSaturated, gain: r.SaturationGain, steps: r.SaturationSteps,
		groups: map[string]*sweepGroup{}}
}

// key splits a step into its sweep's key and its thread count.
func sweepKey(st *spec.Step) (string, string, bool) {
	if st.Kind != spec.Run || st.Workload == nil {
		return "", "", false
	}
	var rest []string
	point, found := "", false
	for _, p := range st.Params {
		if p.Key == sweepAxis {
			point, found = p.Value, true
			continue
		}
		rest = append(rest, p.Key+"="+p.Value)
	}
	return st.Target.Name + "|" + st.Workload.Name + "|" + strings.Join(rest, ";"), point, found
}

// saturated reports whether st belongs to a sweep that has saturated,
// and at which thread count.
func (t *sweepTracker) saturated(st *spec.Step) (string, bool) {
	if !t.on {
		return "", false
	}
	key, point, ok := sweepKey(st)
	if !ok {
		return "", false
	}
	g := t.groups[key]
	if g == nil {
		return "", false
	}
	if point != g.cur && g.n > 0 {
		g.close()
		if g.at == "" && saturation.Saturated(g.means, t.gain, t.steps) {
			g.at = g.lastDone
		}
	}
	return g.at, g.at != ""
}

// record adds a measured step's throughput to its sweep.
func (t *sweepTracker) record(st *spec.Step, x float64) {
	if !t.on {
		return
	}
	key, point, ok := sweepKey(st)
	if !ok {
		return
	}
	g := t.groups[key]
	if g == nil {
		g = &sweepGroup{}
		t.groups[key] = g
	}
	if point != g.cur && g.n > 0 {
		g.close()
	}
	g.cur = point
	g.sum += x
	g.n++
}

// close ends the current thread count: its mean joins the series.
func (g *sweepGroup) close() {
	g.means = append(g.means, g.sum/float64(g.n))
	g.lastDone = g.cur
	g.sum, g.n = 0, 0
}

// skip records a step left out because its sweep saturated.
func (s *runState) skip(st *spec.Step, at string) {
	msg := fmt.Sprintf("%s skipped: the sweep saturated at %s=%s (each of the last %d steps added under %.0f%% throughput)",
		st.ID, sweepAxis, at, s.plan.Spec.Run.SaturationSteps, s.plan.Spec.Run.SaturationGain*100)
	fmt.Fprintf(s.opts.Stderr, "dbarena: %s\n", msg)
	s.mu.Lock()
	s.manifest.SkippedSteps++
	s.manifest.Warnings = append(s.manifest.Warnings, msg)
	s.mu.Unlock()
	if err := s.writeManifest(); err != nil {
		s.log.Warn("manifest not written", "err", err)
	}
}
