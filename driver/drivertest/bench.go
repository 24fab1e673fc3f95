package drivertest

import (
	"context"
	"maps"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/testkit"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// Bench is the set-up every driver benchmark shares: a YCSB workload over
// a table loaded once through the runner, then b.N operations of it
// through the runner, timed, with throughput and client CPU reported.
type Bench struct {
	// Open, Prefix and Props open the driver under test.
	Open   driver.Opener
	Prefix string
	Props  map[string]string
	// Workload holds the workload's properties (proportions, distribution,
	// table...) but recordcount and operationcount, which come from
	// Records and each call.
	Workload map[string]string
	Records  int
	// Workers run the measured operations (default 16, the issue's
	// client count).
	Workers int
	// LoadThreads and LoadBatch load the table (default 4 and 500).
	LoadThreads, LoadBatch int
	// Loaded reports whether an earlier run left the whole load in place,
	// so that it is reused; checked after the schema. Nil: a fresh table
	// every run, dropped when the benchmark ends.
	Loaded func(ctx context.Context, db driver.DB) bool
}

func (bn Bench) workers() int {
	if bn.Workers == 0 {
		return 16
	}
	return bn.Workers
}

// WorkloadOf returns the benchmark's workload for ops operations.
func (bn Bench) WorkloadOf(b *testing.B, ops int) *workload.Workload {
	b.Helper()
	p := maps.Clone(bn.Workload)
	if p == nil {
		p = map[string]string{}
	}
	p[core.RecordCount] = strconv.Itoa(bn.Records)
	p[core.OperationCount] = strconv.Itoa(ops)
	return Workload(b, bn.Prefix, p)
}

// OpenLoaded opens the driver and, unless Loaded finds an earlier load
// complete, creates the table afresh and loads it. Without Loaded the
// table is dropped again when the benchmark ends. The DB is closed then.
func (bn Bench) OpenLoaded(b *testing.B) driver.DB {
	b.Helper()
	db, wl, schema := bn.open(b)
	if bn.Loaded != nil && db.(driver.SchemaManager).CheckSchema(context.Background(), schema) == nil &&
		bn.Loaded(context.Background(), db) {
		return db
	}
	bn.recreate(b, db, schema)
	res, err := bn.load(db, wl)
	require.NoError(b, err)
	RequireNoErrors(b, res)
	return db
}

// OpenEmpty opens the driver with the table created afresh, empty, and
// dropped when the benchmark ends: Load then times the load into it.
func (bn Bench) OpenEmpty(b *testing.B) driver.DB {
	b.Helper()
	db, _, schema := bn.open(b)
	bn.recreate(b, db, schema)
	return db
}

// Load loads the Records into db, timed and reported as Run is.
func (bn Bench) Load(b *testing.B, db driver.DB) *runner.Result {
	b.Helper()
	wl := bn.WorkloadOf(b, 1)
	return Timed(b, func() (*runner.Result, error) { return bn.load(db, wl) })
}

func (bn Bench) open(b *testing.B) (driver.DB, *workload.Workload, driver.Schema) {
	b.Helper()
	db, err := bn.Open(context.Background(), driver.Params{Props: bn.Props, Workers: bn.workers()})
	require.NoError(b, err)
	b.Cleanup(func() { _ = db.Close() })
	wl := bn.WorkloadOf(b, 1)
	return db, wl, driver.Schema{Table: wl.Config().Table, Fields: wl.FieldNames()}
}

// recreate drops and creates the table; a benchmark that does not keep
// its load (no Loaded) drops it again at the end.
func (bn Bench) recreate(b *testing.B, db driver.DB, schema driver.Schema) {
	b.Helper()
	ctx := context.Background()
	sm := db.(driver.SchemaManager)
	require.NoError(b, sm.DropSchema(ctx, schema))
	require.NoError(b, sm.CreateSchema(ctx, schema))
	if bn.Loaded == nil {
		b.Cleanup(func() { _ = sm.DropSchema(context.Background(), schema) })
	}
}

func (bn Bench) load(db driver.DB, wl *workload.Workload) (*runner.Result, error) {
	threads, batch := bn.LoadThreads, bn.LoadBatch
	if threads == 0 {
		threads = 4
	}
	if batch == 0 {
		batch = 500
	}
	cfg := runner.Config{Phase: runner.Load, Threads: threads, BatchSize: batch, Seed: 1}
	return runner.Run(context.Background(), cfg, wl, db)
}

// Run runs b.N operations of the workload on db with Workers threads
// through the runner, and reports ops/s and cpu-us/op.
func (bn Bench) Run(b *testing.B, db driver.DB) *runner.Result {
	b.Helper()
	wl := bn.WorkloadOf(b, b.N)
	return Timed(b, func() (*runner.Result, error) {
		return runner.Run(context.Background(), runner.Config{
			Phase: runner.Transactions, Threads: bn.workers(), OperationCount: int64(b.N), Seed: 7,
		}, wl, db)
	})
}

// Timed times run alone (the timer reset before it and stopped after),
// fails the benchmark on any error of its result, and reports the
// throughput and the client CPU per operation it counted.
func Timed(b *testing.B, run func() (*runner.Result, error)) *runner.Result {
	b.Helper()
	b.ReportAllocs()
	cpu := testkit.ProcessCPU()
	b.ResetTimer()
	start := time.Now()
	res, err := run()
	wall := time.Since(start)
	b.StopTimer()
	require.NoError(b, err)
	RequireNoErrors(b, res)
	testkit.ReportCPU(b, cpu, wall, res.Measured.Operations)
	return res
}

// RequireNoErrors fails with the errors of every series that had any:
// on a loaded machine they are server-side timeouts rather than driver
// faults, and the classes say which.
func RequireNoErrors(tb testing.TB, res *runner.Result) {
	tb.Helper()
	for i := range res.MeasuredResults {
		r := &res.MeasuredResults[i]
		require.Zero(tb, r.ErrorCount(), "series %s failed: %v", r.Name, r.Errors)
	}
}

// RunTool runs a database's own load tool (pgbench, redis-benchmark) as
// the timed part of a benchmark, fails with its output if it fails, and
// reports its CPU (the child's, not this process's) per operation and
// its throughput, for ops operations, the way Run reports dbarena's.
func RunTool(b *testing.B, cmd *exec.Cmd, ops int) {
	b.Helper()
	b.ResetTimer()
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	b.StopTimer()
	require.NoError(b, err, string(out))
	st := cmd.ProcessState
	b.ReportMetric(float64((st.UserTime()+st.SystemTime()).Microseconds())/float64(ops), "cpu-us/op")
	b.ReportMetric(float64(ops)/wall.Seconds(), "ops/s")
}

// Alone measures a client library without dbarena's runner and driver:
// b.N operations (rounded down to a multiple of workers) spread over
// workers goroutines, each calling op with its
// number and a random source of its own, timed, with throughput and
// client CPU per operation reported as Run reports dbarena's. What the
// driver spends above it is dbarena's own.
func Alone(b *testing.B, workers int, op func(ctx context.Context, worker int, rng *rand.Rand) error) {
	b.Helper()
	b.ReportAllocs()
	cpu := testkit.ProcessCPU()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	per := b.N / workers
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 2))
			ctx := context.Background()
			for i := 0; i < per; i++ {
				if err := op(ctx, w, rng); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	b.StopTimer()
	close(errs)
	for err := range errs {
		require.NoError(b, err)
	}
	testkit.ReportCPU(b, cpu, wall, int64(per*workers))
}
