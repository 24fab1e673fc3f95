package cql_test

import (
	"context"
	"maps"
	"testing"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/cql"
	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/internal/testenv"
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

// bench is workload A over records records of table, loaded in UNLOGGED
// batches of 50 by 8 threads, with extra driver properties.
func bench(b *testing.B, extra map[string]string, records int, table string) drivertest.Bench {
	props := map[string]string{"cql.hosts": testenv.Addr(b, envNode), "cql.keyspace": benchKeyspace}
	maps.Copy(props, extra)
	return drivertest.Bench{
		Open: cql.Open, Prefix: cql.Prefix, Props: props,
		Workload: map[string]string{
			"readproportion": "0.5", "updateproportion": "0.5", "scanproportion": "0", "insertproportion": "0",
			"requestdistribution": "zipfian", "table": table,
		},
		Records: records, Workers: benchWorkers, LoadThreads: 8, LoadBatch: 50, Loaded: loaded,
	}
}

// loaded reports whether the table holds the first, middle and last keys
// of the load.
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
			bn := bench(b, v.props, benchRecords, benchTable)
			bn.Run(b, bn.OpenLoaded(b))
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
			bn := bench(b, v.props, b.N, "bench_load")
			bn.Loaded, bn.Workers = nil, 8
			bn.Load(b, bn.OpenEmpty(b))
		})
	}
}
