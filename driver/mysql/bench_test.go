package mysql_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/driver/mysql"
	"github.com/dbarena/dbarena/internal/testenv"
)

// benchRecords and benchWorkers follow the comparison: workload C
// over 100k records with 16 clients.
const (
	benchRecords  = 100_000
	benchWorkers  = 16
	benchDatabase = "dbarena_bench"
	benchTable    = "usertable"
)

// bench is a YCSB workload of reads of every field and one-field updates
// in the given proportions, zipfian keys, over the benchmark database,
// whose load is kept between runs.
func bench(dsn, read, update string) drivertest.Bench {
	return drivertest.Bench{
		Open: mysql.Open, Prefix: mysql.Prefix,
		Props: map[string]string{"mysql.url": dsn, "mysql.database": benchDatabase},
		Workload: map[string]string{
			"readproportion": read, "updateproportion": update, "scanproportion": "0", "insertproportion": "0",
			"requestdistribution": "zipfian", "readallfields": "true", "table": benchTable,
		},
		Records: benchRecords, Workers: benchWorkers,
		Loaded: func(context.Context, driver.DB) bool { return countRows(dsn) == benchRecords },
	}
}

func countRows(dsn string) int {
	raw, err := sql.Open("mysql", dsn)
	if err != nil {
		return -1
	}
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
	bn := bench(testenv.Addr(b, envAddr), "1", "0")
	bn.Run(b, bn.OpenLoaded(b))
}

// BenchmarkWorkloadA is workload A (half reads, half one-field updates)
// with 16 workers, reported as BenchmarkWorkloadC is.
func BenchmarkWorkloadA(b *testing.B) {
	bn := bench(testenv.Addr(b, envAddr), "0.5", "0.5")
	bn.Run(b, bn.OpenLoaded(b))
}
