package runner_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/clock"
	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/record"
	"github.com/dbarena/dbarena/runner"
)

// freezeDB stands in for a server that freezes (SIGSTOP) at freezeAt:
// operations before then take a millisecond; from then on they block
// until their context is cancelled, or, with deaf, until the test ends,
// as a driver that ignores its context would. It is failure injection a
// real server cannot be relied on to produce on cue.
type freezeDB struct {
	stallDB
	freezeAt time.Time
	deaf     bool
	hang     chan struct{}
	// startsAfter counts operations started after the stop the test
	// recorded in stoppedAt (unix nanoseconds; 0: not yet).
	stoppedAt   atomic.Int64
	startsAfter atomic.Int64
	closed      atomic.Int64
}

func newFreezeDB(t *testing.T, freezeIn time.Duration, deaf bool) *freezeDB {
	d := &freezeDB{freezeAt: time.Now().Add(freezeIn), deaf: deaf, hang: make(chan struct{})}
	t.Cleanup(func() { close(d.hang) })
	return d
}

func (d *freezeDB) Session(context.Context, int) (driver.Session, error) {
	return &freezeSession{d}, nil
}

type freezeSession struct{ *freezeDB }

func (s *freezeSession) Close() error {
	s.closed.Add(1)
	return nil
}

func (s *freezeSession) Read(ctx context.Context, _, _ string, _ []string, dst record.Record) (record.Record, error) {
	now := time.Now()
	if at := s.stoppedAt.Load(); at != 0 && now.UnixNano() > at {
		s.startsAfter.Add(1)
	}
	if now.Before(s.freezeAt) {
		// A healthy server's answer, which a cancelled context cuts
		// short as a real driver's would.
		t := time.NewTimer(time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
			return dst[:0], nil
		case <-ctx.Done():
			return dst[:0], driver.Errorf(driver.ClassCanceled, "%v", ctx.Err())
		}
	}
	if s.deaf {
		<-s.hang
		return dst[:0], nil
	}
	<-ctx.Done()
	return dst[:0], driver.Errorf(driver.ClassCanceled, "%v", ctx.Err())
}

func readOnly(t *testing.T) runner.Config {
	t.Helper()
	return runner.Config{Phase: runner.Transactions, Threads: 4, Seed: 1, MaxExecutionTime: time.Minute,
		Interval: 100 * time.Millisecond, StopGrace: 200 * time.Millisecond}
}

// TestInterruptStartsNothingAndFakesNoFailure: the operations in flight
// at Ctrl-C finish and count; none starts after it; nothing fails.
func TestInterruptStartsNothingAndFakesNoFailure(t *testing.T) {
	db := newFreezeDB(t, time.Hour, false)
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, func() {
		// The stop takes effect a moment after the cancel; an operation
		// may start in that moment, none after it.
		db.stoppedAt.Store(time.Now().Add(20 * time.Millisecond).UnixNano())
		cancel()
	})
	res, err := runner.Run(ctx, readOnly(t), wl, db)
	require.NoError(t, err)
	require.True(t, res.Interrupted)
	require.Zero(t, db.startsAfter.Load(), "operations started after the stop")
	require.Zero(t, res.Measured.Errors, "the stop is not a failure")
	require.Zero(t, res.Measured.Aborted, "a millisecond operation finishes within the grace")
	require.Greater(t, res.Measured.Operations, int64(200))
	require.Less(t, time.Since(res.Start), 2*time.Second)
}

// TestFrozenServerCountsAborted: operations a frozen server holds are
// cancelled after the grace and counted as aborted, not as errors, and
// the throughput that counts is the successes'.
func TestFrozenServerCountsAborted(t *testing.T) {
	db := newFreezeDB(t, 200*time.Millisecond, false)
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	cfg := readOnly(t)
	res, err := runner.Run(ctx, cfg, wl, db)
	require.NoError(t, err)
	stopped := res.End.Sub(res.Start)
	require.Less(t, stopped, 500*time.Millisecond+cfg.StopGrace+time.Second, "the grace, then the cancellation")
	m := res.Measured
	require.EqualValues(t, cfg.Threads, m.Aborted, "each worker's frozen operation")
	require.Zero(t, m.Errors)
	require.Positive(t, m.Operations)
	require.InEpsilon(t, float64(m.Operations)/m.Duration.Seconds(), m.OKThroughput, 1e-9)
	require.EqualValues(t, cfg.Threads, db.closed.Load(), "every worker returned and its session was closed")
}

// TestDeafDriverLeftBehind: a driver that ignores its cancelled context
// cannot hold the run: its workers are left behind (their sessions not
// closed under them) and their operations counted as aborted.
func TestDeafDriverLeftBehind(t *testing.T) {
	db := newFreezeDB(t, 100*time.Millisecond, true)
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	cfg := readOnly(t)
	start := time.Now()
	res, err := runner.Run(ctx, cfg, wl, db)
	require.NoError(t, err)
	require.Less(t, time.Since(start), 300*time.Millisecond+cfg.StopGrace+3*time.Second)
	require.EqualValues(t, cfg.Threads, res.Measured.Aborted)
	require.Zero(t, res.Measured.Errors)
	require.Zero(t, db.closed.Load(), "no session is closed under a worker still in it")
}

// TestAbortStopsAtOnce: a second Ctrl-C (Config.Abort) waits for
// nothing.
func TestAbortStopsAtOnce(t *testing.T) {
	db := newFreezeDB(t, 100*time.Millisecond, true)
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	ctx, cancel := context.WithCancel(context.Background())
	abort := make(chan struct{})
	cfg := readOnly(t)
	cfg.StopGrace = time.Minute
	cfg.Abort = abort
	var stopped time.Time
	var once sync.Once
	time.AfterFunc(300*time.Millisecond, func() {
		cancel()
		time.AfterFunc(100*time.Millisecond, func() { once.Do(func() { stopped = time.Now() }); close(abort) })
	})
	res, err := runner.Run(ctx, cfg, wl, db)
	require.NoError(t, err)
	require.Less(t, time.Since(stopped), time.Second, "returned at the abort, not after the minute's grace")
	require.EqualValues(t, cfg.Threads, res.Measured.Aborted)
}

// retryDB fails the first insert of every key, as a database shedding
// load does, and takes the second.
type retryDB struct {
	stallDB
	mu   sync.Mutex
	seen map[string]bool
}

func (d *retryDB) Session(context.Context, int) (driver.Session, error) { return d, nil }

func (d *retryDB) Insert(_ context.Context, _, key string, _ record.Record) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.seen == nil {
		d.seen = map[string]bool{}
	}
	if !d.seen[key] {
		d.seen[strings.Clone(key)] = true // the key is valid only during the call
		return driver.Errorf(driver.ClassThrottled, "try again")
	}
	return nil
}

// TestRetriedInsertsCountOnce: an insert a retry saved is a success, by
// the error policy and the per-interval stop too; its failed attempt is
// measured apart.
func TestRetriedInsertsCountOnce(t *testing.T) {
	wl := newWorkload(t, "recordcount", "2000")
	res, err := runner.Run(context.Background(), runner.Config{Phase: runner.Load, Threads: 2, Seed: 1,
		InsertRetryLimit: 2, InsertRetryInterval: time.Microsecond, JudgeErrors: true, MaxErrorRate: 0.01,
		StopOnErrorRate: 0.5, Interval: 10 * time.Millisecond}, wl, &retryDB{})
	require.NoError(t, err)
	m := res.Measured
	require.False(t, res.ErrorStopped, res.StopReason)
	require.EqualValues(t, 2000, m.Operations)
	require.Zero(t, m.Errors, "every insert succeeded on its retry")
	require.Empty(t, res.Failure())
	require.EqualValues(t, 2000, opSummary(t, m, "INSERT").Errors["THROTTLED"], "the failed attempts are measured")
}

// TestSettingsFromProperties: ParseConfig turns a deleting workload's
// NOT_FOUND into no failure, and leaves a verify pass unjudged.
func TestSettingsFromProperties(t *testing.T) {
	wl := newWorkload(t, "recordcount", "100", "readproportion", "0.5", "updateproportion", "0", "deleteproportion", "0.5")
	cfg, err := runner.ParseConfig(properties.New(), runner.Transactions, wl.Config())
	require.NoError(t, err)
	require.True(t, cfg.JudgeErrors)
	require.True(t, cfg.NotFoundIsNoError)
	require.Equal(t, runner.DefaultMaxErrorRate, cfg.MaxErrorRate)
	cfg, err = runner.ParseConfig(properties.New(), runner.Verify, wl.Config())
	require.NoError(t, err)
	require.False(t, cfg.JudgeErrors)
	require.Zero(t, cfg.StopOnErrorRate)

	// A run whose failures are all NOT_FOUND of deleted records passes.
	clk := clock.NewVirtual(1)
	res, err := runner.Run(context.Background(), runner.Config{Phase: runner.Transactions, Threads: 1, Seed: 1,
		OperationCount: 1000, JudgeErrors: true, MaxErrorRate: 0.01, NotFoundIsNoError: true, Clock: clk},
		wl, &notFoundDB{stallDB{clk: clk, cost: 1000}})
	require.NoError(t, err)
	require.Positive(t, res.Measured.Errors)
	require.Empty(t, res.Failure())
}

// notFoundDB finds no record.
type notFoundDB struct{ stallDB }

func (d *notFoundDB) Session(context.Context, int) (driver.Session, error) { return d, nil }
func (d *notFoundDB) Read(context.Context, string, string, []string, record.Record) (record.Record, error) {
	d.clk.Advance(d.cost)
	return nil, driver.ErrNotFound
}
