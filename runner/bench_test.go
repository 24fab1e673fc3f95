package runner_test

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/clock"
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
			db, err := openBasic(basicParams())
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

// coarseClock is the real clock with Go's own timers only: the pacing
// dbarena had before its timers were precise, for side-by-side figures.
type coarseClock struct{ *clock.Real }

func (c coarseClock) NewTimer(bool) (clock.Timer, error) { return c.Real.NewTimer(false) }

// cpuNow is the CPU time this process used so far.
func cpuNow(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPacing measures how late the harness starts paced operations
// (the pacing-p50-µs and pacing-p99-µs metrics: from the intended start,
// or from when the worker was free if later, to the actual start) and
// its CPU per operation, against the basic driver, whose basic.delay
// keeps each worker busy a tenth of its time (DBARENA_BENCH_DELAY sets
// another delay, such as 0s for the schedule's cost alone).
// timer=precise is the runner's own clock; timer=go paces on Go's runtime
// timers, as dbarena did before; timer=closed runs the same workers and
// delay unpaced, as fast as they go: the CPU per operation a paced run
// costs above it is the price of pacing. One iteration is one operation;
// -benchtime 10s runs each case about ten seconds.
func BenchmarkPacing(b *testing.B) {
	cases := []struct{ rate, workers int }{
		{100, 1}, {100, 256}, {1000, 8}, {5000, 1}, {5000, 8}, {5000, 64}, {20000, 16}, {20000, 256}, {50000, 16}, {50000, 256},
	}
	for _, c := range cases {
		delay := time.Duration(0.1 * float64(c.workers) / float64(c.rate) * float64(time.Second))
		if d, err := time.ParseDuration(os.Getenv("DBARENA_BENCH_DELAY")); err == nil {
			delay = d
		}
		for _, mode := range []string{"precise", "go", "closed"} {
			if mode == "closed" && c.rate != 5000 {
				continue
			}
			b.Run(fmt.Sprintf("rate=%d/workers=%d/timer=%s", c.rate, c.workers, mode), func(b *testing.B) {
				db, err := openBasic(driver.Params{Props: map[string]string{"basic.delay": delay.String()}})
				if err != nil {
					b.Fatal(err)
				}
				wl := newWorkload(b, "recordcount", "1000", "readproportion", "1", "updateproportion", "0")
				cfg := runner.Config{Phase: runner.Transactions, Threads: c.workers, OperationCount: int64(b.N), Seed: 1,
					Target: float64(c.rate)}
				switch mode {
				case "go":
					cfg.Clock = coarseClock{clock.NewReal()}
				case "closed":
					cfg.Target = 0
				}
				b.ReportAllocs()
				cpu := cpuNow(b)
				b.ResetTimer()
				res, err := runner.Run(context.Background(), cfg, wl, db)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				used := cpuNow(b) - cpu
				b.ReportMetric(float64(used.Microseconds())/float64(b.N), "cpu-µs/op")
				b.ReportMetric(res.Measured.OKThroughput, "ops/s")
				if p := res.Measured.Pacing; p != nil {
					b.ReportMetric(p.P50, "pacing-p50-µs")
					b.ReportMetric(p.P99, "pacing-p99-µs")
				}
			})
		}
	}
}
