package cql_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/cql"
	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// The benchmark follows the comparison: YCSB workload A (50% reads
// of every field, 50% updates of one field, zipfian keys) over 100k
// records of 10 x 100 bytes with 16 workers.
const (
	benchRecords  = 100_000
	benchWorkers  = 16
	benchKeyspace = "dbarena_bench"
	benchTable    = "usertable"
)

func benchWorkload(b *testing.B, records, ops int, table string) *workload.Workload {
	b.Helper()
	return drivertest.Workload(b, cql.Prefix, map[string]string{
		"recordcount": strconv.Itoa(records), "operationcount": strconv.Itoa(ops),
		"readproportion": "0.5", "updateproportion": "0.5", "scanproportion": "0", "insertproportion": "0",
		"requestdistribution": "zipfian", "table": table,
	})
}

func benchProps(b *testing.B, extra map[string]string) map[string]string {
	p := map[string]string{"cql.hosts": testenv.Addr(b, envNode), "cql.keyspace": benchKeyspace}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// openLoaded opens the benchmark keyspace, loading the table unless it
// exists and holds the first, middle and last keys of the load.
func openLoaded(b *testing.B, extra map[string]string) driver.DB {
	b.Helper()
	ctx := context.Background()
	db, err := cql.Open(ctx, driver.Params{Props: benchProps(b, extra), Workers: benchWorkers})
	require.NoError(b, err)
	wl := benchWorkload(b, benchRecords, 1, benchTable)
	schema := driver.Schema{Table: benchTable, Fields: wl.FieldNames()}
	sm := db.(driver.SchemaManager)
	if sm.CheckSchema(ctx, schema) == nil && loaded(ctx, db) {
		return db
	}
	require.NoError(b, sm.DropSchema(ctx, schema))
	require.NoError(b, sm.CreateSchema(ctx, schema))
	res, err := runner.Run(ctx, runner.Config{Phase: runner.Load, Threads: 8, BatchSize: 50, Seed: 1}, wl, db)
	require.NoError(b, err)
	requireNoErrors(b, res)
	return db
}

func loaded(ctx context.Context, db driver.DB) bool {
	sess, err := db.Session(ctx, 0)
	if err != nil {
		return false
	}
	defer sess.Close()
	for _, i := range []int64{0, benchRecords / 2, benchRecords - 1} {
		if _, err := sess.Read(ctx, benchTable, workload.KeyName(i, true, 1), nil, nil); err != nil {
			return false
		}
	}
	return true
}

// BenchmarkWorkloadA runs b.N operations of workload A through the runner
// and reports throughput and the client CPU per operation (runner,
// workload and driver together). Run it with a fixed count, e.g.
// -benchtime=200000x.
func BenchmarkWorkloadA(b *testing.B) {
	for _, v := range []struct {
		name  string
		props map[string]string
	}{
		{"conns=1", nil}, // the default
		{"conns=16", map[string]string{"cql.connections": "16"}},
		{"conns=1/coalesce=200us", map[string]string{"cql.write.coalesce": "200us"}}, // gocql's default window
	} {
		b.Run(v.name, func(b *testing.B) {
			db := openLoaded(b, v.props)
			defer db.Close()
			wl := benchWorkload(b, benchRecords, b.N, benchTable)
			cpu := drivertest.ProcessCPU()
			b.ResetTimer()
			start := time.Now()
			res, err := runner.Run(context.Background(), runner.Config{
				Phase: runner.Transactions, Threads: benchWorkers, OperationCount: int64(b.N), Seed: 7,
			}, wl, db)
			wall := time.Since(start)
			b.StopTimer()
			require.NoError(b, err)
			requireNoErrors(b, res)
			drivertest.ReportCPU(b, cpu, wall, res.Measured.Operations)
		})
	}
}

// BenchmarkLoad compares the two ways of sending the load phase's batches
// of 50: concurrent single-row inserts and UNLOGGED batches. b.N records
// are loaded into a fresh table.
func BenchmarkLoad(b *testing.B) {
	for _, v := range []struct {
		name  string
		props map[string]string
	}{
		{"load=concurrent", map[string]string{"cql.load": "concurrent"}},
		{"load=unlogged/bytes=4k", map[string]string{"cql.load": "unlogged", "cql.load.batch.bytes": "4096"}},
		{"load=unlogged/bytes=40k", map[string]string{"cql.load": "unlogged", "cql.load.batch.bytes": "40960"}},
	} {
		b.Run(v.name, func(b *testing.B) {
			ctx := context.Background()
			db, err := cql.Open(ctx, driver.Params{Props: benchProps(b, v.props), Workers: 8})
			require.NoError(b, err)
			defer db.Close()
			table := "bench_load"
			wl := benchWorkload(b, b.N, 1, table)
			schema := driver.Schema{Table: table, Fields: wl.FieldNames()}
			sm := db.(driver.SchemaManager)
			require.NoError(b, sm.DropSchema(ctx, schema))
			require.NoError(b, sm.CreateSchema(ctx, schema))
			defer func() { _ = sm.DropSchema(ctx, schema) }()
			cpu := drivertest.ProcessCPU()
			b.ResetTimer()
			start := time.Now()
			res, err := runner.Run(ctx, runner.Config{Phase: runner.Load, Threads: 8, BatchSize: 50, Seed: 1}, wl, db)
			wall := time.Since(start)
			b.StopTimer()
			require.NoError(b, err)
			requireNoErrors(b, res)
			drivertest.ReportCPU(b, cpu, wall, res.Measured.Operations)
		})
	}
}

// requireNoErrors fails with the error classes of every series, which on a
// loaded machine are server-side timeouts rather than driver faults.
func requireNoErrors(b *testing.B, res *runner.Result) {
	b.Helper()
	for _, r := range res.MeasuredResults {
		require.Zero(b, r.ErrorCount(), "series %s failed: %v", r.Name, r.Errors)
	}
}
