package drivertest_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/internal/testenv"
)

// myBenchRecords and myBenchWorkers follow the comparison: workload C
// over 100k records with 16 clients.
const (
	myBenchRecords  = 100_000
	myBenchWorkers  = 16
	myBenchDatabase = "dbarena_bench"
	myBenchTable    = "usertable"
)

// myBench is a YCSB workload of reads of every field and one-field updates
// in the given proportions, zipfian keys, over the benchmark database,
// whose load is kept between runs.
func myBench(b *testing.B, dsn, read, update string) drivertest.Bench {
	d := tableDriver(b, "mysql")
	return drivertest.Bench{
		Open: d.Open, Prefix: d.Prefix,
		Props: map[string]string{"mysql.url": dsn, "mysql.database": myBenchDatabase},
		Workload: map[string]string{
			"readproportion": read, "updateproportion": update, "scanproportion": "0", "insertproportion": "0",
			"requestdistribution": "zipfian", "readallfields": "true", "table": myBenchTable,
		},
		Records: myBenchRecords, Workers: myBenchWorkers,
		Loaded: func(context.Context, driver.DB) bool { return myCountRows(dsn) == myBenchRecords },
	}
}

func myCountRows(dsn string) int {
	raw, err := sql.Open("mysql", dsn)
	if err != nil {
		return -1
	}
	defer raw.Close()
	var n int
	if err := raw.QueryRow("SELECT COUNT(*) FROM " + myBenchDatabase + "." + myBenchTable).Scan(&n); err != nil {
		return -1
	}
	return n
}

// BenchmarkMySQLWorkloadC runs YCSB workload C (read-only, 16 workers) for b.N
// operations and reports ops/s and client CPU per operation. Run it with a
// fixed count, e.g. -benchtime 100000x.
func BenchmarkMySQLWorkloadC(b *testing.B) {
	bn := myBench(b, testenv.Addr(b, myEnv), "1", "0")
	bn.Run(b, bn.OpenLoaded(b))
}

// BenchmarkMySQLWorkloadA is workload A (half reads, half one-field updates)
// with 16 workers, reported as BenchmarkMySQLWorkloadC is.
func BenchmarkMySQLWorkloadA(b *testing.B) {
	bn := myBench(b, testenv.Addr(b, myEnv), "0.5", "0.5")
	bn.Run(b, bn.OpenLoaded(b))
}

// myEnv holds the test server's address.
const myEnv = "DBARENA_TEST_MYSQL"
