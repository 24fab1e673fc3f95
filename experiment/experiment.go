// Package experiment runs an experiment plan end to end: it deploys each
// target, creates the schema, loads, runs every trial while recording the
// latency series and every host's resources each second, writes the
// results directory as it goes, renders the report and tears down, also
// on error or Ctrl-C.
package experiment

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dbarena/dbarena/dbmetrics"
	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/providers"
	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/internal/plural"
	"github.com/dbarena/dbarena/internal/procid"
	"github.com/dbarena/dbarena/internal/redact"
	"github.com/dbarena/dbarena/internal/secret"
	"github.com/dbarena/dbarena/internal/workdir"
	"github.com/dbarena/dbarena/live"
	"github.com/dbarena/dbarena/report"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/sysmetrics"
)

// Options are the run's environment.
type Options struct {
	Stderr io.Writer
	// Terminal makes progress rewrite one line.
	Terminal bool
	Logger   *slog.Logger
	// Dir is the results directory to create; empty: RESULTS/NAME-TIME.
	Dir string
	// WorkDir is the work root (see internal/workdir): local databases'
	// data, loaders' and reference tools' files go in directories of
	// their own below it. Empty: workdir.Default().
	WorkDir string
	// Keep leaves local databases' data and logs at teardown.
	Keep bool
	// Version and Commit identify the tool in the manifest.
	Version, Commit string
	// SpecText is the experiment file as read, kept in the manifest.
	SpecText string
	// LoaderBinary is the dbarena program run.loaders starts; empty:
	// this process's own executable.
	LoaderBinary string
	// Live, when set, receives every trial run here and the databases'
	// metrics as they come (dbarena run --metrics-addr); trials run by
	// loader processes are not in it.
	Live *live.Exporter
	// Abort, closed on a second interrupt, stops at once: the trial
	// running keeps what it measured without waiting for the operations
	// in flight (runner.Config.Abort), and teardown does not wait.
	Abort <-chan struct{}
	// Secrets learns every credential the run resolves (references,
	// secret-named properties, connection-string passwords) and the
	// results directory hides them. The caller should write Stderr and
	// the Logger, and print the returned error, through it too (the CLI
	// does). Nil: the run keeps a Redactor of its own.
	Secrets *redact.Redactor
}

// Outcome is what a run produced.
type Outcome struct {
	Dir     string
	Report  string
	Verdict string
	Status  string
	// ReportErr is why the report could not be written (nil when it
	// was, or when nothing was measured): the status is the
	// measurements', which are complete without it.
	ReportErr error
}

// runState is the shared state of one experiment run.
type runState struct {
	plan     *spec.Plan
	opts     Options
	log      *slog.Logger
	w        *results.Writer
	seed     uint64
	manifest results.Manifest
	mu       sync.Mutex // guards manifest and samples
	samples  []sysmetrics.Sample
	trial    string // the trial the sysmetrics rows belong to (guarded by mu)
	target   string // the target measured, whose database is sampled (guarded by mu)
	// targetHosts are its hosts, whose database metrics rows belong to
	// the trial running (guarded by mu; nil: every row's).
	targetHosts map[string]bool
	coll        *sysmetrics.Collector
	dbm         *dbmetrics.Sampler
	started     time.Time
	runsDone    int
}

// Run executes the plan. Results already measured are never lost: the
// directory is written as the run goes, and the report is rendered even
// when a step failed or the run was interrupted. The error says why a run
// did not complete; the Outcome is valid whenever its Dir is set.
func Run(ctx context.Context, plan *spec.Plan, opts Options) (*Outcome, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	if opts.Secrets == nil {
		opts.Secrets = redact.New()
	}
	if err := CheckDrivers(plan); err != nil {
		return nil, err
	}
	if err := Preflight(ctx, plan); err != nil {
		return nil, fmt.Errorf("preflight (nothing was started): %w", err)
	}
	s := &runState{plan: plan, opts: opts, log: opts.Logger, started: time.Now()}
	// Every provider puts its files below the work root: make it, and
	// refuse one another user could control, before anything starts.
	if err := workdir.Ensure(s.workRoot()); err != nil {
		return nil, err
	}
	s.seed = plan.Spec.Seed
	if s.seed == 0 {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("draw a seed: %w", err)
		}
		s.seed = binary.LittleEndian.Uint64(b[:]) % 1_000_000_000
		if plan.Spec.Run.Rounds() {
			// The rounds' order is drawn from the seed too: plan again
			// with the one drawn, which the manifest records.
			sp := *plan.Spec
			sp.Seed = s.seed
			np, err := spec.NewPlan(&sp)
			if err != nil {
				return nil, fmt.Errorf("plan with seed %d: %w", s.seed, err)
			}
			s.plan, plan = np, np
		}
	}
	dir := opts.Dir
	if dir == "" {
		dir = filepath.Join(plan.Spec.Results, plan.Spec.Name+"-"+s.started.Format("20060102-150405"))
	}
	w, err := results.Create(dir)
	if err != nil {
		return nil, err
	}
	s.w = w
	w.Redact(opts.Secrets.String)
	s.manifest = results.Manifest{Tool: "dbarena", Version: opts.Version, Commit: opts.Commit,
		Experiment: plan.Spec.Name, SpecFile: plan.Spec.File, Spec: opts.SpecText, Seed: s.seed,
		Start: s.started, Status: results.StatusRunning, PID: os.Getpid(), PlannedSteps: len(plan.Steps), Loader: loaderHost(), SLO: sloOf(plan.Spec.SLO), Goal: goalOf(plan.Spec.Goal),
		Steps: plannedSteps(plan), Run: runDesign(plan.Spec.Run)}
	if self, err := procid.Self(); err == nil {
		s.manifest.PIDStart, s.manifest.BootID = self.Start, self.Boot
	}
	if err := s.writeManifest(); err != nil {
		w.Close()
		return nil, err
	}
	fmt.Fprintf(opts.Stderr, "dbarena: %s: %d steps; results in %s\n", plan.Spec.Name, len(plan.Steps), dir)

	s.coll = sysmetrics.NewCollector(time.Second, s.onSamples)
	s.coll.Logger = s.log
	s.coll.Add(sysmetrics.NewSelf())
	s.coll.Add(sysmetrics.NewMachine("machine"))
	s.coll.Start(ctx)
	s.dbm = dbmetrics.New(s.coll.Interval(), s.onDBMetrics)
	s.dbm.Logger = s.log
	s.dbm.Start(ctx)

	runErr := s.runTargets(ctx)
	s.dbm.Stop()
	s.coll.Stop()
	return s.finish(ctx, runErr)
}

// Preflight checks, before anything starts, that every target's provider
// exists and can deploy it here (programs installed, limits possible), so
// a missing program fails the experiment at once rather than after the
// targets before it have run.
func Preflight(ctx context.Context, plan *spec.Plan) error {
	// byText gathers the targets that met one error: a cluster that
	// does not answer is said once, naming every target on it.
	var texts []string
	byText := map[string][]string{}
	errOf := map[string]error{}
	add := func(target string, err error) {
		k := err.Error()
		if _, ok := byText[k]; !ok {
			texts = append(texts, k)
			errOf[k] = err
		}
		byText[k] = append(byText[k], target)
	}
	for i := range plan.Spec.Targets {
		t := &plan.Spec.Targets[i]
		prov, err := providers.Lookup(t.Deploy.Provider)
		if err != nil {
			add(t.Name, fmt.Errorf("target %s: %w", t.Name, err))
			continue
		}
		req, err := request(t, Options{})
		if err != nil {
			add(t.Name, err)
			continue
		}
		if c, ok := prov.(deploy.Checker); ok {
			if err := c.Check(req); err != nil {
				add(t.Name, err)
			}
		}
		if t.Deploy.Provider == existingProvider {
			if err := reachable(ctx, plan, t); err != nil {
				add(t.Name, err)
			}
		}
	}
	// An error several targets met (a cluster that does not answer)
	// names them all, once; one that does not name its target is
	// given its name.
	var errs []error
	for _, k := range texts {
		switch ts := byText[k]; {
		case len(ts) > 1:
			errs = append(errs, fmt.Errorf("targets %s: %w", strings.Join(ts, ", "), errOf[k]))
		case !strings.Contains(k, ts[0]):
			errs = append(errs, fmt.Errorf("target %s: %w", ts[0], errOf[k]))
		default:
			errs = append(errs, errOf[k])
		}
	}
	// A secret the environment lacks fails now, not at the first trial
	// that needs it.
	for _, kv := range plan.Spec.Properties {
		if _, err := secret.Resolve(kv.Value); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: properties.%s: %w", plan.Spec.File, kv.Line, kv.Key, err))
		}
	}
	return errors.Join(errs...)
}

// Request is the deployment request of a target, with the secrets its
// options and properties refer to resolved for the provider.
func Request(t *spec.Target, opts Options) (deploy.Request, error) { return request(t, opts) }

// request is the deployment request of a target, with the secrets its
// options and properties refer to resolved for the provider.
func request(t *spec.Target, opts Options) (deploy.Request, error) {
	req := deploy.Request{Name: t.Name, Database: t.Database, Nodes: t.Deploy.Nodes,
		CPUs: t.Deploy.CPUs, MemoryBytes: t.Deploy.MemoryBytes, Pin: t.Deploy.Pin, Version: t.Deploy.Version,
		WorkDir: opts.WorkDir, Keep: opts.Keep, Logger: opts.Logger}
	var err error
	if req.Options, err = secret.ResolveMap(t.Deploy.Options, opts.Secrets); err != nil {
		return req, fmt.Errorf("target %s: deploy.options.%w", t.Name, err)
	}
	if req.Properties, err = secret.ResolveMap(t.Properties, opts.Secrets); err != nil {
		return req, fmt.Errorf("target %s: properties.%w", t.Name, err)
	}
	// Where the driver can say which servers its properties reach, a
	// provider that starts nothing can find the ones on this machine.
	if info, err := drivers.Lookup(t.Driver); err == nil && info.Endpoint != nil {
		if ep, err := info.Endpoint(req.Properties, 1); err == nil {
			req.Endpoints = ep.Addrs
		}
	}
	return req, nil
}

// onSamples stores one round of system metrics, labelled with the trial
// that was running.
func (s *runState) onSamples(ss []sysmetrics.Sample) {
	s.mu.Lock()
	trial := s.trial
	s.samples = append(s.samples, ss...)
	s.mu.Unlock()
	rows := make([]results.Sys, len(ss))
	for i, x := range ss {
		rows[i] = results.Sys{Trial: trial, Usage: x}
	}
	if err := s.w.AddSys(rows); err != nil {
		s.log.Warn("sysmetrics not written", "err", err)
	}
}

func (s *runState) setTrial(id string) {
	s.mu.Lock()
	s.trial = id
	s.mu.Unlock()
}

func (s *runState) writeManifest() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.WriteManifest(&s.manifest)
}

// runTargets deploys the targets and runs the plan: side by side where
// they fit on the machine together (layoutOf), so that the rounds
// alternate them, else one at a time in file order, so that two
// databases never compete for the machine. A trial that fails (its
// error policy, a database that cannot be reached) or a target that
// cannot be deployed does not stop the others: the failures are
// returned together at the end. An interruption, or a results file that
// cannot be written, stops the run.
func (s *runState) runTargets(ctx context.Context) error {
	l := layoutOf(s.plan, sysmetrics.Affinity(), memTotal())
	s.mu.Lock()
	if r := s.manifest.Run; r != nil {
		r.Together, r.Apart = len(l.groups) == 1 && len(s.plan.Spec.Targets) > 1, l.apart
	}
	s.mu.Unlock()
	switch {
	case l.apart != "":
		fmt.Fprintf(s.opts.Stderr, "dbarena: the targets run one after another: %s\n", l.apart)
	case len(s.plan.Spec.Targets) > 1:
		fmt.Fprintf(s.opts.Stderr, "dbarena: deploying %s side by side: each round alternates them\n", names(l.groups[0]))
	}
	var failures []error
	for _, g := range l.groups {
		if err := ctx.Err(); err != nil {
			return errors.Join(append(failures, err)...)
		}
		failed, err := s.runGroup(ctx, g, l.cores)
		failures = append(failures, failed...)
		if err != nil {
			return errors.Join(append(failures, err)...)
		}
	}
	s.mu.Lock()
	if r := s.manifest.Run; r != nil && r.Rounds == 0 {
		r.Rounds = s.plan.Rounds()
	}
	s.mu.Unlock()
	if len(failures) > 0 {
		return failedError(failures)
	}
	return nil
}

// stepsOf are the plan's steps of target t, in order.
func (s *runState) stepsOf(t *spec.Target) []*spec.Step {
	var out []*spec.Step
	for i := range s.plan.Steps {
		if s.plan.Steps[i].Target == t {
			out = append(out, &s.plan.Steps[i])
		}
	}
	return out
}

// countStep counts a step that completed, or failed, in the manifest.
func (s *runState) countStep(ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ok {
		s.manifest.CompletedSteps++
		return
	}
	s.manifest.FailedSteps++
}

// setTarget names the target being measured, whose database's metrics
// rows belong to the trial: those of its hosts.
func (s *runState) setTarget(tr *targetRun) {
	hosts := map[string]bool{tr.metricsHost(): true}
	for _, h := range tr.dep.Hosts() {
		hosts[h.Name] = true
	}
	s.mu.Lock()
	s.target, s.targetHosts = tr.t.Name, hosts
	s.mu.Unlock()
}

// failedError sums up the experiment's failures once more at its end:
// a failed trial by its ID only (its reason was printed when it failed
// and is in the verdict), anything else in full.
func failedError(failures []error) error {
	var ids []string
	var others []error
	for _, err := range failures {
		if tf := (*trialFailure)(nil); errors.As(err, &tf) {
			ids = append(ids, tf.id)
			continue
		}
		others = append(others, err)
	}
	if len(ids) == 0 {
		return fmt.Errorf("%s: %w", plural.Count(len(others), "failure"), errors.Join(others...))
	}
	msg := fmt.Sprintf("%s failed: %s (why: above, and in %s)", plural.Count(len(ids), "trial"), strings.Join(ids, ", "), results.TrialsFile)
	if len(others) == 0 {
		return &joined{msg: msg, errs: failures}
	}
	return &joined{msg: msg + "; " + errors.Join(others...).Error(), errs: failures}
}

// joined is an error with a message of its own over the errors it
// sums up, which errors.Is and errors.As still reach.
type joined struct {
	msg  string
	errs []error
}

func (e *joined) Error() string   { return e.msg }
func (e *joined) Unwrap() []error { return e.errs }

// deployFailure is a deployment that did not come up: its steps are
// skipped and the experiment goes on with the next target.
type deployFailure struct{ err error }

func (e *deployFailure) Error() string { return e.err.Error() }

// downAfterCancel is how long a teardown whose time ran out still waits
// for the provider to return.
const downAfterCancel = 2 * time.Second

func (s *runState) addTarget(info results.TargetInfo) int {
	s.mu.Lock()
	s.manifest.Targets = append(s.manifest.Targets, info)
	n := len(s.manifest.Targets) - 1
	s.mu.Unlock()
	if err := s.writeManifest(); err != nil {
		s.log.Warn("manifest not written", "err", err)
	}
	return n
}

// finish records how the run ended, renders the report and closes files.
func (s *runState) finish(ctx context.Context, runErr error) (*Outcome, error) {
	end := time.Now()
	s.mu.Lock()
	s.manifest.End = &end
	switch {
	case runErr == nil:
		s.manifest.Status = results.StatusCompleted
	case ctx.Err() != nil:
		s.manifest.Status = results.StatusInterrupted
		s.manifest.Error = runErr.Error()
	default:
		s.manifest.Status = results.StatusFailed
		s.manifest.Error = runErr.Error()
	}
	status := s.manifest.Status
	final := s.manifest
	s.mu.Unlock()
	merr := s.writeManifest()
	errs := []error{runErr, merr}
	out := &Outcome{Dir: s.w.Dir(), Status: status}
	d, err := results.Read(s.w.Dir())
	if err == nil {
		if merr != nil {
			// The disk still says "running": the verdict tells how
			// the run ended, and that the manifest does not.
			d.Manifest.Status, d.Manifest.Error, d.Manifest.End = final.Status, final.Error, final.End
			d.Warnings = append(d.Warnings, fmt.Sprintf("%s could not be updated (%v): on disk it still says %q", results.ManifestFile, merr, results.StatusRunning))
		}
		out.Verdict = report.VerdictAfterRun(d)
		// A run that measured nothing (every target failed to deploy or
		// to load) has no report to speak of: the verdict says why.
		if measuredAny(d) {
			out.Report, err = report.Write(d)
		}
	}
	if err != nil {
		out.ReportErr = err
		errs = append(errs, err)
		if merr == nil {
			// The manifest says what the exit status does: the
			// measurements are complete, their report is not.
			s.mu.Lock()
			s.manifest.Warnings = append(s.manifest.Warnings, fmt.Sprintf("%v; the measurements are complete: `dbarena report %s` writes it again", err, s.w.Dir()))
			s.mu.Unlock()
			errs = append(errs, s.writeManifest())
		}
	}
	errs = append(errs, s.w.Close())
	return out, errors.Join(errs...)
}

// measuredAny reports whether any trial of d measured something.
func measuredAny(d *results.Data) bool {
	for i := range d.Trials {
		if d.Trials[i].Status != results.StatusFailed {
			return true
		}
	}
	return false
}

// mergeProps lays over on top of base.
func mergeProps(base, over map[string]string) map[string]string {
	out := make(map[string]string, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// workRoot is the work root the run's directories go under.
func (s *runState) workRoot() string {
	if s.opts.WorkDir != "" {
		return s.opts.WorkDir
	}
	return workdir.Default()
}

// plannedSteps lists the plan for the manifest: a reader of a run killed
// mid-trial describes the cut trial from it.
func plannedSteps(plan *spec.Plan) []results.Step {
	out := make([]results.Step, len(plan.Steps))
	for i := range plan.Steps {
		out[i] = stepOf(&plan.Steps[i])
	}
	return out
}

// stepOf describes a plan's step as the results record it.
func stepOf(st *spec.Step) results.Step {
	rs := results.Step{ID: st.ID, Kind: results.KindRun, Target: st.Target.Name, Repetition: st.Repetition,
		Threads: st.Threads, TargetRate: st.Rate}
	if st.Kind == spec.Load {
		rs.Kind = results.KindLoad
	}
	if st.Workload != nil {
		rs.Workload = st.Workload.Name
	}
	rs.Params = paramsOf(st.Params)
	return rs
}

// paramsOf is a matrix point as results record it.
func paramsOf(pt []spec.KV) []results.Param {
	var out []results.Param
	for _, kv := range pt {
		out = append(out, results.Param{Key: kv.Key, Value: kv.Value})
	}
	return out
}

// sloOf is the objective as the results record it.
func sloOf(s *spec.SLO) *results.SLO {
	if s == nil {
		return nil
	}
	out := &results.SLO{Achieved: s.Achieved}
	for _, b := range s.Bounds {
		out.Bounds = append(out.Bounds, results.SLOBound{Percentile: b.Percentile, MaxMs: float64(b.Max) / float64(time.Millisecond)})
	}
	return out
}

// runDesign is what the run section asked of every trial, for the
// manifest.
func runDesign(r spec.RunSettings) *results.RunDesign {
	d := &results.RunDesign{DurationSeconds: r.Duration.Seconds(), WarmupSeconds: r.Warmup.Seconds(),
		WarmupSteady: r.WarmupSteady, PrewarmSeconds: r.Prewarm.Seconds(), Threads: r.Threads,
		ThreadsAuto: r.ThreadsAuto, Repetitions: max(r.Repetitions, 1), RepetitionsAuto: r.RepetitionsAuto,
		BudgetSeconds: r.Budget.Seconds(), Equivalence: r.Equivalence, Order: spec.OrderSequential}
	if r.Rounds() {
		d.Order = spec.OrderRounds
	}
	if r.ThreadsAuto {
		d.Threads = 0
	}
	return d
}

// goalOf is the manifest's record of the experiment's goal.
func goalOf(g *spec.Goal) *results.Goal {
	if g == nil {
		return nil
	}
	return &results.Goal{Throughput: g.Throughput, Headroom: g.Headroom}
}
