package drivertest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/internal/testenv"
)

// ddbBenchRecords and ddbBenchWorkers: a few thousand records keep the load
// under ten seconds against DynamoDB Local; 16 workers is the issue's
// client count.
const (
	ddbBenchRecords = 5000
	ddbBenchWorkers = 16
)

// ddbBench is a YCSB core workload over a fresh table with the given read
// and update proportions and YCSB's default record (10 fields of 100
// bytes), loaded in batches of 25, DynamoDB's most.
func ddbBench(b *testing.B, endpoint, table, read, update string) drivertest.Bench {
	d := tableDriver(b, "dynamodb")
	return drivertest.Bench{
		Open: d.Open, Prefix: d.Prefix,
		Props: map[string]string{"dynamodb.endpoint": endpoint, "table": table},
		Workload: map[string]string{
			"readproportion": read, "updateproportion": update, "scanproportion": "0", "insertproportion": "0",
			"requestdistribution": "zipfian", "table": table,
		},
		Records: ddbBenchRecords, Workers: ddbBenchWorkers, LoadBatch: 25,
	}
}

// BenchmarkDynamoDBWorkload runs YCSB workloads C (reads only) and A (half
// updates) through the runner with 16 workers against the test server,
// after loading it in batches. It reports throughput, client CPU per
// operation (this process only; the server's CPU is not counted) and the
// capacity units consumed per operation.
func BenchmarkDynamoDBWorkload(b *testing.B) {
	endpoint := testenv.Addr(b, ddbEnv)
	table := fmt.Sprintf("dbarena_bench_%d", time.Now().UnixNano()%1_000_000_000) // fresh: tests share the server
	db := ddbBench(b, endpoint, table, "1", "0").OpenLoaded(b)
	for _, w := range []struct{ name, read, update string }{{"C", "1", "0"}, {"A", "0.5", "0.5"}} {
		b.Run("workload="+w.name, func(b *testing.B) {
			before := ddbCounters(db.(driver.CounterSource))
			res := ddbBench(b, endpoint, table, w.read, w.update).Run(b, db)
			ops := res.Measured.Operations
			after := ddbCounters(db.(driver.CounterSource))
			b.ReportMetric((after["dynamodb.consumed_rcu"]-before["dynamodb.consumed_rcu"])/float64(ops), "rcu/op")
			b.ReportMetric((after["dynamodb.consumed_wcu"]-before["dynamodb.consumed_wcu"])/float64(ops), "wcu/op")
		})
	}
}

// ddbEnv holds the test server's address.
const ddbEnv = "DBARENA_TEST_DYNAMODB"

// ddbCounters returns a DB's counters by name.
func ddbCounters(db driver.CounterSource) map[string]float64 {
	m := map[string]float64{}
	for _, c := range db.Counters() {
		m[c.Name] = c.Value
	}
	return m
}
