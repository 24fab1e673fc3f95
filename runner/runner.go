package runner

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/clock"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/workload"
)

// VerifySeries is the name under which data-integrity checks are counted,
// as in YCSB.
const VerifySeries = "VERIFY"

// seriesVerify is the index of the VERIFY series, after the operation kinds.
const seriesVerify = int(workload.NumKinds)

// Series returns the names of the measured series in index order.
func Series() []string { return append(workload.KindNames(), VerifySeries) }

// Interval is what was measured during one collection interval. It is
// passed to observers and only valid during the call.
type Interval struct {
	Index int
	// Warmup marks results of operations started during the warm-up.
	// One still running when the warm-up ended completes after it, in
	// the measured phase's time: it comes in a warm-up interval of the
	// span it completed in, emitted before the measured interval of that
	// span (at most one such operation per worker).
	Warmup bool
	// Final marks the run's last interval, collected after every worker
	// stopped; it may be shorter than the others.
	Final bool
	// Start and End bound the interval in wall-clock time.
	Start, End time.Time
	// Elapsed is the time since the run started.
	Elapsed time.Duration
	Results measure.Results
	// Ops is the number of operations in this interval; TotalOps the
	// number since the run started, warm-up included.
	Ops, TotalOps int64
	// ExpectedOps is the operation count the run aims for (0: unknown);
	// Limit its time limit (0: none). Progress displays use both.
	ExpectedOps int64
	Limit       time.Duration
	// Stage is the index of the schedule's stage the interval belongs to
	// (by its midpoint), or -1 for a run without stages.
	Stage int
	// Planned marks, by series index, the operation types the run
	// issues: an interval in which none of them completed is still one
	// of the run's seconds.
	Planned []bool
}

// Observer receives every interval from the collecting goroutine. It must
// not retain the Interval's results.
type Observer interface {
	Interval(iv *Interval)
}

// Result is the outcome of a run.
type Result struct {
	Phase  Phase
	Config Config
	Series []string
	// Start and End bound the whole run, warm-up included.
	Start, End time.Time
	// Warmup is nil when the run had no warm-up.
	Warmup *measure.Phase
	// Measured is the measured phase.
	Measured measure.Phase
	// WarmupResults and MeasuredResults are the cumulative histograms.
	WarmupResults, MeasuredResults measure.Results
	// Interrupted is true when the run was stopped by its context before
	// reaching its own limit.
	Interrupted bool
	// StopReason says why the run ended.
	StopReason string
	// ErrorStopped is true when the run stopped because its error rate
	// went above Config.StopOnErrorRate.
	ErrorStopped bool
	// LeftBehind is how many workers were still in a driver call when
	// the run returned (a frozen server): their operations may yet
	// land.
	LeftBehind int
	// Settled is closed once every worker has returned, the left-behind
	// ones too: what reads the database as the run left it (an audit)
	// waits for it.
	Settled <-chan struct{}
	// Declined is how many of the measured window's ledger transfers
	// were declined (the payer at its floor), RolledBack how many TPC-C
	// New-Orders rolled back by their unused item (about 1%, clause
	// 2.4.1.4): both counted done, as decisions, not errors.
	Declined, RolledBack int64
}

// Run executes the phase against db with the given workload. Measurements
// taken before an interruption are returned with the error-free result;
// an error means the run could not start or a session failed to open.
//
// Cancelling ctx stops the run: no operation starts after that, the ones
// in flight get Config.StopGrace to finish, and those cut short after it
// count as aborted, neither successes nor errors. The drivers' calls get
// a context of the run's own, cancelled only then, so that an interrupt
// does not turn the operations in flight into failures.
func Run(ctx context.Context, cfg Config, wl *workload.Workload, db driver.DB, observers ...Observer) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.applyDefaults()
	s, err := newRun(ctx, cfg, wl, db, observers)
	if err != nil {
		return nil, err
	}
	defer s.release()
	return s.execute(ctx), nil
}

// ServiceStats summarizes the service time of every operation type of
// the measured phase merged.
func (r *Result) ServiceStats() measure.Stats {
	all := measure.NewHistogram()
	for i := range r.MeasuredResults {
		all.Merge(r.MeasuredResults[i].Service)
	}
	return measure.StatsOf(all)
}

// PacingLate reports whether the harness started this paced run's
// operations so late that it, not the database, shaped their response
// times (measure.PacingLate), with the two figures that say so; false for
// a closed loop.
func (r *Result) PacingLate() (late bool, pacing, service measure.Stats) {
	if r.Measured.Pacing == nil {
		return false, measure.Stats{}, measure.Stats{}
	}
	pacing, service = *r.Measured.Pacing, r.ServiceStats()
	return measure.PacingLate(pacing, service), pacing, service
}

// Failure says why the run failed under its error policy: it stopped
// because one interval was mostly failures, more than MaxErrorRate of
// its completed operations failed, or none completed. It is "" for a run
// that passed, an interrupted one, and one that is not judged.
func (r *Result) Failure() string {
	m := r.Measured
	errs := m.Errors
	if r.MeasuredResults != nil {
		errs = judgedErrors(r.MeasuredResults, r.Config.NotFoundIsNoError)
	}
	switch {
	case r.ErrorStopped:
		return "stopped early: " + r.StopReason
	case !r.Config.JudgeErrors || r.Interrupted:
		return ""
	case m.Operations == 0 && r.Warmup != nil && r.Warmup.Duration >= r.End.Sub(r.Start):
		return "the warm-up never ended: no operation was measured"
	case m.Operations == 0:
		return fmt.Sprintf("no operation completed in %s", m.Duration.Round(time.Millisecond))
	case float64(errs) > r.Config.MaxErrorRate*float64(m.Operations):
		return fmt.Sprintf("%d of %d operations failed (%.2f%%), above max-error-rate=%g",
			errs, m.Operations, 100*float64(errs)/float64(m.Operations), r.Config.MaxErrorRate)
	}
	return ""
}

// run is the shared state of one execution.
type run struct {
	cfg       Config
	wl        *workload.Workload
	observers []Observer
	series    []string
	planned   []bool
	sessions  []driver.Session
	// kinds holds each worker's part of its workload's kind (nil
	// entries for core YCSB's).
	kinds   []kindWorker
	workers []*workload.Worker
	timers  []clock.Timer
	// exited marks the workers that returned; the others were left
	// behind in a driver call that ignored its cancelled context, and
	// their sessions are not closed under them.
	exited []atomic.Bool
	// inFlight is, per worker, 1 + the series of the operation its
	// driver is running, 0 between operations.
	inFlight []inFlight
	warmRec  *measure.Recorder
	mainRec  *measure.Recorder
	// opsCtx is the drivers' context: cancelled StopGrace after the
	// stop, so that what it cuts short can be told from real failures.
	opsCtx    context.Context
	cancelOps context.CancelFunc
	// declined and rolledBack count the measured window's transactions
	// that decided not to go through: a ledger's transfers whose payer
	// would go below the floor, TPC-C's New-Orders rolled back by their
	// unused item.
	declined, rolledBack atomic.Int64

	startMono int64
	startWall time.Time
	// deadline and warmEnd move when a warm-up until steady ends early.
	deadline atomic.Int64
	warmEnd  atomic.Int64
	// limit ends the run at the deadline when every worker waits on a
	// frozen server (nil without a time limit).
	limit *time.Timer
	// stageStarts are the schedule's stage boundaries (empty without
	// stages); a stage ends where the next starts, the last at deadline.
	stageStarts []int64

	stop atomic.Bool
	// stopMono is when the first stop came: the measured window closes
	// there, whatever the operations in flight do after it.
	stopMono     atomic.Int64
	done         chan struct{}
	stopOnce     sync.Once
	stopReason   atomic.Value
	interrupted  atomic.Bool
	errorStopped atomic.Bool
	// batched says a worker's session inserts in batches: its INSERT
	// latencies are each batch's.
	batched       atomic.Bool
	warming       atomic.Bool
	warmOps       atomic.Int64
	measuredStart atomic.Int64
}

func newRun(ctx context.Context, cfg Config, wl *workload.Workload, db driver.DB, obs []Observer) (*run, error) {
	s := &run{cfg: cfg, wl: wl, observers: obs, series: Series(), done: make(chan struct{})}
	s.planned = plannedSeries(cfg.Phase, wl.Config())
	s.opsCtx, s.cancelOps = context.WithCancel(context.WithoutCancel(ctx))
	intended := cfg.Paced()
	var err error
	if s.mainRec, err = measure.NewRecorder(measure.Options{Series: s.series, Workers: cfg.Threads, Intended: intended}); err != nil {
		return nil, err
	}
	if cfg.WarmupTime > 0 || cfg.WarmupOperations > 0 {
		if s.warmRec, err = measure.NewRecorder(measure.Options{Series: s.series, Workers: cfg.Threads, Intended: intended}); err != nil {
			return nil, err
		}
	}
	s.exited = make([]atomic.Bool, cfg.Threads)
	s.inFlight = make([]inFlight, cfg.Threads)
	for i := 0; i < cfg.Threads; i++ {
		wk, err := wl.NewWorker(i, cfg.Seed)
		if err != nil {
			s.release()
			return nil, err
		}
		// Paced workers need their wake-ups on time: a late one is
		// reported as the database's response time.
		tm, err := cfg.Clock.NewTimer(intended)
		if err != nil {
			s.release()
			return nil, fmt.Errorf("worker %d: %w", i, err)
		}
		s.timers = append(s.timers, tm)
		sess, err := db.Session(ctx, i)
		if err != nil {
			s.release()
			return nil, fmt.Errorf("open session for worker %d: %w", i, err)
		}
		s.workers = append(s.workers, wk)
		s.sessions = append(s.sessions, sess)
		kw, err := kindWorkerOf(sess, wl.Config(), cfg.Phase, cfg.FirstWorker+i, cfg.Seed)
		if err != nil {
			s.release()
			return nil, err
		}
		s.kinds = append(s.kinds, kw)
	}
	return s, nil
}

// release closes the sessions and timers of the workers that returned
// (all of them, unless some were left behind) and the drivers' context.
func (s *run) release() {
	for i, sess := range s.sessions {
		if s.started() && !s.exited[i].Load() {
			continue
		}
		_ = sess.Close() // nothing useful to do with a close error at the end of a run
	}
	for i, tm := range s.timers {
		if s.started() && i < len(s.exited) && !s.exited[i].Load() {
			continue
		}
		_ = tm.Close() // a timer's close only releases its descriptor
	}
	s.sessions, s.timers = nil, nil
	s.cancelOps()
}

// started says whether the workers were started.
func (s *run) started() bool { return !s.startWall.IsZero() }

// reasonTimeLimit is the stop reason of a run that reached its time
// limit.
const reasonTimeLimit = "maxexecutiontime reached"

// Why a run stopped, besides reaching its own limit.
const (
	byLimit = iota
	byInterrupt
	byErrorRate
)

// halt stops every worker; the first stop is the one recorded, with its
// reason and whether it was an interrupt or the error rate. The window
// closes now, or at the time limit when that is what stopped it (a
// worker that noticed it only after a stall came back late).
func (s *run) halt(reason string, by int) {
	s.stopOnce.Do(func() {
		s.interrupted.Store(by == byInterrupt)
		s.errorStopped.Store(by == byErrorRate)
		s.stopReason.Store(reason)
		at := s.cfg.Clock.Now()
		if d := s.deadline.Load(); reason == reasonTimeLimit && d > 0 {
			at = min(at, d)
		}
		s.stopMono.Store(at)
		s.stop.Store(true)
		close(s.done)
		for _, tm := range s.timers {
			tm.Stop()
		}
	})
}

func (s *run) wallAt(mono int64) time.Time {
	return s.startWall.Add(time.Duration(mono - s.startMono))
}

func (s *run) execute(ctx context.Context) *Result {
	clk := s.cfg.Clock
	s.startWall = time.Now()
	s.startMono = clk.Now()
	if s.cfg.MaxExecutionTime > 0 {
		s.deadline.Store(s.startMono + int64(s.cfg.MaxExecutionTime))
	}
	at := s.startMono + int64(s.cfg.WarmupTime)
	for _, st := range s.cfg.Stages {
		s.stageStarts = append(s.stageStarts, at)
		at += int64(st.Duration)
	}
	if s.warmRec != nil {
		s.warming.Store(true)
		s.warmEnd.Store(s.startMono + int64(s.cfg.WarmupTime))
	}
	s.measuredStart.Store(s.startMono)

	stopWatch := context.AfterFunc(ctx, func() { s.halt("interrupted", byInterrupt) })
	defer stopWatch()
	if _, real := clk.(*clock.Real); real && s.cfg.MaxExecutionTime > 0 {
		// The workers check the time limit before each operation; when
		// every one of them waits on a frozen server, the limit must
		// still end the run.
		s.limit = time.AfterFunc(s.cfg.MaxExecutionTime, func() { s.halt(reasonTimeLimit, byLimit) })
		defer s.limit.Stop()
	}

	col := newCollector(s)
	var cwg sync.WaitGroup
	if s.cfg.Interval > 0 {
		cwg.Add(1)
		go func() { defer cwg.Done(); col.loop() }()
	}
	var wg sync.WaitGroup
	for i := range s.workers {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s.worker(i)
			s.exited[i].Store(true)
		}(i)
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	var endMono int64
	select {
	case <-finished:
		endMono = clk.Now()
	case <-s.done:
		// The window closes at the stop: the drain that follows lets the
		// operations in flight finish (they count, in the last interval)
		// or cuts them off, and its second and a half is no one's
		// interval (it made the last one 2.5 s long).
		endMono = s.stopMono.Load()
		s.drain(finished)
	}
	s.halt(s.naturalStopReason(), byLimit)
	cwg.Wait()
	// A tick collected between the two reads above ends after endMono:
	// the run ends there.
	endMono = max(endMono, col.lastMono)
	s.cutOff(endMono)
	col.collect(endMono, true)
	r := s.result(col, endMono)
	r.Settled = finished
	r.Declined, r.RolledBack = s.declined.Load(), s.rolledBack.Load()
	return r
}

// drain waits, after the stop, for the operations in flight: StopGrace
// for them to finish, then, with their context cancelled, stopAbandon for
// their drivers to return. Abort cuts both waits short.
func (s *run) drain(finished <-chan struct{}) {
	grace := time.NewTimer(s.cfg.StopGrace)
	defer grace.Stop()
	select {
	case <-finished:
		return
	case <-grace.C:
	case <-s.cfg.Abort:
	}
	s.cancelOps()
	abandon := time.NewTimer(stopAbandon)
	defer abandon.Stop()
	select {
	case <-finished:
	case <-abandon.C:
	case <-s.cfg.Abort:
	}
}

// unissuedBatch bounds the records of one worker's unissued operations:
// beyond it, consecutive ones share a record at their mean latency (a
// 10 s stall at 1,000,000 ops/s is 10^7 operations).
const unissuedBatch = 100000

func (s *run) naturalStopReason() string {
	switch s.cfg.Phase {
	case Load:
		return "all records inserted"
	case Verify:
		return "all records read back"
	}
	return "operationcount reached"
}

func (s *run) result(col *collector, endMono int64) *Result {
	r := &Result{
		Phase: s.cfg.Phase, Config: s.cfg, Series: s.series,
		Start: s.startWall, End: s.wallAt(endMono),
		MeasuredResults: col.mainCum,
		Interrupted:     s.interrupted.Load(),
		ErrorStopped:    s.errorStopped.Load(),
	}
	r.StopReason, _ = s.stopReason.Load().(string)
	ms := s.measuredStart.Load()
	if s.warming.Load() {
		// The warm-up never ended: nothing was measured.
		ms = endMono
	}
	if s.warmRec != nil {
		p := measure.NewPhase(s.startWall, time.Duration(ms-s.startMono), col.warmCum)
		r.Warmup = &p
		r.WarmupResults = col.warmCum
	}
	r.Measured = measure.NewPhase(s.wallAt(ms), time.Duration(endMono-ms), col.mainCum)
	if s.batched.Load() {
		r.Measured.LabelBatches(s.cfg.BatchSize)
	}
	for i := range s.exited {
		if !s.exited[i].Load() {
			r.LeftBehind++
		}
	}
	return r
}

// plannedSeries marks the series a phase issues operations of.
func plannedSeries(phase Phase, wc workload.Config) []bool {
	out := make([]bool, len(Series()))
	switch phase {
	case Load:
		out[workload.Insert] = true
	case Verify:
		out[workload.Read] = true
	default:
		for kind, p := range map[workload.OpKind]float64{
			workload.Read: wc.ReadProportion, workload.Update: wc.UpdateProportion, workload.Insert: wc.InsertProportion,
			workload.Scan: wc.ScanProportion, workload.Delete: wc.DeleteProportion, workload.ReadModifyWrite: wc.ReadModifyWriteProportion,
			workload.Transfer: wc.TransferProportion,
		} {
			out[kind] = out[kind] || p > 0
		}
		if wc.ReadModifyWriteProportion > 0 {
			out[workload.Read], out[workload.Update] = true, true
		}
	}
	return out
}
