package runner

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbarena/dbarena/driver"
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
	// Warmup marks results measured during the warm-up.
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
}

// Run executes the phase against db with the given workload. Measurements
// taken before an interruption are returned with the error-free result;
// an error means the run could not start or a session failed to open.
func Run(ctx context.Context, cfg Config, wl *workload.Workload, db driver.DB, observers ...Observer) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.applyDefaults()
	s, err := newRun(ctx, cfg, wl, db, observers)
	if err != nil {
		return nil, err
	}
	defer s.closeSessions()
	return s.execute(ctx), nil
}

// run is the shared state of one execution.
type run struct {
	cfg       Config
	wl        *workload.Workload
	observers []Observer
	series    []string
	sessions  []driver.Session
	workers   []*workload.Worker
	warmRec   *measure.Recorder
	mainRec   *measure.Recorder

	startMono int64
	startWall time.Time
	deadline  int64
	warmEnd   int64
	// stageStarts are the schedule's stage boundaries (empty without
	// stages); a stage ends where the next starts, the last at deadline.
	stageStarts []int64

	stop          atomic.Bool
	done          chan struct{}
	stopOnce      sync.Once
	stopReason    atomic.Value
	interrupted   atomic.Bool
	errorStopped  atomic.Bool
	warming       atomic.Bool
	warmOps       atomic.Int64
	measuredStart atomic.Int64
}

func newRun(ctx context.Context, cfg Config, wl *workload.Workload, db driver.DB, obs []Observer) (*run, error) {
	s := &run{cfg: cfg, wl: wl, observers: obs, series: Series(), done: make(chan struct{})}
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
	for i := 0; i < cfg.Threads; i++ {
		wk, err := wl.NewWorker(i, cfg.Seed)
		if err != nil {
			s.closeSessions()
			return nil, err
		}
		sess, err := db.Session(ctx, i)
		if err != nil {
			s.closeSessions()
			return nil, fmt.Errorf("open session for worker %d: %w", i, err)
		}
		s.workers = append(s.workers, wk)
		s.sessions = append(s.sessions, sess)
	}
	return s, nil
}

func (s *run) closeSessions() {
	for _, sess := range s.sessions {
		_ = sess.Close() // nothing useful to do with a close error at the end of a run
	}
	s.sessions = nil
}

// halt stops every worker; the first reason given is kept.
func (s *run) halt(reason string) {
	s.stopOnce.Do(func() {
		s.stopReason.Store(reason)
		s.stop.Store(true)
		close(s.done)
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
		s.deadline = s.startMono + int64(s.cfg.MaxExecutionTime)
	}
	at := s.startMono + int64(s.cfg.WarmupTime)
	for _, st := range s.cfg.Stages {
		s.stageStarts = append(s.stageStarts, at)
		at += int64(st.Duration)
	}
	if s.warmRec != nil {
		s.warming.Store(true)
		s.warmEnd = s.startMono + int64(s.cfg.WarmupTime)
	}
	s.measuredStart.Store(s.startMono)

	stopWatch := context.AfterFunc(ctx, func() {
		s.interrupted.Store(true)
		s.halt("interrupted")
	})
	defer stopWatch()

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
			s.worker(ctx, i)
		}(i)
	}
	wg.Wait()
	endMono := clk.Now()
	s.halt(s.naturalStopReason())
	cwg.Wait()
	col.collect(endMono, true)
	return s.result(col, endMono)
}

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
	return r
}

// Paced says whether the run, or a stage of its schedule, has a target
// rate: its latency is then measured from each operation's intended
// start (response time), not only from when it was sent.
func (c *Config) Paced() bool {
	paced := c.Target > 0
	for _, st := range c.Stages {
		paced = paced || st.Target > 0
	}
	return paced
}

// stageAt returns the index of the stage running at now (0 during the
// warm-up), or -1 without stages.
func (s *run) stageAt(now int64) int {
	i := len(s.stageStarts) - 1
	for i > 0 && now < s.stageStarts[i] {
		i--
	}
	return i
}

// stageEnd is when stage i ends.
func (s *run) stageEnd(i int) int64 {
	if i+1 < len(s.stageStarts) {
		return s.stageStarts[i+1]
	}
	return s.deadline
}

// inWarmup reports whether an operation starting at now belongs to the
// warm-up, ending the warm-up when both its conditions are met.
func (s *run) inWarmup(now int64) bool {
	if !s.warming.Load() {
		return false
	}
	if now >= s.warmEnd && s.warmOps.Load() >= s.cfg.WarmupOperations {
		if s.warming.CompareAndSwap(true, false) {
			s.measuredStart.Store(now)
		}
		return false
	}
	return true
}
