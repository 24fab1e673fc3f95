package drivertest_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/generator"
)

// The benchmark follows the comparison: YCSB workload A (50% reads
// of every field, 50% updates of one field, zipfian keys) over 100k
// records of 10 x 100 bytes with 16 workers.
const (
	cqlBenchRecords  = 100_000
	cqlBenchWorkers  = 16
	cqlBenchKeyspace = "dbarena_bench"
	cqlBenchTable    = "usertable"
)

// cqlBench is workload A over records records of table, cqlLoaded in UNLOGGED
// batches of 50 by 8 threads, with extra driver properties.
func cqlBench(b *testing.B, extra map[string]string, records int, table string) drivertest.Bench {
	props := map[string]string{"cql.hosts": testenv.Addr(b, cqlEnv), "cql.keyspace": cqlBenchKeyspace}
	maps.Copy(props, extra)
	d := tableDriver(b, "cql")
	return drivertest.Bench{
		Open: d.Open, Prefix: d.Prefix, Props: props,
		Workload: map[string]string{
			"readproportion": "0.5", "updateproportion": "0.5", "scanproportion": "0", "insertproportion": "0",
			"requestdistribution": "zipfian", "table": table,
		},
		Records: records, Workers: cqlBenchWorkers, LoadThreads: 8, LoadBatch: 50, Loaded: cqlLoaded,
	}
}

// cqlLoaded reports whether the table holds the first, middle and last keys
// of the load.
func cqlLoaded(ctx context.Context, db driver.DB) bool {
	sess, err := db.Session(ctx, 0)
	if err != nil {
		return false
	}
	defer sess.Close()
	for _, i := range []int64{0, cqlBenchRecords / 2, cqlBenchRecords - 1} {
		if _, err := sess.Read(ctx, cqlBenchTable, workload.KeyName(i, true, 1), nil, nil); err != nil {
			return false
		}
	}
	return true
}

// BenchmarkCQLWorkloadA runs b.N operations of workload A through the runner
// and reports throughput and the client CPU per operation (runner,
// workload and driver together), beside gocql alone issuing the same
// reads and updates: what dbarena spends above that is its own. Run it
// with a fixed count, e.g. -benchtime=200000x.
func BenchmarkCQLWorkloadA(b *testing.B) {
	for _, v := range []struct {
		name  string
		props map[string]string
	}{
		{"client=dbarena", nil}, // the default: one connection per host
		{"conns=16", map[string]string{"cql.connections": "16"}},
		{"coalesce=200us", map[string]string{"cql.write.coalesce": "200us"}}, // gocql's default window
	} {
		b.Run(v.name, func(b *testing.B) {
			bn := cqlBench(b, v.props, cqlBenchRecords, cqlBenchTable)
			bn.Run(b, bn.OpenLoaded(b))
		})
	}
	b.Run("client=gocql-alone", func(b *testing.B) {
		bn := cqlBench(b, nil, cqlBenchRecords, cqlBenchTable)
		_ = bn.OpenLoaded(b) // the same rows
		gocqlAlone(b, testenv.Addr(b, cqlEnv))
	})
}

// gocqlAlone is workload A straight through gocql as the driver sets it up
// (one connection, consistency ONE, no write coalescing): half reads of
// a whole row scanned as bytes, half updates of one field, on cqlLoaded keys
// drawn from YCSB's scrambled zipfian as the workload draws them.
func gocqlAlone(b *testing.B, addr string) {
	cc := gocql.NewCluster(addr)
	cc.NumConns, cc.Consistency, cc.WriteCoalesceWaitTime = 1, gocql.One, 0
	s, err := cc.CreateSession()
	require.NoError(b, err)
	b.Cleanup(s.Close)
	read := fmt.Sprintf("SELECT * FROM %s.%s WHERE y_id = ?", cqlBenchKeyspace, cqlBenchTable)
	update := fmt.Sprintf("UPDATE %s.%s SET field3 = ? WHERE y_id = ?", cqlBenchKeyspace, cqlBenchTable)
	value := bytes.Repeat([]byte("v"), 100)
	dests := make([][]any, cqlBenchWorkers)
	for w := range dests {
		cols := make([][]byte, 11) // y_id and field0..9
		for i := range cols {
			dests[w] = append(dests[w], &cols[i])
		}
	}
	keys, err := generator.NewScrambledZipfian(0, cqlBenchRecords-1)
	require.NoError(b, err)
	drivertest.Alone(b, cqlBenchWorkers, func(ctx context.Context, w int, rng *rand.Rand) error {
		key := workload.KeyName(keys.Next(rng), true, 1)
		if rng.IntN(2) == 0 {
			return s.Query(read, key).ScanContext(ctx, dests[w]...)
		}
		return s.Query(update, value, key).ExecContext(ctx)
	})
}

// BenchmarkCQLLoad compares the two ways of sending the load phase's batches
// of 50: concurrent single-row inserts and UNLOGGED batches. b.N records
// are cqlLoaded into a fresh table.
func BenchmarkCQLLoad(b *testing.B) {
	for _, v := range []struct {
		name  string
		props map[string]string
	}{
		{"load=concurrent", map[string]string{"cql.load": "concurrent"}},
		{"load=unlogged/bytes=4k", map[string]string{"cql.load": "unlogged", "cql.load.batch.bytes": "4096"}},
		{"load=unlogged/bytes=40k", map[string]string{"cql.load": "unlogged", "cql.load.batch.bytes": "40960"}},
	} {
		b.Run(v.name, func(b *testing.B) {
			bn := cqlBench(b, v.props, b.N, "bench_load")
			bn.Loaded, bn.Workers = nil, 8
			bn.Load(b, bn.OpenEmpty(b))
		})
	}
}

// cqlEnv holds the test server's address (one Cassandra node).
const cqlEnv = "DBARENA_TEST_CASSANDRA"
