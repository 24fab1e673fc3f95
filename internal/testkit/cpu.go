package testkit

import (
	"syscall"
	"testing"
	"time"
)

// ProcessCPU returns the CPU time, user plus system, this process has used
// so far. Benchmarks take it before and after a run to report client CPU
// per operation, the figure that decides how many operations a load
// machine can drive.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ReportCPU reports the client CPU per operation since start as the
// benchmark metric "cpu-us/op", and the throughput as "ops/s".
func ReportCPU(b *testing.B, start time.Duration, wall time.Duration, ops int64) {
	b.Helper()
	if ops <= 0 {
		return
	}
	used := ProcessCPU() - start
	b.ReportMetric(float64(used.Microseconds())/float64(ops), "cpu-us/op")
	if wall > 0 {
		b.ReportMetric(float64(ops)/wall.Seconds(), "ops/s")
	}
}
