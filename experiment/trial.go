package experiment

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"time"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/live"
	"github.com/dbarena/dbarena/loader"
	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/sysmetrics"
	"github.com/dbarena/dbarena/trial"
)

// targetRun runs the steps of one deployed target.
type targetRun struct {
	s     *runState
	t     *spec.Target
	dep   deploy.Deployment
	index int // in the manifest's targets
	// closeMetrics closes the database's metrics connection, once its
	// first trial made it ready (see watchDatabase); metricsTried says it
	// was opened or tried.
	closeMetrics func()
	metricsTried bool
	// metricsPaused says the connection was closed while the target
	// was paused (detachDatabase): the next one takes its place.
	metricsPaused bool
	// threads is the count the calibration chose (run.threads: auto),
	// 0 before it ran; calibrationErr says why it failed, and fails
	// every run that needed it.
	threads        int
	calibrationErr error
	// prewarmTried says the target's warm-up (run.prewarm) was run,
	// prewarmed that it finished.
	prewarmTried, prewarmed bool
	// g is the group of targets deployed with this one.
	g *group
	// data is the data its database holds (spec.Step.Data of the last
	// load that completed), dirty that a run changed it since; loads
	// are the last load of each data that completed, which a run that
	// needs it again after a retry reloads (reloads counts those).
	data    string
	dirty   bool
	loads   map[string]*spec.Step
	reloads map[string]int
	// paused says its servers are stopped while another target of its
	// group is measured (group.focus).
	paused bool
}

// stepProps lays the deployment's endpoint properties under the step's:
// what the user wrote always wins. References to secrets (${env:NAME},
// ${file:PATH}) are resolved here, for the driver only: the plan, the
// manifest and the report keep the references.
func (tr *targetRun) stepProps(st *spec.Step) (*properties.Set, error) {
	return tr.stepPropsOn(st, tr.dep.Properties())
}

// stepPropsOn is stepProps over the given deployment properties: the
// loader VMs reach the database by other addresses than this machine.
func (tr *targetRun) stepPropsOn(st *spec.Step, base map[string]string) (*properties.Set, error) {
	p := properties.New()
	for k, v := range base {
		p.Set(k, v, properties.Source{File: "deployment of " + tr.t.Name})
	}
	p.Merge(st.Properties)
	if _, err := trial.ResolveSecrets(p, tr.s.opts.Secrets); err != nil {
		return nil, err
	}
	return p, nil
}

// trialFailure is a trial that failed its error policy or could not
// start: its row says why, the experiment goes on with the next trial
// and exits non-zero at the end.
type trialFailure struct {
	id, reason string
}

func (e *trialFailure) Error() string { return e.id + " failed: " + e.reason }

// override changes what prepare makes of a step: properties laid over
// the step's, and the settings afterwards.
type override struct {
	props    map[string]string
	settings func(*trial.Settings)
}

// prepare resolves a step's properties, workload and settings (the
// experiment file's over the properties', then the override's), opens
// the driver and creates or checks the table.
func (tr *targetRun) prepare(ctx context.Context, st *spec.Step, over override) (*trial.Trial, error) {
	props, err := tr.stepProps(st)
	if err != nil {
		return nil, err
	}
	for k, v := range over.props {
		props.Set(k, v, properties.Source{File: "dbarena (" + st.ID + ")"})
	}
	phase := runner.Transactions
	if st.Kind == spec.Load {
		phase = runner.Load
	}
	plan, err := trial.Parse(tr.t.Driver, props, phase, func(set *trial.Settings) error {
		tr.settle(st, set)
		if over.settings != nil {
			over.settings(set)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, w := range plan.Warnings {
		tr.s.log.Warn(w.String(), "step", st.ID)
	}
	t, err := plan.Open(ctx, tr.s.log)
	if err != nil {
		return nil, err
	}
	if err := t.Ready(ctx, st.Kind == spec.Load, tr.s.log); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// label names a step in the run's lines: "[3/16] postgres.a.rep2".
func (tr *targetRun) label(st *spec.Step) string {
	return fmt.Sprintf("[%d/%d] %s", st.Index+1, len(tr.s.plan.Steps), st.ID)
}

// trial runs one step and returns its row. A trial that could not start
// or failed its error policy gets a row with status failed and the
// reason, and a *trialFailure error.
func (tr *targetRun) trial(ctx context.Context, st *spec.Step) (results.Trial, error) {
	label := tr.label(st)
	if st.ThreadsAuto && tr.calibrationErr != nil {
		return tr.failed(tr.emptyRow(st), label, "run.threads: auto: "+tr.calibrationErr.Error())
	}
	p, err := tr.prepare(ctx, st, override{})
	if err != nil {
		if ctx.Err() != nil {
			return results.Trial{}, fmt.Errorf("%s: %w", st.ID, err)
		}
		return tr.failed(tr.emptyRow(st), label, err.Error())
	}
	defer p.Close()
	tr.watchDatabase(ctx, p)
	m, err := tr.measure(ctx, st, p, label)
	if err != nil {
		return results.Trial{}, err
	}
	if m.runErr != nil {
		if ctx.Err() != nil {
			return results.Trial{}, fmt.Errorf("%s: %w", st.ID, m.runErr)
		}
		return tr.failed(tr.emptyRow(st), label, m.runErr.Error())
	}
	return tr.record(ctx, st, p, m, label)
}

// warmTarget runs what a target's first run needs first: its warm-up
// (run.prewarm), whose failure only warns, and its calibration
// (run.threads: auto), whose failure fails the runs that need it. The
// error is an interrupt.
func (tr *targetRun) warmTarget(ctx context.Context, st *spec.Step) error {
	s := tr.s
	if st.Kind == spec.Run && !tr.prewarmTried && s.plan.Spec.Run.Prewarm > 0 {
		tr.prewarmTried = true
		err := tr.prewarm(ctx, s.plan.KeepsData(tr.t))
		tr.prewarmed = err == nil
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%s: %w", st.ID, ctx.Err())
			}
			s.log.Warn("the target's warm-up failed; its trials go on, each with its own warm-up", "target", tr.t.Name, "err", err)
		}
	}
	if st.ThreadsAuto && tr.threads == 0 && tr.calibrationErr == nil {
		tr.threads, tr.calibrationErr = tr.calibrate(ctx, s.plan.KeepsData(tr.t))
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", st.ID, ctx.Err())
		}
	}
	return nil
}

// record makes a measured trial's row, judges it, writes it with its
// stages' rows and says how it went: the error is a trialFailure when
// it failed, or one that must stop the experiment.
func (tr *targetRun) record(ctx context.Context, st *spec.Step, p *trial.Trial, m *measured, label string) (results.Trial, error) {
	s := tr.s
	res, cfg := m.res, m.cfg
	var machines []machineCPU
	if m.out != nil {
		machines = m.out.machines
	}
	row := tr.trialRow(st, cfg, res, m.out != nil, machines, m.obs.rates)
	failure := res.Failure()
	if m.lost != "" {
		row.Flags = append(row.Flags, results.NewFlag(results.FlagLoaderLost, m.lost))
		if failure == "" {
			failure = m.lost
		}
	}
	if failure == "" && m.here != nil {
		failure = tr.verified(m.here, label)
	}
	audit, auditErr := tr.audit(ctx, st, p, m)
	if failure == "" && ctx.Err() == nil {
		failure = tr.audited(audit, auditErr, label)
	}
	if st.Kind == spec.Load && failure == "" {
		tr.afterLoad()
	}
	tr.peakMemory()
	row.Counters = countersOf(m, p)
	if _, ok := row.Counters[results.CounterTPCCWarehouses]; ok {
		row.Counters[results.CounterTPCCTerminals] = float64(m.cfg.Threads) // every loader's
	}
	if audit != nil {
		if row.Counters == nil {
			row.Counters = map[string]float64{}
		}
		maps.Copy(row.Counters, audit.Counters())
	}
	row.DBFigures = tr.dbFigures(row.Start, row.End)
	if failure == "" {
		tr.judge(&row, m.out != nil, machines)
	}
	if failure == "" && !res.Interrupted {
		if why := measureAgain(st, row, tr.loads[st.Data] != nil); why != "" {
			row.Status = results.StatusSuperseded
			row.StatusReason = why + ": measured again as " + results.AgainID(baseID(st), st.Attempt+1)
			if tr.s.plan.Spec.Run.Rounds() {
				row.StatusReason += " in the next round"
			}
		}
	}
	if failure == "" && !res.Interrupted {
		tr.reference(ctx, st, p.Props.Map(), p.WorkloadConfig, &row, label)
	}
	if failure != "" {
		row.Status, row.StatusReason = results.StatusFailed, failure
	}
	errs := []error{s.w.AddTrial(row)}
	for _, sr := range m.obs.stageRows(row, cfg.Stages) {
		errs = append(errs, s.w.AddTrial(sr))
	}
	if what, ok := results.TPCCLoadOf(&row); ok {
		fmt.Fprintf(s.opts.Stderr, "dbarena: %s: loaded %s, %d errors%s%s\n", label, what, row.Errors, boundText(row), flagText(row.Flags))
	} else {
		fmt.Fprintf(s.opts.Stderr, "dbarena: %s: %.0f ops/s, p50 %.2f ms, p99 %.2f ms, %d errors%s%s\n", label,
			row.Throughput, row.Latency.P50/1e3, row.Latency.P99/1e3, row.Errors, boundText(row), flagText(row.Flags))
	}
	if f := results.TPCCFiguresOf(row.Counters, row.Duration, row.Threads, row.Ops); f != nil {
		fmt.Fprintf(s.opts.Stderr, "dbarena: %s: %s\n", label, f)
	}
	if err := errors.Join(errs...); err != nil {
		return row, err
	}
	switch {
	case res.Interrupted:
		return row, fmt.Errorf("%s: interrupted", st.ID)
	case failure != "":
		fmt.Fprintf(s.opts.Stderr, "dbarena: %s: FAILED: %s; left out of every comparison, going on with the next trial\n", label, failure)
		return row, &trialFailure{id: st.ID, reason: failure}
	}
	return row, nil
}

// countersOf is the driver's counts of a trial (nil when it has none):
// one run here read them when it ended; one its loaders ran has only
// this process's.
func countersOf(m *measured, p *trial.Trial) map[string]float64 {
	var counters []results.Counter
	if m.here != nil {
		counters = m.here.Counters
	} else {
		counters = p.Counters()
	}
	var out map[string]float64
	for _, c := range counters {
		if out == nil {
			out = map[string]float64{}
		}
		out[c.Name] = c.Value
	}
	if _, ok := out[results.CounterTPCCWarehouses]; ok && m.res != nil && m.res.Warmup != nil {
		out[results.CounterTPCCRampUp] = m.res.Warmup.Duration.Seconds()
	}
	return out
}

// measured is what a trial's run left: its result (nil when it could
// not run, runErr then says why), its settings as the rows count them,
// the loaders' outcome when loaders ran it, and its observer.
type measured struct {
	res    *runner.Result
	cfg    runner.Config
	out    *loaderOutcome
	obs    *trialObserver
	runErr error
	// lost says which loaders were lost, when and why ("" when none
	// was): the trial keeps what they all measured, and fails.
	lost string
	// here is the outcome of a trial run in this process (nil when its
	// loaders ran it).
	here *trial.Outcome
}

// measure runs a prepared step here or on its loaders, writing its
// intervals as they come. The error is one that must stop the
// experiment (a results file not written); a run that failed is in
// runErr.
func (tr *targetRun) measure(ctx context.Context, st *spec.Step, p *trial.Trial, label string) (*measured, error) {
	s := tr.s
	m := &measured{cfg: p.Settings.Run}
	fmt.Fprintf(s.opts.Stderr, "dbarena: %s: %s\n", label, describeStep(st, m.cfg))
	prog := &progress{w: s.opts.Stderr, terminal: s.opts.Terminal, label: label, eta: func(el time.Duration) time.Duration { return s.eta(st, el) }}
	var err error
	if m.obs, err = newTrialObserver(s.w, st.ID, time.Now(), prog); err != nil {
		return nil, err
	}
	s.setTrial(st.ID)
	stopCounters := tr.watchCounters(p.DB)
	if lp := tr.loaders(); lp.runs(st.Kind) {
		m.res, m.out, m.runErr = tr.runLoaders(ctx, st, lp, p.Settings, prog)
		var loss *loaderLoss
		if errors.As(m.runErr, &loss) && m.res != nil {
			m.lost, m.runErr = loss.Error(), nil
		}
		if m.res != nil {
			// The rows count every loader's workers.
			m.cfg = loader.Whole(m.cfg, lp.n)
			m.res.Config.Threads = m.cfg.Threads
		}
	} else {
		p.Settings.Run.Abort = s.opts.Abort
		m.cfg = p.Settings.Run
		observers := []runner.Observer{m.obs}
		if s.opts.Live != nil {
			observers = append(observers, s.opts.Live.Observer(live.Labels{Trial: st.ID, Target: tr.t.Name,
				Database: tr.t.Database, Workload: stepOf(st).Workload}))
		}
		if m.here, m.runErr = p.Run(ctx, observers...); m.here != nil {
			m.res = m.here.Result
		}
	}
	stopCounters()
	s.setTrial("")
	prog.done()
	errs := []error{m.obs.Close()}
	if m.out != nil {
		// After the observer closed its (empty) log: the merged one
		// takes its place.
		errs = append(errs, tr.writeMerged(st.ID, m.out, m.cfg, m.obs, m.out.opsScale(m.res)))
	}
	if err := errors.Join(errs...); err != nil {
		// The loaders' own logs stay: the report merges them.
		return m, err
	}
	// Merged into hdr/ID.hlog, or nothing to merge: each fact once.
	return m, os.RemoveAll(s.w.LoaderLogDir(st.ID))
}

// verified says why a load run here failed its read-back ("" when
// every record is there and right, or none was asked for). Loaders
// verify their own share themselves.
func (tr *targetRun) verified(o *trial.Outcome, label string) string {
	if o.VerifyErr != nil {
		return o.VerifyErr.Error()
	}
	if o.Verify == nil {
		return ""
	}
	fmt.Fprintf(tr.s.opts.Stderr, "dbarena: %s: %s\n", label, o.Verify)
	if o.Verify.Failed() {
		return o.Verify.String()
	}
	return ""
}

// audit is the check of a run phase's invariants (a ledger's accounts,
// TPC-C's consistency conditions): the one the trial ran in this
// process, or, when loaders ran it, one run here once all of them
// stopped. A load has one when it ran here and checks what it loaded
// (TPC-C's with load.verify). Nil for a workload without.
func (tr *targetRun) audit(ctx context.Context, st *spec.Step, p *trial.Trial, m *measured) (results.Audit, error) {
	switch {
	case m.here != nil:
		return m.here.Audit, m.here.AuditErr
	case st.Kind != spec.Run:
		return nil, nil
	case ctx.Err() != nil:
		return nil, nil
	}
	return p.Audit(ctx, m.cfg.Threads)
}

// audited says why a run failed its audit ("" when its invariants hold,
// or there was none): a broken invariant fails the trial, with the rows
// that break it.
func (tr *targetRun) audited(r results.Audit, err error, label string) string {
	if err != nil {
		return err.Error()
	}
	if r == nil {
		return ""
	}
	fmt.Fprintf(tr.s.opts.Stderr, "dbarena: %s: %s\n", label, r)
	if r.Failed() {
		return r.String()
	}
	return ""
}

// emptyRow is the row of a trial that measured nothing.
func (tr *targetRun) emptyRow(st *spec.Step) results.Trial {
	return tr.rowOf(st, time.Now(), time.Now())
}

// rowOf is the part of a trial's row its step and target decide.
func (tr *targetRun) rowOf(st *spec.Step, start, end time.Time) results.Trial {
	p := stepOf(st)
	return results.Trial{ID: st.ID, Index: st.Index, Kind: p.Kind, Target: tr.t.Name, Database: tr.t.Database,
		Driver: tr.t.Driver, Workload: p.Workload, Params: p.Params, Repetition: st.Repetition, Threads: tr.stepThreads(st),
		TargetRate: st.Rate, Start: start, End: end}
}

// failed records row as failed for reason and returns the failure.
func (tr *targetRun) failed(row results.Trial, label, reason string) (results.Trial, error) {
	row.Status, row.StatusReason = results.StatusFailed, reason
	if err := tr.s.w.AddTrial(row); err != nil {
		return row, err
	}
	fmt.Fprintf(tr.s.opts.Stderr, "dbarena: %s: FAILED: %s; going on with the next trial\n", label, tr.s.opts.Secrets.String(reason))
	return row, &trialFailure{id: row.ID, reason: reason}
}

// settle lays the experiment file's settings for a step over the ones
// its properties gave (late.threshold, warmup.operations, the error
// policy...): its threads, rate, duration, warm-up and stages, its seed,
// and the load section's. They are the step's typed settings, from the
// experiment file: its properties hold none of them.
func (tr *targetRun) settle(st *spec.Step, set *trial.Settings) {
	sp := tr.s.plan.Spec
	cfg := &set.Run
	cfg.Seed = tr.s.seed + uint64(st.Repetition-1)
	if sp.Run.MaxErrorRate != nil {
		cfg.MaxErrorRate = *sp.Run.MaxErrorRate
	}
	if sp.Run.StopOnErrorRate != nil {
		cfg.StopOnErrorRate = *sp.Run.StopOnErrorRate
	}
	cfg.Threads, cfg.Target = st.Threads, st.Rate
	if st.Kind == spec.Load {
		cfg.BatchSize = sp.Load.BatchSize
		cfg.WarmupOperations = 0 // a load has no warm-up
		set.Drop, set.Verify = sp.Load.Drop, sp.Load.Verify
		return
	}
	if st.ThreadsAuto {
		// The calibration has run (runSteps), or is being prepared and
		// sets its own.
		cfg.Threads = max(tr.threads, 1)
	}
	cfg.WarmupTime, cfg.WarmupSteady = st.Warmup, st.WarmupSteady
	cfg.Stages = nil
	for _, sg := range st.Stages {
		cfg.Stages = append(cfg.Stages, runner.Stage{Duration: sg.Duration, Threads: sg.Threads, Target: sg.Target})
	}
	cfg.OperationCount, cfg.MaxExecutionTime = 0, 0
	if st.Operations > 0 {
		cfg.OperationCount = st.Operations
	} else {
		cfg.MaxExecutionTime = st.Warmup + st.Duration
	}
}

func describeStep(st *spec.Step, cfg runner.Config) string {
	if st.Kind == spec.Load {
		return fmt.Sprintf("load with %d threads", cfg.Threads)
	}
	what := fmt.Sprintf("%s for %s", st.Workload.Name, st.Duration)
	if st.Operations > 0 {
		what = fmt.Sprintf("%s for %d operations", st.Workload.Name, st.Operations)
	}
	switch {
	case st.WarmupSteady:
		what += fmt.Sprintf(" after a warm-up until steady (at most %s)", st.Warmup)
	case st.Warmup > 0:
		what += fmt.Sprintf(" after %s warm-up", st.Warmup)
	}
	if len(st.Stages) > 0 {
		return fmt.Sprintf("%s, stages %s", what, spec.DescribeStages(st.Stages))
	}
	rate := ""
	if cfg.Target > 0 {
		rate = fmt.Sprintf(" at %.0f ops/s", cfg.Target)
	}
	return fmt.Sprintf("%s, %d threads%s", what, cfg.Threads, rate)
}

// eta estimates the time left in the whole plan from the run steps'
// declared durations, less what the current step has done; loads and
// operation-count steps are not counted (their length is unknown).
func (s *runState) eta(cur *spec.Step, elapsed time.Duration) time.Duration {
	var left time.Duration
	for i := cur.Index; i < len(s.plan.Steps); i++ {
		left += s.plan.Steps[i].Expected()
	}
	left -= min(elapsed, cur.Expected())
	return max(left, 0)
}

// measuredFrom is when the first interval that began inside a window
// starting at start ends (see measuredStats).
func (s *runState) measuredFrom(start time.Time) time.Time { return start.Add(s.coll.Interval()) }

// local reports whether the target's database runs on this machine.
func (tr *targetRun) local() bool {
	for _, h := range tr.dep.Hosts() {
		if h.PID > 0 {
			return true
		}
	}
	return false
}

// afterLoad records the data set's size on disk.
func (tr *targetRun) afterLoad() {
	var total int64
	for _, h := range tr.dep.Hosts() {
		if h.DataDir == "" {
			continue
		}
		if n, err := sysmetrics.DirSize(h.DataDir); err == nil {
			total += n
		}
	}
	if total > 0 {
		tr.s.mu.Lock()
		tr.s.manifest.Targets[tr.index].DataBytes = total
		tr.s.mu.Unlock()
	}
}

// peakMemory records the servers' peak memory.
func (tr *targetRun) peakMemory() {
	s := tr.s
	hosts := map[string]bool{}
	for _, h := range tr.dep.Hosts() {
		hosts[h.Name] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ti := &s.manifest.Targets[tr.index]
	var peak float64
	for _, x := range s.samples {
		if hosts[x.Host] && !math.IsNaN(x.MemoryBytes) {
			// Nodes of a local cluster run side by side: sum per round
			// would be exact; the peak of one node times nodes is close
			// enough for "did the data fit" and much simpler.
			peak = math.Max(peak, x.MemoryBytes)
		}
	}
	if peak > 0 {
		ti.ServerMemoryBytes = int64(peak) * int64(max(len(hosts), 1))
	}
}

// stepThreads is a step's threads: the calibrated count for
// run.threads: auto (0 before the calibration).
func (tr *targetRun) stepThreads(st *spec.Step) int {
	if st.ThreadsAuto {
		return tr.threads
	}
	return st.Threads
}
