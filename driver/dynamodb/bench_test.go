package dynamodb_test

import (
	"testing"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/driver/dynamodb"
	"github.com/dbarena/dbarena/internal/testenv"
)

// benchRecords and benchWorkers: a few thousand records keep the load
// under ten seconds against DynamoDB Local; 16 workers is the issue's
// client count.
const (
	benchRecords = 5000
	benchWorkers = 16
)

// bench is a YCSB core workload over a fresh table with the given read
// and update proportions and YCSB's default record (10 fields of 100
// bytes), loaded in batches of 25, DynamoDB's most.
func bench(endpoint, table, read, update string) drivertest.Bench {
	return drivertest.Bench{
		Open: dynamodb.Open, Prefix: dynamodb.Prefix,
		Props: map[string]string{"dynamodb.endpoint": endpoint, "table": table},
		Workload: map[string]string{
			"readproportion": read, "updateproportion": update, "scanproportion": "0", "insertproportion": "0",
			"requestdistribution": "zipfian", "table": table,
		},
		Records: benchRecords, Workers: benchWorkers, LoadBatch: 25,
	}
}

// BenchmarkWorkload runs YCSB workloads C (reads only) and A (half
// updates) through the runner with 16 workers against the test server,
// after loading it in batches. It reports throughput, client CPU per
// operation (this process only; the server's CPU is not counted) and the
// capacity units consumed per operation.
func BenchmarkWorkload(b *testing.B) {
	endpoint := testenv.Addr(b, envAddr)
	table := localTable("dbarena_bench")
	db := bench(endpoint, table, "1", "0").OpenLoaded(b)
	for _, w := range []struct{ name, read, update string }{{"C", "1", "0"}, {"A", "0.5", "0.5"}} {
		b.Run("workload="+w.name, func(b *testing.B) {
			before := counters(db.(driver.CounterSource))
			res := bench(endpoint, table, w.read, w.update).Run(b, db)
			ops := res.Measured.Operations
			after := counters(db.(driver.CounterSource))
			b.ReportMetric((after["dynamodb.consumed_rcu"]-before["dynamodb.consumed_rcu"])/float64(ops), "rcu/op")
			b.ReportMetric((after["dynamodb.consumed_wcu"]-before["dynamodb.consumed_wcu"])/float64(ops), "wcu/op")
		})
	}
}
