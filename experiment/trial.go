package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/dbarena/dbarena/analysis/bottleneck"
	"github.com/dbarena/dbarena/analysis/littles"
	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/live"
	"github.com/dbarena/dbarena/loader"
	"github.com/dbarena/dbarena/measure"
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
	// threads is the count the calibration chose (run.threads: auto),
	// 0 before it ran; calibrationErr says why it failed, and fails
	// every run that needed it.
	threads        int
	calibrationErr error
	// prewarmTried says the target's warm-up (run.prewarm) was run,
	// prewarmed that it finished.
	prewarmTried, prewarmed bool
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

// step runs one load or measured trial, appends its row and returns the
// throughput measured (0 when the trial did not run).
func (tr *targetRun) step(ctx context.Context, st *spec.Step) (float64, error) {
	if st.Search {
		return tr.search(ctx, st)
	}
	row, err := tr.trial(ctx, st)
	return row.Throughput, err
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
	plan, err := trial.Parse(tr.t.Driver, props, phase)
	if err != nil {
		return nil, err
	}
	for _, w := range plan.Warnings {
		tr.s.log.Warn(w.String(), "step", st.ID)
	}
	if err := tr.settle(st, &plan.Settings); err != nil {
		return nil, err
	}
	if over.settings != nil {
		over.settings(&plan.Settings)
		if err := plan.Settings.Run.Validate(); err != nil {
			return nil, err
		}
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

// trial runs one step and returns its row. A trial that could not start
// or failed its error policy gets a row with status failed and the
// reason, and a *trialFailure error.
func (tr *targetRun) trial(ctx context.Context, st *spec.Step) (results.Trial, error) {
	s := tr.s
	label := fmt.Sprintf("[%d/%d] %s", st.Index+1, len(s.plan.Steps), st.ID)
	if st.Kind == spec.Run && !tr.prewarmTried && s.plan.Spec.Run.Prewarm > 0 {
		tr.prewarmTried = true
		err := tr.prewarm(ctx, spec.KeepsData(s.plan.Steps, tr.t))
		tr.prewarmed = err == nil
		if err != nil {
			if ctx.Err() != nil {
				return results.Trial{}, fmt.Errorf("%s: %w", st.ID, ctx.Err())
			}
			s.log.Warn("the target's warm-up failed; its trials go on, each with its own warm-up", "target", tr.t.Name, "err", err)
		}
	}
	if st.ThreadsAuto && tr.threads == 0 && tr.calibrationErr == nil {
		tr.threads, tr.calibrationErr = tr.calibrate(ctx, spec.KeepsData(s.plan.Steps, tr.t))
		if ctx.Err() != nil {
			return results.Trial{}, fmt.Errorf("%s: %w", st.ID, ctx.Err())
		}
	}
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
	if st.Kind == spec.Load && failure == "" {
		tr.afterLoad()
	}
	tr.peakMemory()
	// A trial run here read its driver's counts when it ended; one its
	// loaders ran has only this process's.
	var counters []results.Counter
	if m.here != nil {
		counters = m.here.Counters
	} else {
		counters = p.Counters()
	}
	for _, c := range counters {
		if row.Counters == nil {
			row.Counters = map[string]float64{}
		}
		row.Counters[c.Name] = c.Value
	}
	row.DBFigures = tr.dbFigures(row.Start, row.End)
	if failure == "" {
		tr.judge(&row, m.out != nil, machines)
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
	fmt.Fprintf(s.opts.Stderr, "dbarena: %s: %.0f ops/s, p50 %.2f ms, p99 %.2f ms, %d errors%s%s\n", label,
		row.Throughput, row.Latency.P50/1e3, row.Latency.P99/1e3, row.Errors, boundText(row), flagText(row.Flags))
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
		m.res, m.out, m.runErr = tr.runLoaders(ctx, st, lp, m.cfg, prog)
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

// boundText is a trial's bottleneck on its progress line.
func boundText(row results.Trial) string {
	if row.Bottleneck == "" {
		return ""
	}
	return "\n  bound by: " + row.Bottleneck + " (" + row.BottleneckWhy + ")"
}

func flagText(flags []results.Flag) string {
	if len(flags) == 0 {
		return ""
	}
	out := ""
	for _, f := range flags {
		out += "\n  warning: " + string(f)
	}
	return out
}

// settle lays the experiment file's settings for a step over the ones
// its properties gave (late.threshold, warmup.operations, the error
// policy...): its threads, rate, duration, warm-up and stages, its seed,
// and the load section's.
func (tr *targetRun) settle(st *spec.Step, set *trial.Settings) error {
	sp := tr.s.plan.Spec
	cfg := &set.Run
	cfg.Seed = tr.s.seed + uint64(st.Repetition-1)
	if sp.Run.MaxErrorRate != nil {
		cfg.MaxErrorRate = *sp.Run.MaxErrorRate
	}
	if sp.Run.StopOnErrorRate != nil {
		cfg.StopOnErrorRate = *sp.Run.StopOnErrorRate
	}
	if st.Kind == spec.Load {
		cfg.Threads = sp.Load.Threads
		cfg.Target = sp.Load.Target
		cfg.BatchSize = sp.Load.BatchSize
		cfg.WarmupOperations = 0 // a load has no warm-up
		set.Drop = sp.Load.Drop
		return cfg.Validate()
	}
	cfg.Threads, cfg.Target = st.Threads, st.Rate
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
	return cfg.Validate()
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

// trialRow summarizes a finished trial and checks its validity.
func (tr *targetRun) trialRow(st *spec.Step, cfg runner.Config, res *runner.Result, viaLoaders bool, machines []machineCPU, rates []float64) results.Trial {
	m := res.Measured
	row := tr.rowOf(st, m.Start, res.End)
	row.Threads, row.TargetRate = cfg.Threads, cfg.Target
	row.Duration, row.Operations, row.Errors, row.Aborted = m.Duration, m.Operations, m.Errors, m.Aborted
	row.Throughput, row.ErrorRate, row.Status = m.OKThroughput, m.ErrorThroughput, results.StatusCompleted
	if m.Pacing != nil {
		row.Pacing = pacingOf(*m.Pacing)
	}
	for _, o := range m.Ops {
		row.Late += o.Late
	}
	if res.Interrupted {
		row.Status = results.StatusInterrupted
	}
	// waited holds every completed operation's latency, failures too:
	// a worker waits on a failing database as on a working one, and
	// Little's law counts both.
	all, waited := measure.NewHistogram(), measure.NewHistogram()
	for i := range res.MeasuredResults {
		r := &res.MeasuredResults[i]
		h := r.Latency()
		all.Merge(h)
		if r.Counted > 0 {
			waited.Merge(h)
			waited.Merge(r.ErrorLatency)
		}
		if r.OK() == 0 && r.ErrorCount() == 0 {
			continue
		}
		row.Ops = append(row.Ops, results.Op{Name: r.Name, Operations: r.OK() + r.ErrorCount(), Errors: r.ErrorCount(),
			Latency: latencyOf(measure.StatsOf(h))})
	}
	row.Latency = latencyOf(measure.StatsOf(all))
	stallFlag(&row, res.MeasuredResults)
	row.Concurrency = littles.Concurrency(m.Throughput, time.Duration(waited.Mean()*float64(time.Nanosecond)))
	tr.s.validity(&row, cfg, res, viaLoaders, machines)
	tr.fairness(&row, cfg, viaLoaders, machines, rates)
	if late, pacing, service := res.PacingLate(); late {
		row.Flags = append(row.Flags, results.Flagf(results.FlagPacing, "the load generator started operations late (p99 %.0f µs after they were due, above the larger of 100 µs and a tenth of the service p99, %.0f µs): response times hold the tool's delay, not only the database's; give the load generator more CPU or fewer threads", pacing.P99, service.P99))
	}
	return row
}

// stallFlag flags a trial whose window closed on operations that had
// waited far longer than the others (stalledAtEnd). Redis silent for the
// last 4 s of a closed loop's window was "completed, p99 0.12 ms",
// flagged client-bound: the two operations it held counted nowhere.
func stallFlag(row *results.Trial, rs measure.Results) {
	cut, done := measure.NewHistogram(), measure.NewHistogram()
	for i := range rs {
		if rs[i].CutOff != nil {
			cut.Merge(rs[i].CutOff)
		}
		done.Merge(rs[i].Service)
	}
	if cut.TotalCount() == 0 {
		return
	}
	oldest := time.Duration(cut.Max())
	p99 := time.Duration(done.ValueAtQuantile(99))
	if !stalledAtEnd(oldest, p99) {
		return
	}
	row.Flags = append(row.Flags, results.Flagf(results.FlagStalled,
		"%d operations due in the window had not completed when it closed, the oldest after %s (the completed ones' p99: %s): the database stopped answering at the end; they count in the percentiles at their latency so far",
		cut.TotalCount(), oldest.Round(time.Millisecond), p99.Round(time.Microsecond)))
}

// validity flags a trial whose numbers describe the client more than the
// database: a loader CPU near saturation, workers that spent much of their
// time outside the database (Little's law), a target rate the threads
// could not reach, errors and interruptions. A trial run by loader
// processes is judged by the busiest loader machine, from the CPU the
// loaders reported themselves: this process only waited for them.
func (s *runState) validity(row *results.Trial, cfg runner.Config, res *runner.Result, viaLoaders bool, machines []machineCPU) {
	who := "the load generator"
	if viaLoaders {
		// The loaders report their mean only: no peak (LoaderCPUMax 0).
		row.LoaderCPUs = 0
		for _, m := range machines {
			if row.LoaderCPUs == 0 || m.percent/float64(m.cores) > row.LoaderCPU/float64(row.LoaderCPUs) {
				row.LoaderCPU, row.LoaderCPUs = m.percent, m.cores
				who = m.name
			}
		}
		if len(machines) == 0 && s.log != nil {
			s.log.Warn("the loaders reported no CPU figures (a --loader-binary older than this dbarena?): this trial is not checked for a client bottleneck", "trial", row.ID)
		}
	} else {
		row.LoaderCPUs = sysmetrics.CPUCount()
		for _, st := range s.statsDuring(row.Start, row.End) {
			if st.Role == "loader" {
				row.LoaderCPU, row.LoaderCPUMax = st.MeanCPU, st.MaxCPU
			}
		}
	}
	if bottleneck.Saturated(row.LoaderCPU, float64(row.LoaderCPUs)) {
		row.Flags = append(row.Flags, results.Flagf(results.FlagClientBound, "%s used %.0f%% CPU of %d%% available; the database may be faster than measured (use more or bigger load machines)", who, row.LoaderCPU, row.LoaderCPUs*100))
	}
	threads := float64(row.Threads)
	if cfg.Target == 0 && row.Kind == results.KindRun && workersIdle(row.Concurrency, row.Threads) {
		row.Flags = append(row.Flags, results.Flagf(results.FlagClientBound, "by Little's law only %.1f of %d workers were waiting on the database on average (throughput x mean latency); the rest of the time went to the client", row.Concurrency, row.Threads))
	}
	if missedTarget(row.Throughput, cfg.Target) {
		need := math.Ceil(littles.Concurrency(cfg.Target, time.Duration(row.Latency.Mean*float64(time.Microsecond))))
		msg := fmt.Sprintf("%.0f of %.0f ops/s", row.Throughput, cfg.Target)
		if need > threads {
			msg += fmt.Sprintf("; Little's law needs at least %.0f threads at this latency, the trial had %d", need, row.Threads)
		}
		row.Flags = append(row.Flags, results.NewFlag(results.FlagTargetMissed, msg))
	}
	if row.Errors > 0 {
		row.Flags = append(row.Flags, results.ErrorsFlag(row.Errors, row.Operations))
	}
	if res.Interrupted {
		row.Flags = append(row.Flags, results.InterruptedFlag())
	}
	if res.ErrorStopped {
		row.Flags = append(row.Flags, results.NewFlag(results.FlagStoppedEarly, res.StopReason))
	}
	if row.Aborted > 0 {
		row.Flags = append(row.Flags, results.Flagf(results.FlagAborted, "%d operations in flight when the run stopped were cut short (in neither throughput nor errors; in the percentiles at their latency so far)", row.Aborted))
	}
}

// statsDuring summarizes every host's samples from..to.
func (s *runState) statsDuring(from, to time.Time) []sysmetrics.Stats {
	s.mu.Lock()
	samples := append([]sysmetrics.Sample(nil), s.samples...)
	s.mu.Unlock()
	return sysmetrics.Summarize(samples, from, to)
}

// measuredStats summarizes every host's samples over a trial's measured
// window. A sample's rates cover the interval that ends at its time, so
// the first one counted is the first that began inside the window: one
// that began before it mixes in the quieter set-up.
func (s *runState) measuredStats(row *results.Trial) []sysmetrics.Stats {
	return s.statsDuring(s.measuredFrom(row.Start), row.End)
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
