package runner_test

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/clock"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/record"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

func runnerLoad(wl *workload.Workload, db driver.DB) (*runner.Result, error) {
	return runner.Run(context.Background(), runner.Config{Phase: runner.Load, Threads: 4, Seed: 1}, wl, db)
}

func opSummary(t *testing.T, p measure.Phase, name string) measure.OpSummary {
	t.Helper()
	for _, o := range p.Ops {
		if o.Name == name {
			return o
		}
	}
	t.Fatalf("no %s in %+v", name, p.Ops)
	return measure.OpSummary{}
}

// TestCoordinatedOmission checks response time against the analytic answer.
// At 1000 ops/s, every 1000th operation stalls for 100 ms and all others
// take no time. The 99 operations scheduled during a stall start late by
// 99, 98, ... 1 ms and finish at once, so per 1000 operations the true
// response times are 100, 99, ..., 1 ms once each and 0 for the other 900:
// p95 = 50 ms, p99 = 90 ms, p99.9 = 99 ms, max 100 ms, mean 5.05 ms. Service
// time sees one 100 ms operation per 1000: p99 = p99.9 = 0, as a tool that
// ignores coordinated omission would report.
func TestCoordinatedOmission(t *testing.T) {
	clk := clock.NewVirtual(1_000_000_000)
	db := &stallDB{clk: clk, stall: int64(100 * time.Millisecond), stallEvery: 1000}
	wl := newWorkload(t, "recordcount", "1000", "operationcount", "100000", "readproportion", "1", "updateproportion", "0")
	res, err := runner.Run(context.Background(), runner.Config{
		Phase: runner.Transactions, Threads: 1, Target: 1000, OperationCount: 100000, Seed: 7, Clock: clk,
	}, wl, db)
	require.NoError(t, err)
	read := opSummary(t, res.Measured, "READ")
	require.Equal(t, int64(100000), read.OK)
	require.NotNil(t, read.Response)

	ms := func(v float64) float64 { return v * 1000 } // ms -> µs
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"p95", read.Response.P95, ms(50)},
		{"p99", read.Response.P99, ms(90)},
		{"p99.9", read.Response.P999, ms(99)},
		{"max", read.Response.Max, ms(100)},
		{"mean", read.Response.Mean, ms(5.05)},
	} {
		require.InEpsilon(t, c.want, c.got, 0.01, "response %s", c.name)
	}
	require.Zero(t, read.Response.P90)
	require.Zero(t, read.Service.P99, "service time hides the stalls")
	require.Zero(t, read.Service.P999)
	require.InEpsilon(t, ms(100), read.Service.Max, 0.01)
	// Starts 2..99 ms behind schedule are late; 1 ms is not (> 1 ms). The
	// 100th stall is the run's last operation, so 99 stalls make late ones.
	require.Equal(t, int64(98*99), read.Late)
	// 100,000 operations at 1000/s take 100 s of (virtual) time.
	require.InEpsilon(t, 1000.0, res.Measured.Throughput, 0.01)
}

func TestClosedLoopWorkloadA(t *testing.T) {
	props := []string{"recordcount", "2000", "operationcount", "20000", "readproportion", "0.5", "updateproportion", "0.5", "requestdistribution", "zipfian"}
	db := loaded(t, props...)
	require.Equal(t, 2000, db.Len("usertable"))
	wl := newWorkload(t, props...)
	res, err := runner.Run(context.Background(), runner.Config{Phase: runner.Transactions, Threads: 4, OperationCount: 20000, Seed: 3}, wl, db)
	require.NoError(t, err)
	require.Equal(t, int64(20000), res.Measured.Operations)
	require.Equal(t, int64(0), res.Measured.Errors)
	r, u := opSummary(t, res.Measured, "READ"), opSummary(t, res.Measured, "UPDATE")
	require.Equal(t, int64(20000), r.OK+u.OK)
	require.InDelta(t, 0.5, float64(r.OK)/20000, 0.03)
	require.Nil(t, r.Response, "closed loop has no intended start")
	require.False(t, res.Interrupted)
}

// TestReproducible checks that one worker with one seed issues the same
// operations, and another seed different ones.
func TestReproducible(t *testing.T) {
	run := func(seed uint64) []string {
		db := &stallDB{}
		wl := newWorkload(t, "recordcount", "1000", "operationcount", "500", "readproportion", "0.5", "updateproportion", "0.5", "requestdistribution", "zipfian")
		_, err := runner.Run(context.Background(), runner.Config{Phase: runner.Transactions, Threads: 1, OperationCount: 500, Seed: seed}, wl, db)
		require.NoError(t, err)
		return db.keys
	}
	a, b, c := run(42), run(42), run(43)
	require.Len(t, a, 500)
	require.Equal(t, a, b)
	require.NotEqual(t, a, c)
}

func TestMaxExecutionTime(t *testing.T) {
	db, err := openBasic(basicParams("basic.delay", "1ms"))
	require.NoError(t, err)
	wl := newWorkload(t, "recordcount", "100")
	start := time.Now()
	res, err := runner.Run(context.Background(), runner.Config{
		Phase: runner.Transactions, Threads: 2, OperationCount: 1 << 40, MaxExecutionTime: 300 * time.Millisecond, Seed: 1,
	}, wl, db)
	require.NoError(t, err)
	require.Less(t, time.Since(start), 5*time.Second)
	require.Equal(t, "maxexecutiontime reached", res.StopReason)
	require.False(t, res.Interrupted)
	require.Greater(t, res.Measured.Operations, int64(10))
}

func TestInterruptKeepsMeasurements(t *testing.T) {
	db, err := openBasic(basicParams("basic.delay", "1ms"))
	require.NoError(t, err)
	wl := newWorkload(t, "recordcount", "100")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	res, err := runner.Run(ctx, runner.Config{Phase: runner.Transactions, Threads: 2, OperationCount: 1 << 40, Seed: 1, Interval: 50 * time.Millisecond}, wl, db)
	require.NoError(t, err)
	require.True(t, res.Interrupted)
	require.Equal(t, "interrupted", res.StopReason)
	require.Greater(t, res.Measured.Operations, int64(10))
}

func TestWarmupKeptApart(t *testing.T) {
	clk := clock.NewVirtual(0)
	db := &stallDB{clk: clk, cost: int64(time.Millisecond)}
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	res, err := runner.Run(context.Background(), runner.Config{
		Phase: runner.Transactions, Threads: 1, OperationCount: 5000, WarmupOperations: 1000, Seed: 1, Clock: clk,
	}, wl, db)
	require.NoError(t, err)
	require.NotNil(t, res.Warmup)
	require.Equal(t, int64(1000), res.Warmup.Operations)
	require.Equal(t, int64(5000), res.Measured.Operations)
	require.InEpsilon(t, 5.0, res.Measured.Duration.Seconds(), 0.01)
	require.InEpsilon(t, 1.0, res.Warmup.Duration.Seconds(), 0.01)
}

func TestWarmupByTime(t *testing.T) {
	clk := clock.NewVirtual(0)
	db := &stallDB{clk: clk, cost: int64(time.Millisecond)}
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	res, err := runner.Run(context.Background(), runner.Config{
		Phase: runner.Transactions, Threads: 1, OperationCount: 3000, WarmupTime: 2 * time.Second, Seed: 1, Clock: clk,
	}, wl, db)
	require.NoError(t, err)
	require.Equal(t, int64(2000), res.Warmup.Operations)
	require.Equal(t, int64(3000), res.Measured.Operations)
}

func TestErrorsCountedByClass(t *testing.T) {
	db := &stallDB{failEvery: 10}
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	res, err := runner.Run(context.Background(), runner.Config{Phase: runner.Transactions, Threads: 1, OperationCount: 1000, Seed: 1}, wl, db)
	require.NoError(t, err)
	read := opSummary(t, res.Measured, "READ")
	require.Equal(t, int64(900), read.OK)
	require.Equal(t, map[string]int64{"TIMEOUT": 100}, read.Errors)
	require.Equal(t, int64(1000), res.Measured.Operations, "failed operations count in throughput, as in YCSB")
}

// TestLoadPartitionsAndRunInserts loads two key ranges as two loaders
// would, then runs workload D whose inserts must not collide with them.
func TestLoadPartitionsAndRunInserts(t *testing.T) {
	db := newMemory(t)
	for _, part := range [][2]string{{"0", "600"}, {"600", "400"}} {
		wl := newWorkload(t, "recordcount", "1000", "insertstart", part[0], "insertcount", part[1])
		res, err := runnerLoad(wl, db)
		require.NoError(t, err)
		require.Equal(t, int64(0), res.Measured.Errors)
	}
	require.Equal(t, 1000, db.Len("usertable"))
	props := []string{"recordcount", "1000", "operationcount", "4000", "readproportion", "0.5", "updateproportion", "0", "insertproportion", "0.5", "requestdistribution", "latest"}
	wl := newWorkload(t, props...)
	res, err := runner.Run(context.Background(), runner.Config{Phase: runner.Transactions, Threads: 4, OperationCount: 4000, Seed: 9}, wl, db)
	require.NoError(t, err)
	require.Equal(t, int64(0), res.Measured.Errors, "no insert collides, every read finds its record")
	ins := opSummary(t, res.Measured, "INSERT")
	require.Equal(t, 1000+int(ins.OK), db.Len("usertable"))
}

func TestDataIntegrityVerify(t *testing.T) {
	props := []string{"recordcount", "500", "operationcount", "2000", "readproportion", "0.5", "updateproportion", "0",
		"readmodifywriteproportion", "0.5", "dataintegrity", "true", "writeallfields", "true"}
	db := loaded(t, props...)
	wl := newWorkload(t, props...)
	res, err := runner.Run(context.Background(), runner.Config{Phase: runner.Transactions, Threads: 2, OperationCount: 2000, Seed: 5}, wl, db)
	require.NoError(t, err)
	v := opSummary(t, res.Measured, runner.VerifySeries)
	r := opSummary(t, res.Measured, "READ")
	require.Equal(t, r.OK, v.OK, "every read verified")
	require.Empty(t, v.Errors)
	require.Equal(t, int64(2000), res.Measured.Operations, "reads inside read-modify-write count once")

	// Corrupt one record: its reads must fail verification.
	s, _ := db.Session(context.Background(), 0)
	key := workload.KeyName(0, true, 1)
	require.NoError(t, s.Update(context.Background(), "usertable", key, recordOf("field0", "garbage")))
	wl = newWorkload(t, append(props, "requestdistribution", "sequential", "recordcount", "1")...)
	res, err = runner.Run(context.Background(), runner.Config{Phase: runner.Transactions, Threads: 1, OperationCount: 10, Seed: 5}, wl, db)
	require.NoError(t, err)
	v = opSummary(t, res.Measured, runner.VerifySeries)
	require.Positive(t, v.Errors["UNEXPECTED_STATE"], fmt.Sprintf("%+v", v))
}

// TestFewerOperationsThanWorkers guards against a worker whose share of
// operationcount is zero running forever.
func TestFewerOperationsThanWorkers(t *testing.T) {
	db := &stallDB{}
	wl := newWorkload(t, "recordcount", "10")
	res, err := runner.Run(context.Background(), runner.Config{Phase: runner.Transactions, Threads: 4, OperationCount: 1, Seed: 1}, wl, db)
	require.NoError(t, err)
	require.Equal(t, int64(1), res.Measured.Operations)
}

func TestValidate(t *testing.T) {
	wl := newWorkload(t, "recordcount", "10")
	for name, c := range map[string]struct {
		cfg  runner.Config
		want string
	}{
		"threads":        {runner.Config{Threads: 0, OperationCount: 1}, "threadcount"},
		"target":         {runner.Config{Threads: 1, Target: -1, OperationCount: 1}, "target"},
		"forever":        {runner.Config{Phase: runner.Transactions, Threads: 1}, "never end"},
		"negative":       {runner.Config{Threads: 1, OperationCount: -1}, "operationcount"},
		"threads 1e7":    {runner.Config{Threads: 10_000_000, OperationCount: 1}, "threadcount=10000000: at most 100000 workers per process"},
		"target NaN":     {runner.Config{Threads: 1, Target: math.NaN(), OperationCount: 1}, "target=NaN"},
		"target Inf":     {runner.Config{Threads: 1, Target: math.Inf(1), OperationCount: 1}, "target=+Inf"},
		"error rate NaN": {runner.Config{Threads: 1, StopOnErrorRate: math.NaN(), OperationCount: 1}, "stop-on-error-rate=NaN"},
		"batchsize 1e9":  {runner.Config{Threads: 1, BatchSize: 1_000_000_000}, "batchsize=1000000000: at most 100000"},
		"stage threads":  {runner.Config{Phase: runner.Transactions, Threads: 10_000_000, Stages: []runner.Stage{{Duration: time.Second, Threads: 10_000_000}}}, "at most 100000"},
		"stage target":   {runner.Config{Phase: runner.Transactions, Threads: 1, Stages: []runner.Stage{{Duration: time.Second, Threads: 1, Target: math.NaN()}}}, "stage 1: target NaN"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := runner.Run(context.Background(), c.cfg, wl, &stallDB{})
			require.ErrorContains(t, err, c.want)
		})
	}
}

// intervalLog records every interval an observer sees.
type intervalLog struct {
	mu  sync.Mutex
	ivs []runner.Interval
}

func (l *intervalLog) Interval(iv *runner.Interval) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ivs = append(l.ivs, runner.Interval{Warmup: iv.Warmup, Final: iv.Final, Ops: iv.Ops, Elapsed: iv.Elapsed, Start: iv.Start, End: iv.End})
}

func TestNoEmptyMeasuredIntervalsDuringWarmup(t *testing.T) {
	db := &stallDB{}
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	log := &intervalLog{}
	_, err := runner.Run(context.Background(), runner.Config{
		Phase: runner.Transactions, Threads: 2, Target: 2000, WarmupTime: 400 * time.Millisecond,
		MaxExecutionTime: 800 * time.Millisecond, Interval: 50 * time.Millisecond, Seed: 1,
	}, wl, db, log)
	require.NoError(t, err)
	warm, measured := 0, 0
	for _, iv := range log.ivs {
		if iv.Warmup {
			warm++
			continue
		}
		measured++
		require.False(t, iv.End.Before(iv.Start), "interval at %s ends before it starts", iv.Elapsed)
		// The final collection covers the wind-down after the deadline
		// (from microseconds to tens of milliseconds under -race on a
		// busy machine): an empty tail there is not a warm-up leak, which
		// would show in the intervals before it.
		if iv.Final {
			continue
		}
		require.Positive(t, iv.Ops, "measured interval at %s is empty: the warm-up still ran", iv.Elapsed)
	}
	// Under -race on a busy machine a collection can take as long as an
	// interval; a couple of each is enough to see the warm-up end.
	require.GreaterOrEqual(t, warm, 2)
	require.GreaterOrEqual(t, measured, 2)
}

// stageLog records each interval's stage and ops.
type stageLog struct {
	mu  sync.Mutex
	ivs []runner.Interval
}

func (l *stageLog) Interval(iv *runner.Interval) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ivs = append(l.ivs, runner.Interval{Stage: iv.Stage, Ops: iv.Ops, Warmup: iv.Warmup, Final: iv.Final, Start: iv.Start, End: iv.End})
}

func TestStages(t *testing.T) {
	db := &stallDB{}
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	log := &stageLog{}
	start := time.Now()
	const stage = 600 * time.Millisecond
	res, err := runner.Run(context.Background(), runner.Config{
		Phase: runner.Transactions, Threads: 4, Interval: 50 * time.Millisecond, Seed: 1,
		Stages: []runner.Stage{
			{Duration: stage, Threads: 1, Target: 500},
			{Duration: stage, Threads: 4, Target: 2000},
			{Duration: stage, Threads: 1, Target: 500},
		},
	}, wl, db, log)
	require.NoError(t, err)
	require.Less(t, time.Since(start), 4*time.Second)
	require.InDelta(t, 1.8, res.Measured.Duration.Seconds(), 0.2, "the schedule's length")
	// Each stage runs at its own rate, paced from its own start (the
	// database keeps up: no backlog to carry), no gap after it. Intervals that
	// straddle a boundary are left out: under -race on a busy machine
	// the boundary's collection can come tens of milliseconds late and
	// hold the next stage's first operations.
	runStart := log.ivs[0].Start
	boundaries := []time.Time{runStart.Add(stage), runStart.Add(2 * stage)}
	ops := map[int]int64{}
	secs := map[int]float64{}
	for _, iv := range log.ivs {
		require.GreaterOrEqual(t, iv.Stage, 0)
		straddles := false
		for _, b := range boundaries {
			straddles = straddles || (iv.Start.Before(b.Add(-time.Millisecond)) && iv.End.After(b.Add(time.Millisecond)))
		}
		if iv.Final || straddles {
			continue
		}
		ops[iv.Stage] += iv.Ops
		secs[iv.Stage] += iv.End.Sub(iv.Start).Seconds()
	}
	for stage, want := range map[int]float64{0: 500, 1: 2000, 2: 500} {
		require.Positive(t, secs[stage], "stage %d has intervals of its own", stage)
		got := float64(ops[stage]) / secs[stage]
		require.InEpsilon(t, want, got, 0.25, "stage %d: %.0f ops/s", stage, got)
	}
	read := opSummary(t, res.Measured, "READ")
	require.NotNil(t, read.Response, "stages with targets measure from the intended start")

	// Bad schedules are refused with the stage named.
	for _, c := range []struct {
		cfg  runner.Config
		want string
	}{
		{runner.Config{Phase: runner.Transactions, Threads: 2, Stages: []runner.Stage{{Duration: time.Second, Threads: 1}}}, "want the largest stage's threads, 1"},
		{runner.Config{Phase: runner.Transactions, Threads: 1, Stages: []runner.Stage{{Threads: 1}}}, "stage 1: duration 0s"},
		{runner.Config{Phase: runner.Load, Threads: 1, Stages: []runner.Stage{{Duration: time.Second, Threads: 1}}}, "run phase only"},
	} {
		_, err := runner.Run(context.Background(), c.cfg, wl, db)
		require.ErrorContains(t, err, c.want)
	}
}

// busyDB takes a millisecond per operation and records the most
// operations in flight, per stage of the interval log's clock.
type busyDB struct {
	stallDB
	mu       sync.Mutex
	inFlight int
	peaks    []int // most in flight, per 100 ms since start
	start    time.Time
}

func (d *busyDB) Read(ctx context.Context, table, key string, f []string, dst record.Record) (record.Record, error) {
	d.mu.Lock()
	d.inFlight++
	slot := int(time.Since(d.start) / (100 * time.Millisecond))
	for len(d.peaks) <= slot {
		d.peaks = append(d.peaks, 0)
	}
	d.peaks[slot] = max(d.peaks[slot], d.inFlight)
	d.mu.Unlock()
	time.Sleep(time.Millisecond)
	d.mu.Lock()
	d.inFlight--
	d.mu.Unlock()
	return dst[:0], nil
}

func (d *busyDB) Session(context.Context, int) (driver.Session, error) { return d, nil }

func TestStagesParkWorkers(t *testing.T) {
	db := &busyDB{start: time.Now()}
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	_, err := runner.Run(context.Background(), runner.Config{
		Phase: runner.Transactions, Threads: 6, Seed: 1,
		Stages: []runner.Stage{{Duration: 300 * time.Millisecond, Threads: 1}, {Duration: 300 * time.Millisecond, Threads: 6}, {Duration: 300 * time.Millisecond, Threads: 2}},
	}, wl, db)
	require.NoError(t, err)
	db.mu.Lock()
	defer db.mu.Unlock()
	// Slots well inside each stage (away from the boundaries).
	require.Equal(t, 1, db.peaks[1], "stage 1: one worker")
	require.Equal(t, 6, max(db.peaks[4], db.peaks[5]), "stage 2: six")
	require.LessOrEqual(t, db.peaks[7], 2, "stage 3: two, the other four parked")
	require.Equal(t, 2, max(db.peaks[7], db.peaks[8]))
}

// TestStageBacklogCarried overloads a stage and checks that the requests
// it made due are still sent, with their intended times, after the
// boundary: a spike's backlog must not vanish when the spike ends.
func TestStageBacklogCarried(t *testing.T) {
	clk := clock.NewVirtual(1_000_000_000)
	// 2 ms per operation: 500 ops/s at most.
	db := &stallDB{clk: clk, cost: int64(2 * time.Millisecond)}
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	res, err := runner.Run(context.Background(), runner.Config{
		Phase: runner.Transactions, Threads: 1, Seed: 1, Clock: clk,
		Stages: []runner.Stage{
			{Duration: time.Second, Threads: 1, Target: 1000}, // 1000 due, 500 sent
			{Duration: time.Second, Threads: 1, Target: 100},  // the other 500 first
		},
	}, wl, db)
	require.NoError(t, err)
	read := opSummary(t, res.Measured, "READ")
	// Dropping the backlog at the boundary would send 500 + 100.
	require.InDelta(t, 1000, read.OK, 5, "the second stage works off the first one's backlog")
	// The last of the backlog was due at 1 s and sent near 2 s.
	require.Greater(t, read.Response.Max, 900_000.0, "µs: backlog latency measured from the intended times")
}

// TestStagesWarmUp paces a throttled first stage through the warm-up
// too: the warm-up is the schedule's lead-in, not an idle wait.
func TestStagesWarmUp(t *testing.T) {
	clk := clock.NewVirtual(1_000_000_000)
	db := &stallDB{clk: clk, cost: int64(100 * time.Microsecond)}
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	res, err := runner.Run(context.Background(), runner.Config{
		Phase: runner.Transactions, Threads: 1, Seed: 1, Clock: clk, WarmupTime: 500 * time.Millisecond,
		Stages: []runner.Stage{{Duration: time.Second, Threads: 1, Target: 1000}, {Duration: time.Second, Threads: 1, Target: 200}},
	}, wl, db)
	require.NoError(t, err)
	require.NotNil(t, res.Warmup)
	require.InDelta(t, 500, res.Warmup.Operations, 5, "the warm-up runs at the first stage's rate")
	require.InDelta(t, 1200, opSummary(t, res.Measured, "READ").OK, 5, "then 1000 + 200")
}

// serialDB serves one operation at a time, each taking d: a database
// with a fixed capacity of 1/d operations per second.
type serialDB struct {
	stallDB
	mu sync.Mutex
	d  time.Duration
}

func (d *serialDB) Read(context.Context, string, string, []string, record.Record) (record.Record, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	time.Sleep(d.d)
	return nil, nil
}

func (d *serialDB) Session(context.Context, int) (driver.Session, error) { return d, nil }

// TestStageBacklogOfParkedWorker: a worker the next stage does not need
// still sends what the last stage made due before it parks.
func TestStageBacklogOfParkedWorker(t *testing.T) {
	// At most 1000 ops/s (1 ms each, one at a time; fewer when sleeps
	// overshoot).
	db := &serialDB{d: time.Millisecond}
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	res, err := runner.Run(context.Background(), runner.Config{
		Phase: runner.Transactions, Threads: 2, Seed: 1,
		Stages: []runner.Stage{
			{Duration: 500 * time.Millisecond, Threads: 2, Target: 2000}, // 1000 due, 500 at most sent
			// Both backlogs, then 40: 4 s leave room for sleeps that
			// overshoot 1 ms twofold on a busy machine.
			{Duration: 4 * time.Second, Threads: 1, Target: 10},
		},
	}, wl, db)
	require.NoError(t, err)
	// Everything due is sent: the second stage has time for both
	// workers' backlogs. Parking worker 1 with its half would drop
	// about a quarter of the total (about 790). The bounds leave room
	// for a race-instrumented run on a busy machine, whose sleeps
	// overshoot (5.7% off once): well clear of the quarter either way.
	ok := float64(opSummary(t, res.Measured, "READ").OK)
	require.GreaterOrEqual(t, ok, 0.88*1040, "the parked worker's backlog was sent")
	require.LessOrEqual(t, ok, 1.1*1040, "no more than was due")
}
