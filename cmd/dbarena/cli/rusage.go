package cli

import (
	"github.com/dbarena/dbarena/results"
	"runtime"
	"syscall"
	"time"
)

// runUsage is the CPU seconds the process spent and the wall-clock
// seconds that passed over one span.
type runUsage struct {
	cpu, wall float64
}

// startUsage starts a span; the function it returns ends it (zero CPU
// when the usage is unreadable).
func startUsage() func() runUsage {
	cpu := func() float64 {
		u, _ := readLoaderUsage()
		return u.UserCPU + u.SystemCPU
	}
	c0, t0 := cpu(), time.Now()
	return func() runUsage { return runUsage{cpu: cpu() - c0, wall: time.Since(t0).Seconds()} }
}

// readLoaderUsage reads the process's peak resident set and CPU time.
func readLoaderUsage() (results.LoaderUsage, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return results.LoaderUsage{}, err
	}
	tv := func(t syscall.Timeval) float64 {
		return (time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond).Seconds()
	}
	// Linux reports ru_maxrss in KiB.
	return results.LoaderUsage{MaxRSSBytes: int64(ru.Maxrss) * 1024, UserCPU: tv(ru.Utime), SystemCPU: tv(ru.Stime),
		Cores: runtime.GOMAXPROCS(0)}, nil
}
