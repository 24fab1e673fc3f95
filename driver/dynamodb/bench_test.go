package dynamodb_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/driver/dynamodb"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// benchRecords and benchWorkers: a few thousand records keep the load
// under ten seconds against DynamoDB Local; 16 workers is the issue's
// client count.
const (
	benchRecords = 5000
	benchWorkers = 16
)

// benchWorkload is a YCSB core workload over the benchmark table with the
// given read and update proportions and YCSB's default record (10 fields
// of 100 bytes).
func benchWorkload(b *testing.B, table string, ops int, read, update string) *workload.Workload {
	b.Helper()
	return drivertest.Workload(b, dynamodb.Prefix, map[string]string{
		"recordcount": strconv.Itoa(benchRecords), "operationcount": strconv.Itoa(ops),
		"readproportion": read, "updateproportion": update, "scanproportion": "0", "insertproportion": "0",
		"requestdistribution": "zipfian", "table": table,
	})
}

// BenchmarkWorkload runs YCSB workloads C (reads only) and A (half
// updates) through the runner with 16 workers against the test server,
// after loading it in batches. It reports throughput, client CPU per
// operation (this process only; the server's CPU is not counted) and the
// capacity units consumed per operation.
func BenchmarkWorkload(b *testing.B) {
	endpoint := testenv.Addr(b, envAddr)
	ctx := context.Background()
	table := localTable("dbarena_bench")
	db, err := dynamodb.Open(ctx, driver.Params{Props: map[string]string{
		"dynamodb.endpoint": endpoint, "table": table}, Workers: benchWorkers})
	require.NoError(b, err)
	defer db.Close()
	sm := db.(driver.SchemaManager)
	wl := benchWorkload(b, table, 1, "1", "0")
	schema := driver.Schema{Table: table, Fields: wl.FieldNames()}
	require.NoError(b, sm.CreateSchema(ctx, schema))
	defer func() { _ = sm.DropSchema(context.Background(), schema) }()
	res, err := runner.Run(ctx, runner.Config{Phase: runner.Load, Threads: 4, BatchSize: 25, Seed: 1}, wl, db)
	require.NoError(b, err)
	require.Zero(b, res.Measured.Errors)

	for _, w := range []struct{ name, read, update string }{{"C", "1", "0"}, {"A", "0.5", "0.5"}} {
		b.Run("workload="+w.name, func(b *testing.B) {
			wl := benchWorkload(b, table, b.N, w.read, w.update)
			b.ReportAllocs()
			before := counters(db.(driver.CounterSource))
			cpu := drivertest.ProcessCPU()
			b.ResetTimer()
			start := time.Now()
			res, err := runner.Run(ctx, runner.Config{
				Phase: runner.Transactions, Threads: benchWorkers, OperationCount: int64(b.N), Seed: 7,
			}, wl, db)
			wall := time.Since(start)
			b.StopTimer()
			require.NoError(b, err)
			require.Zero(b, res.Measured.Errors)
			ops := res.Measured.Operations
			drivertest.ReportCPU(b, cpu, wall, ops)
			after := counters(db.(driver.CounterSource))
			b.ReportMetric((after["dynamodb.consumed_rcu"]-before["dynamodb.consumed_rcu"])/float64(ops), "rcu/op")
			b.ReportMetric((after["dynamodb.consumed_wcu"]-before["dynamodb.consumed_wcu"])/float64(ops), "wcu/op")
		})
	}
}
