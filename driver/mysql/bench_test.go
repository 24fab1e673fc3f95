package mysql_test

import (
	"context"
	"database/sql"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/driver/mysql"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// benchRecords and benchWorkers follow the comparison: workload C
// over 100k records with 16 clients.
const (
	benchRecords  = 100_000
	benchWorkers  = 16
	benchDatabase = "dbarena_bench"
	benchTable    = "usertable"
)

// benchWorkload is YCSB workload C: read-only, every field, zipfian keys.
func benchWorkload(b *testing.B, ops int) *workload.Workload {
	b.Helper()
	return drivertest.Workload(b, mysql.Prefix, map[string]string{
		"recordcount": strconv.Itoa(benchRecords), "operationcount": strconv.Itoa(ops),
		"readproportion": "1", "updateproportion": "0", "scanproportion": "0", "insertproportion": "0",
		"requestdistribution": "zipfian", "readallfields": "true", "table": benchTable,
	})
}

// openLoaded opens the benchmark database, loading the table when it does
// not hold the expected records yet.
func openLoaded(b *testing.B, dsn string) driver.DB {
	b.Helper()
	ctx := context.Background()
	db, err := mysql.Open(ctx, driver.Params{
		Props: map[string]string{"mysql.url": dsn, "mysql.database": benchDatabase}, Workers: benchWorkers,
	})
	require.NoError(b, err)
	wl := benchWorkload(b, 1)
	schema := driver.Schema{Table: benchTable, Fields: wl.FieldNames()}
	sm := db.(driver.SchemaManager)
	if sm.CheckSchema(ctx, schema) == nil && countRows(b, dsn) == benchRecords {
		return db
	}
	require.NoError(b, sm.DropSchema(ctx, schema))
	require.NoError(b, sm.CreateSchema(ctx, schema))
	res, err := runner.Run(ctx, runner.Config{Phase: runner.Load, Threads: 4, BatchSize: 500, Seed: 1}, wl, db)
	require.NoError(b, err)
	require.Zero(b, res.Measured.Errors)
	return db
}

func countRows(b *testing.B, dsn string) int {
	b.Helper()
	raw, err := sql.Open("mysql", dsn)
	require.NoError(b, err)
	defer raw.Close()
	var n int
	if err := raw.QueryRow("SELECT COUNT(*) FROM " + benchDatabase + "." + benchTable).Scan(&n); err != nil {
		return -1
	}
	return n
}

// BenchmarkWorkloadC runs YCSB workload C (read-only, 16 workers) for b.N
// operations and reports ops/s and client CPU per operation. Run it with a
// fixed count, e.g. -benchtime 100000x.
func BenchmarkWorkloadC(b *testing.B) {
	db := openLoaded(b, testenv.Addr(b, envAddr))
	defer db.Close()
	wl := benchWorkload(b, b.N)
	b.ReportAllocs()
	cpu := drivertest.ProcessCPU()
	b.ResetTimer()
	start := time.Now()
	res, err := runner.Run(context.Background(), runner.Config{
		Phase: runner.Transactions, Threads: benchWorkers, OperationCount: int64(b.N), Seed: 7,
	}, wl, db)
	wall := time.Since(start)
	b.StopTimer()
	require.NoError(b, err)
	require.Zero(b, res.Measured.Errors)
	drivertest.ReportCPU(b, cpu, wall, res.Measured.Operations)
}
