package mongodb_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/driver/mongodb"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// A few thousand records keep the load short against FerretDB's SQLite
// backend; 16 workers match the other drivers' benchmarks.
const (
	benchRecords  = 5000
	benchWorkers  = 16
	benchTable    = "bench_usertable"
	benchDatabase = "dbarena_bench"
)

func benchWorkload(b *testing.B, ops int) *workload.Workload {
	b.Helper()
	return drivertest.Workload(b, mongodb.Prefix, map[string]string{
		"recordcount": strconv.Itoa(benchRecords), "operationcount": strconv.Itoa(ops),
		"readproportion": "1", "updateproportion": "0", "scanproportion": "0", "insertproportion": "0",
		"requestdistribution": "zipfian", "table": benchTable,
	})
}

// countDocuments counts the benchmark collection through the official
// driver, to reuse a complete load.
func countDocuments(b *testing.B, url string) int64 {
	c, err := mongo.Connect(options.Client().ApplyURI(url))
	if err != nil {
		return -1
	}
	defer func() { _ = c.Disconnect(context.Background()) }()
	n, err := c.Database(benchDatabase).Collection(benchTable).CountDocuments(context.Background(), map[string]any{})
	if err != nil {
		return -1
	}
	return n
}

// BenchmarkWorkloadC runs YCSB workload C (100% reads, zipfian) with 16
// workers and reports ops/s and the client's CPU per operation. The server
// is FerretDB in the test setup, so ops/s measures FerretDB on SQLite, not
// MongoDB; cpu-us/op is this driver's own cost per read, which depends
// little on the server.
func BenchmarkWorkloadC(b *testing.B) {
	ctx := context.Background()
	url := testenv.Addr(b, envAddr)
	props := map[string]string{"mongodb.url": url, "mongodb.database": benchDatabase}
	db, err := mongodb.Open(ctx, driver.Params{Props: props, Workers: benchWorkers})
	require.NoError(b, err)
	defer db.Close()
	wl := benchWorkload(b, 1)
	schema := driver.Schema{Table: benchTable, Fields: wl.FieldNames()}
	sm := db.(driver.SchemaManager)
	if countDocuments(b, url) != benchRecords {
		require.NoError(b, sm.DropSchema(ctx, schema))
		require.NoError(b, sm.CreateSchema(ctx, schema))
		res, err := runner.Run(ctx, runner.Config{Phase: runner.Load, Threads: 4, BatchSize: 100, Seed: 1}, wl, db)
		require.NoError(b, err)
		require.Zero(b, res.Measured.Errors)
	}

	b.Run("workers=16", func(b *testing.B) {
		b.ReportAllocs()
		wl := benchWorkload(b, b.N)
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
		drivertest.ReportCPU(b, cpu, wall, res.Measured.Operations)
	})
}
