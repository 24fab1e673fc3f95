package runner_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/dbarena/dbarena/driver/basic"
	"github.com/dbarena/dbarena/runner"
)

// BenchmarkHarness measures the harness's own cost per operation: YCSB
// workload A (50/50 read/update, zipfian keys, one 100-byte field per
// update) against the basic driver, which does nothing. One benchmark
// iteration is one operation of a single run of b.N operations, so ns/op
// and allocs/op are per YCSB operation, setup amortised.
func BenchmarkHarness(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			db, err := basic.Open(context.Background(), basicParams())
			if err != nil {
				b.Fatal(err)
			}
			wl := newWorkload(b, "recordcount", "1000000", "operationcount", "1000000",
				"readproportion", "0.5", "updateproportion", "0.5", "requestdistribution", "zipfian")
			cfg := runner.Config{Phase: runner.Transactions, Threads: workers, OperationCount: int64(b.N), Seed: 1}
			b.ReportAllocs()
			b.ResetTimer()
			res, err := runner.Run(context.Background(), cfg, wl, db)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(res.Measured.Throughput, "ops/s")
		})
	}
}
