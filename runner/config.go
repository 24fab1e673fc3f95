package runner

import (
	"fmt"
	"math"
	"time"

	"github.com/dbarena/dbarena/internal/bounds"
	"github.com/dbarena/dbarena/internal/clock"
)

// Phase is the YCSB phase a run performs.
type Phase int

// Phases.
const (
	// Load inserts the records [insertstart, insertstart+insertcount).
	Load Phase = iota
	// Transactions runs the operation mix.
	Transactions
	// Verify reads back every record a load of the same workload wrote and
	// checks its fields: missing records count as READ NOT_FOUND, wrong or
	// missing fields as VERIFY UNEXPECTED_STATE.
	Verify
)

// String returns "load", "run" or "verify".
func (p Phase) String() string {
	switch p {
	case Load:
		return "load"
	case Verify:
		return "verify"
	}
	return "run"
}

// Config controls one run.
type Config struct {
	Phase Phase
	// Threads is the number of workers, each with its own driver session.
	Threads int
	// Target is the total rate in operations per second; 0 runs a closed
	// loop as fast as the database answers.
	Target float64
	// OperationCount bounds the measured operations (0: no bound). As in
	// YCSB it is split evenly over the workers.
	OperationCount int64
	// MaxExecutionTime bounds the run's duration, warm-up included (0: no
	// bound). The measured phase lasts MaxExecutionTime - WarmupTime
	// however long the warm-up took: a warm-up that ends late (its
	// operations, or an operation in flight when its time was up) or
	// early (steady) moves the end. A schedule's stages keep their times.
	MaxExecutionTime time.Duration
	// WarmupTime and WarmupOperations end the warm-up, whichever comes
	// last; its measurements are kept apart from the measured phase.
	WarmupTime       time.Duration
	WarmupOperations int64
	// WarmupSteady ends the warm-up as soon as the throughput of its last
	// intervals is steady (analysis/steady.Settled), WarmupTime at the
	// latest; the measured phase then keeps its length
	// (MaxExecutionTime - WarmupTime). It needs a collection interval
	// and no stages.
	WarmupSteady bool
	// Interval is how often results are collected and observers called;
	// 0 collects only at the end.
	Interval time.Duration
	// LateThreshold is how far behind its intended start an operation may
	// be issued before it counts as late.
	LateThreshold time.Duration
	// Seed makes the workers' random streams reproducible.
	Seed uint64
	// FirstWorker is the trial's number of this process's first worker
	// (a loader's index times its threads): a TPC-C terminal's home
	// follows its number in the trial, so that a trial's loaders spread
	// over the warehouses and districts as one process's workers do.
	FirstWorker int
	// InsertRetryLimit and InsertRetryInterval retry failed load inserts
	// (YCSB's core_workload_insertion_retry_limit/interval).
	InsertRetryLimit    int
	InsertRetryInterval time.Duration
	// StopOnErrorRate stops the run when, in one collection interval, more
	// than this fraction of operations failed (and at least
	// MinErrorsToStop did): a dead server then ends the run early with
	// everything measured so far. 0 never stops on errors.
	StopOnErrorRate float64
	// JudgeErrors turns the error policy on: a run whose failed
	// operations are more than MaxErrorRate of those completed (or that
	// stopped under StopOnErrorRate) is failed, and Result.Failure says
	// why. ParseConfig turns it on with DefaultMaxErrorRate.
	JudgeErrors  bool
	MaxErrorRate float64
	// NotFoundIsNoError leaves NOT_FOUND out of the errors the policy
	// and StopOnErrorRate judge: a workload that deletes records reads,
	// updates and deletes some that are gone, and is not failing.
	NotFoundIsNoError bool
	// BatchSize > 1 makes the load phase insert that many records per call
	// when the driver's session implements driver.BatchInserter (YCSB's
	// batchsize). Each record of a batch is measured with the batch's
	// latency, so counts and throughput stay per record.
	BatchSize int
	// Clock is the time source; nil means the real monotonic clock.
	Clock clock.Clock
	// StopGrace is how long the operations in flight when the run stops
	// (its time is up, its context is cancelled, its error rate is too
	// high) may take to finish before they are cancelled and counted as
	// aborted; 0 means DefaultStopGrace. Workers whose driver does not
	// return within stopAbandon of the cancellation are left behind, so
	// that a frozen server cannot hold the run.
	StopGrace time.Duration
	// Abort, when closed, stops the run at once: the operations in flight
	// are cancelled and counted as aborted without waiting for them, and
	// Run returns what was measured. A second Ctrl-C closes it.
	Abort <-chan struct{}
	// Stages, when set, make the measured phase a schedule, such as a
	// spike: each stage runs for its Duration with its own Threads and
	// Target, one after the other, right after the warm-up (which runs
	// the first stage's settings). Threads must be the largest stage's:
	// a worker beyond the current stage's count waits, parked, for a
	// stage that needs it. MaxExecutionTime, when 0, becomes the warm-up
	// plus the stages.
	Stages []Stage
}

// Stage is one step of a schedule.
type Stage struct {
	Duration time.Duration
	Threads  int
	// Target is the stage's total rate in operations per second; 0 runs
	// the stage's workers in a closed loop.
	Target float64
}

// MinErrorsToStop is the fewest failed operations in one interval that can
// stop a run under StopOnErrorRate, so that one unlucky timeout in a quiet
// interval does not end a long run.
const MinErrorsToStop = 3

// DefaultStopGrace lets an operation in flight at the stop finish when it
// takes up to a second: far longer than any healthy operation, yet short
// enough that Ctrl-C ends a run within two seconds whatever the server
// does.
const DefaultStopGrace = time.Second

// stopAbandon is how long after cancelling the operations in flight the
// run waits for their drivers to return before leaving them behind.
const stopAbandon = 500 * time.Millisecond

// DefaultLateThreshold counts an operation late when it starts more than a
// millisecond behind schedule: below that, scheduler and timer jitter on an
// idle Linux machine would make every run look late.
const DefaultLateThreshold = time.Millisecond

// Validate checks the configuration; errors name the YCSB property.
func (c *Config) Validate() error {
	switch {
	case c.Threads < 1:
		return fmt.Errorf("threadcount=%d: want at least 1", c.Threads)
	case c.Threads > bounds.MaxThreads:
		return fmt.Errorf("threadcount=%d: at most %d workers per process; split the load over several loaders", c.Threads, bounds.MaxThreads)
	case !validRate(c.Target):
		return fmt.Errorf("target=%g: want a rate >= 0 operations per second (0 = unthrottled)", c.Target)
	case c.OperationCount < 0:
		return fmt.Errorf("operationcount=%d: want >= 0", c.OperationCount)
	case c.MaxExecutionTime < 0:
		return fmt.Errorf("maxexecutiontime=%s: want >= 0", c.MaxExecutionTime)
	case c.WarmupTime < 0:
		return fmt.Errorf("warmup.time=%s: want >= 0", c.WarmupTime)
	case c.WarmupSteady && (c.WarmupTime <= 0 || c.Interval <= 0 || len(c.Stages) > 0):
		return fmt.Errorf("warmup.steady=true: wants warmup.time > 0 as the longest warm-up, a collection interval, and no stages")
	case c.WarmupOperations < 0:
		return fmt.Errorf("warmup.operations=%d: want >= 0", c.WarmupOperations)
	case !(c.StopOnErrorRate >= 0 && c.StopOnErrorRate <= 1):
		return fmt.Errorf("stop-on-error-rate=%g: want a fraction between 0 (never stop) and 1", c.StopOnErrorRate)
	case c.StopOnErrorRate > 0 && c.Interval <= 0:
		return fmt.Errorf("stop-on-error-rate needs a collection interval: set status.interval")
	case c.JudgeErrors && !(c.MaxErrorRate >= 0 && c.MaxErrorRate <= 1):
		return fmt.Errorf("max-error-rate=%g: want a fraction between 0 (no failure allowed) and 1 (any)", c.MaxErrorRate)
	case c.StopGrace < 0:
		return fmt.Errorf("stop grace %s: want >= 0", c.StopGrace)
	case c.BatchSize < 0:
		return fmt.Errorf("batchsize=%d: want >= 0", c.BatchSize)
	case c.BatchSize > bounds.MaxBatchSize:
		return fmt.Errorf("batchsize=%d: at most %d records per batch", c.BatchSize, bounds.MaxBatchSize)
	case c.InsertRetryLimit < 0:
		return fmt.Errorf("core_workload_insertion_retry_limit=%d: want >= 0", c.InsertRetryLimit)
	case len(c.Stages) > 0:
		return c.validateStages()
	case c.Phase == Transactions && c.OperationCount == 0 && c.MaxExecutionTime == 0:
		return fmt.Errorf("operationcount=0 and maxexecutiontime=0: the run would never end; set one of them")
	}
	return nil
}

func (c *Config) validateStages() error {
	most := 0
	for i, st := range c.Stages {
		switch {
		case st.Duration <= 0:
			return fmt.Errorf("stage %d: duration %s: want a positive duration", i+1, st.Duration)
		case st.Threads < 1:
			return fmt.Errorf("stage %d: threads %d: want at least 1", i+1, st.Threads)
		case st.Threads > bounds.MaxThreads:
			return fmt.Errorf("stage %d: threads %d: at most %d workers per process", i+1, st.Threads, bounds.MaxThreads)
		case !validRate(st.Target):
			return fmt.Errorf("stage %d: target %g: want a rate >= 0 operations per second (0 = unthrottled)", i+1, st.Target)
		}
		most = max(most, st.Threads)
	}
	if c.Phase != Transactions {
		return fmt.Errorf("stages apply to the run phase only")
	}
	if c.Threads != most {
		return fmt.Errorf("threadcount=%d: with stages, want the largest stage's threads, %d", c.Threads, most)
	}
	return nil
}

// validRate reports whether r is a target rate: finite and >= 0. NaN
// fails every comparison, so "r < 0" alone let it through.
func validRate(r float64) bool { return r >= 0 && !math.IsInf(r, 1) }

// stagesLength is the schedule's total duration.
func (c *Config) stagesLength() time.Duration {
	var d time.Duration
	for _, st := range c.Stages {
		d += st.Duration
	}
	return d
}

func (c *Config) applyDefaults() {
	if len(c.Stages) > 0 && c.MaxExecutionTime == 0 {
		c.MaxExecutionTime = c.WarmupTime + c.stagesLength()
	}
	if c.Clock == nil {
		c.Clock = clock.NewReal()
	}
	if c.StopGrace == 0 {
		c.StopGrace = DefaultStopGrace
	}
	if c.LateThreshold == 0 {
		c.LateThreshold = DefaultLateThreshold
	}
}
