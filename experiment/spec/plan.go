package spec

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workloads"
)

// StepKind says whether a step loads data or measures a workload.
type StepKind int

// Step kinds.
const (
	Load StepKind = iota + 1
	Run
)

// String returns "load" or "run".
func (k StepKind) String() string {
	switch k {
	case Load:
		return "load"
	case Run:
		return "run"
	}
	return "StepKind(" + strconv.Itoa(int(k)) + ")"
}

// Step is one load or measured trial of the plan.
type Step struct {
	// Index is the step's position in Plan.Steps.
	Index int
	Kind  StepKind
	// ID is unique in the plan, stable across runs of the same file and
	// safe in file names: "postgres.load.1", "postgres.a",
	// "postgres.a.threads=8.rep2" (matrix values in axis order; the
	// repetition only when there is more than one).
	ID       string
	Target   *Target
	Workload *Workload
	// Params is the step's matrix point, in axis order; a load's leaves
	// out the threads and target axes, which apply to runs.
	Params []KV
	// Repetition counts from 1; loads are repetition 1.
	Repetition int
	// Properties are the fully merged properties, each with the source
	// (file and line) it came from.
	Properties *properties.Set
	// Threads and Rate (operations per second, 0: unthrottled) are the
	// load settings for a load, the run settings or matrix for a run.
	// ThreadsAuto: the run's threads are the target's calibrated count,
	// known only at run time (Threads is then 0).
	Threads     int
	ThreadsAuto bool
	Rate        float64
	// Duration and Operations bound a run: exactly one is set. For a
	// load, Operations is the number of records it inserts.
	Duration   time.Duration
	Operations int64
	Warmup     time.Duration
	// WarmupSteady: the warm-up ends once steady, Warmup at the latest.
	WarmupSteady bool
	// Stages make a run a schedule (see RunSettings.Stages).
	Stages []Stage
	// ChangesKeys says the run changes what the next run would read: it
	// inserts or deletes records, or moves a ledger's money (a loss the
	// weaker databases allow would carry over). The next run needs a
	// fresh load, and a calibration must not run on it.
	ChangesKeys bool
	// Search says the run is a search for its highest rate at the
	// objective (run.until: slo): a closed-loop probe, then probes at
	// the rates the search chooses, each a trial of Duration.
	Search bool
	// Probe marks one of a search's trials (its closed loop or a
	// probe): the search judges them itself.
	Probe bool
	// Data identifies the data the step loads, or the run needs loaded
	// (the load-relevant properties): a run whose target holds other
	// data, or data a run changed, is loaded again first.
	Data string
	// Round is the round the step belongs to in a plan in rounds (a
	// load: the round of the run it prepares; 0 for each target's first
	// load, before every round); 0 in sequential order.
	Round int
	// Attempt counts the step's measurements: 0 for its first, 1 for the
	// first measurement again (ID.retry), and so on.
	Attempt int
}

// SearchProbes is how many probes a rate search usually takes, besides
// its closed-loop probe: from a closed loop's saturation throughput it
// resolves to 5% in 6 to 9 (analysis/capacity's tests). Estimates use
// it; a search may take up to run.max_probes.
const SearchProbes = 8

// Expected is the time a timed run is expected to take, its warm-up
// included (a search's probes each); 0 for loads and operation-count
// runs, whose length is not known in advance.
func (st *Step) Expected() time.Duration {
	if st.Kind != Run || st.Operations > 0 {
		return 0
	}
	one := st.Duration + st.Warmup
	if st.Search {
		return one * (1 + SearchProbes)
	}
	return one
}

// Plan is the ordered list of steps an experiment runs.
type Plan struct {
	Spec  *Spec
	Steps []Step
	// Warnings are the properties no part of dbarena reads, each once.
	Warnings []workload.Warning
	// builder adds rounds to a plan in rounds (AddRound).
	builder *builder
}

// RunCount returns the number of measured steps.
func (p *Plan) RunCount() int { return p.count(Run) }

// LoadCount returns the number of load steps.
func (p *Plan) LoadCount() int { return p.count(Load) }

func (p *Plan) count(k StepKind) int {
	n := 0
	for i := range p.Steps {
		if p.Steps[i].Kind == k {
			n++
		}
	}
	return n
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// NewPlan expands a spec into steps. For each target in file order, for
// each workload in file order, for each matrix point: a load when the
// data the trial needs differs from what the target last loaded (compared
// on the workload's data shape, workload.Config.DataShape, and every
// driver property, so an axis such as recordcount reloads per point),
// then one run per repetition.
// Workloads are never reordered: listing a to f runs them in that order.
// A run that follows one that inserted or deleted records (D, E, or a
// repetition of either) gets a fresh load first, so every target and
// every repetition starts from the same data.
//
// Every trial's properties must pass workload.ParseConfig; all distinct
// failures are returned, each naming the step and the workload's line.
func NewPlan(s *Spec) (*Plan, error) {
	if len(s.Targets) == 0 || len(s.Workloads) == 0 {
		return nil, fmt.Errorf("%s: an experiment needs at least one target and one workload", s.File)
	}
	points := s.points()
	if n := len(s.Targets) * len(s.Workloads) * len(points) * max(s.Run.Repetitions, 1); n > maxTrials {
		return nil, fmt.Errorf("%s: matrix: the experiment expands to %d trials; the limit is %d", s.File, n, maxTrials)
	}
	b := &builder{s: s, plan: &Plan{Spec: s}, bases: map[*Workload]*properties.Set{},
		failed: map[string]bool{}, warned: map[string]bool{}}
	if s.Run.Rounds() {
		b.rounds(points)
	} else {
		for ti := range s.Targets {
			b.target(&s.Targets[ti], points)
		}
	}
	b.plan.builder = b
	b.checkIDs()
	b.checkCalibration()
	if len(b.errs) > 0 {
		return nil, errors.Join(b.errs...)
	}
	return b.plan, nil
}

// points returns the matrix's cartesian product, the first axis
// outermost; one empty point when there is no matrix.
func (s *Spec) points() [][]KV {
	pts := [][]KV{nil}
	for _, a := range s.Matrix {
		next := make([][]KV, 0, len(pts)*len(a.Values))
		for _, pt := range pts {
			for i, v := range a.Values {
				line := a.Line
				if i < len(a.ValueLines) {
					line = a.ValueLines[i]
				}
				next = append(next, append(append([]KV(nil), pt...), KV{Key: a.Property, Value: v, Line: line}))
			}
		}
		pts = next
	}
	return pts
}

// builder accumulates the plan and its errors.
type builder struct {
	s          *Spec
	plan       *Plan
	roundsPlan *roundsPlan // nil in sequential order
	bases      map[*Workload]*properties.Set
	errs       []error
	failed     map[string]bool // error texts reported, so each is reported once
	warned     map[string]bool
}

// target adds the steps of one target.
func (b *builder) target(t *Target, points [][]KV) {
	loaded, loads := "", 0
	// dirty: a run since the last load inserted or deleted records, so
	// the next run would meet keys it does not expect (an insert of a
	// key a previous run already inserted fails on strict databases and
	// silently overwrites on others): reload, as YCSB advises before E.
	dirty := false
	for wi := range b.s.Workloads {
		w := &b.s.Workloads[wi]
		for _, pt := range points {
			props, cfg, ok := b.trial(t, w, pt)
			if !ok {
				continue
			}
			sig := b.signature(cfg, props)
			// Every repetition warms up as the first did: one that
			// followed on the warm database after a second's warm-up
			// measured its new sessions' cold start (PostgreSQL in the
			// quickstart: workload F's second repetition climbed from
			// 3,076 to 5,145 ops/s within its window, flagged
			// not-steady; docs/guide/experiments.md).
			for rep := 1; rep <= max(b.s.Run.Repetitions, 1); rep++ {
				if b.s.Load.Enabled && (sig != loaded || dirty) {
					loaded, loads, dirty = sig, loads+1, false
					b.add(b.loadStep(t, w, pt, props, cfg, loads))
				}
				st := b.runStep(t, w, pt, props, rep)
				st.ChangesKeys, st.Data = changesKeys(cfg), sig
				b.add(st)
				dirty = st.ChangesKeys
			}
		}
	}
}

func (b *builder) add(st Step) {
	st.Index = len(b.plan.Steps)
	b.plan.Steps = append(b.plan.Steps, st)
}

// trial merges the properties of one target, workload and matrix point,
// lowest precedence first: the workload's base (built-in or file), the
// experiment's properties, the workload's, the target's, the matrix
// point's. It validates them with workload.ParseConfig.
func (b *builder) trial(t *Target, w *Workload, pt []KV) (*properties.Set, workload.Config, bool) {
	p := properties.New()
	base, err := b.base(w)
	if err != nil {
		b.fail(err, t, w, pt)
		return nil, workload.Config{}, false
	}
	p.Merge(base)
	// The workload's kind is its own (its base and its own settings),
	// never another's: a kind's settings set for the whole experiment,
	// a target or a matrix point apply to that kind's workloads only.
	own := properties.New()
	own.Merge(base)
	for _, kv := range w.Properties {
		own.Set(kv.Key, kv.Value, b.kvSrc(kv))
	}
	kind, err := workload.KindOf(own)
	if err != nil {
		b.fail(err, t, w, pt)
		return nil, workload.Config{}, false
	}
	for _, kv := range b.s.Properties {
		if kind.Reaches(kv.Key) {
			p.Set(kv.Key, kv.Value, b.kvSrc(kv))
		}
	}
	for _, kv := range w.Properties {
		p.Set(kv.Key, kv.Value, b.kvSrc(kv))
	}
	for k, v := range t.Properties {
		if kind.Reaches(k) {
			p.Set(k, v, b.src(t.PropertyLines[k]))
		}
	}
	for _, kv := range pt {
		if kv.Key != axisThreads && kv.Key != axisTarget && kind.Reaches(kv.Key) {
			p.Set(kv.Key, kv.Value, b.kvSrc(kv))
		}
	}
	cfg, warnings, err := workload.ParseConfig(p, b.s.DriverPrefixes)
	if err != nil {
		b.fail(err, t, w, pt)
		return nil, workload.Config{}, false
	}
	for _, wn := range warnings {
		if key := wn.Key + "@" + wn.Source.String(); !b.warned[key] {
			b.warned[key] = true
			b.plan.Warnings = append(b.plan.Warnings, wn)
		}
	}
	return p, cfg, true
}

// fail records a trial's error once, with the step and workload it
// belongs to: the property's own source may be a line shared by many
// workloads, such as a matrix value.
func (b *builder) fail(err error, t *Target, w *Workload, pt []KV) {
	if b.failed[err.Error()] {
		return
	}
	b.failed[err.Error()] = true
	where := fmt.Sprintf("workload %s", w.Name)
	if w.Line > 0 {
		where += fmt.Sprintf(" at %s:%d", b.s.File, w.Line)
	}
	b.errs = append(b.errs, fmt.Errorf("%w (step %s; %s)", err, runID(t, w, pt, 1, 1), where))
}

// base returns the workload's base properties: its built-in, its file or
// none (YCSB's defaults).
func (b *builder) base(w *Workload) (*properties.Set, error) {
	if p, ok := b.bases[w]; ok {
		return p, nil
	}
	p := w.base
	var err error
	switch {
	case p != nil:
	case w.Builtin != "":
		p, err = workloads.Properties(w.Builtin)
	case w.File != "":
		p, err = properties.ParseFile(w.File)
	default:
		p = properties.New()
	}
	if err != nil {
		return nil, err
	}
	b.bases[w] = p
	return p, nil
}

// src is the source of a value on a line of the experiment file.
func (b *builder) src(line int) properties.Source {
	return properties.Source{File: b.s.File, Line: line}
}

// kvSrc is the source of a KV: its line, or what set it in code.
func (b *builder) kvSrc(kv KV) properties.Source {
	if kv.Line == 0 && kv.Origin != "" {
		return properties.Source{File: kv.Origin}
	}
	return b.src(kv.Line)
}

// settingSrc is the source of a property derived from a setting such as
// "run.threads": its line, or a note that it is the default.
func (b *builder) settingSrc(key string) properties.Source {
	if line := b.s.lines[key]; line > 0 {
		return b.src(line)
	}
	return properties.Source{File: fmt.Sprintf("%s (default %s)", b.s.File, key)}
}

// signature identifies the data a trial needs loaded.
func (b *builder) signature(cfg workload.Config, p *properties.Set) string {
	var sb strings.Builder
	for _, kv := range cfg.DataShape() {
		sb.WriteString(kv.Key + "=" + kv.Value + "\n")
	}
	for _, k := range p.Keys() {
		if prefix, _, ok := strings.Cut(k, "."); ok && slices.Contains(b.s.DriverPrefixes, prefix) {
			v, _, _ := p.Lookup(k)
			sb.WriteString(k + "=" + v + "\n")
		}
	}
	return sb.String()
}

// checkCalibration refuses run.threads: auto and run.prewarm for a
// target none of whose runs leaves the data as loaded: the calibration's
// ramp and the warm-up run one of them, and inserts or deletes there
// would change what the trials after it read.
func (b *builder) checkCalibration() {
	var what []string
	if b.s.Run.ThreadsAuto {
		what = append(what, "run.threads: auto")
	}
	if b.s.Run.Prewarm > 0 {
		what = append(what, "run.prewarm")
	}
	if len(what) == 0 {
		return
	}
	for ti := range b.s.Targets {
		t := &b.s.Targets[ti]
		if b.plan.KeepsData(t) == nil {
			b.errs = append(b.errs, fmt.Errorf("%s: %s: target %s has no workload that neither inserts nor deletes to run on first (it must leave the data as loaded); add one such as c, or leave them out", b.s.File, strings.Join(what, " and "), t.Name))
		}
	}
}

// KeepsData is the run of target t that a calibration (run.threads:
// auto) and a target's warm-up (run.prewarm) run on: of its runs that
// neither insert nor delete, one on the data its first load loads when
// one is (they run on that data, before its other runs), the earliest
// workload in the file's order of the first round; nil: none.
func (p *Plan) KeepsData(t *Target) *Step {
	var best *Step
	data, loaded := "", false
	rank := func(st *Step) [3]int {
		wi := len(p.Spec.Workloads)
		for i := range p.Spec.Workloads {
			if &p.Spec.Workloads[i] == st.Workload {
				wi = i
			}
		}
		other := 0
		if loaded && st.Data != data {
			other = 1
		}
		return [3]int{other, wi, st.Index}
	}
	for i := range p.Steps {
		st := &p.Steps[i]
		if st.Target != t {
			continue
		}
		if st.Kind == Load && !loaded {
			data, loaded = st.Data, true
		}
		if st.Kind != Run || st.ChangesKeys || st.Round > 1 {
			continue
		}
		if best == nil || less(rank(st), rank(best)) {
			best = st
		}
	}
	return best
}

// less orders ranks lexicographically.
func less(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
