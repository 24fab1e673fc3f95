package drivertest_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/internal/testenv"
)

// A few thousand records keep the load short against FerretDB's SQLite
// backend; 16 workers match the other drivers' benchmarks.
const (
	mongoBenchRecords  = 5000
	mongoBenchWorkers  = 16
	mongoBenchTable    = "bench_usertable"
	mongoBenchDatabase = "dbarena_bench"
)

// mongoCountDocuments counts the benchmark collection through the official
// driver, to reuse a complete load.
func mongoCountDocuments(url string) int64 {
	c, err := mongo.Connect(options.Client().ApplyURI(url))
	if err != nil {
		return -1
	}
	defer func() { _ = c.Disconnect(context.Background()) }()
	n, err := c.Database(mongoBenchDatabase).Collection(mongoBenchTable).CountDocuments(context.Background(), map[string]any{})
	if err != nil {
		return -1
	}
	return n
}

// BenchmarkMongoDBWorkloadC runs YCSB workload C (100% reads, zipfian) with 16
// workers and reports ops/s and the client's CPU per operation. The server
// is FerretDB in the test setup, so ops/s measures FerretDB on SQLite, not
// MongoDB; cpu-us/op is this driver's own cost per read, which depends
// little on the server.
func BenchmarkMongoDBWorkloadC(b *testing.B) {
	url := testenv.Addr(b, mongoEnv)
	d := tableDriver(b, "mongodb")
	bn := drivertest.Bench{
		Open: d.Open, Prefix: d.Prefix,
		Props: map[string]string{"mongodb.url": url, "mongodb.database": mongoBenchDatabase},
		Workload: map[string]string{
			"readproportion": "1", "updateproportion": "0", "scanproportion": "0", "insertproportion": "0",
			"requestdistribution": "zipfian", "table": mongoBenchTable,
		},
		Records: mongoBenchRecords, Workers: mongoBenchWorkers, LoadBatch: 100,
		Loaded: func(context.Context, driver.DB) bool { return mongoCountDocuments(url) == mongoBenchRecords },
	}
	db := bn.OpenLoaded(b)
	b.Run("workers=16", func(b *testing.B) { bn.Run(b, db) })
}

// mongoEnv holds the test server's address.
const mongoEnv = "DBARENA_TEST_MONGODB"
