package cli

import (
	"runtime"
	"syscall"
	"time"
)

// LoaderUsage is what the benchmark process itself consumed: a run whose
// loader used most of a CPU core per worker thread measured the client, not
// the database.
type LoaderUsage struct {
	MaxRSSBytes int64   `json:"max_rss_bytes"`
	UserCPU     float64 `json:"user_cpu_s"`
	SystemCPU   float64 `json:"system_cpu_s"`
	// RunCPU and RunWall are the CPU seconds (user and system) the
	// process spent while the phase ran and the phase's wall-clock
	// seconds; Cores is how many cores it could use (GOMAXPROCS, which
	// follows a container's CPU limit). An experiment running this
	// process as a loader elsewhere judges from them whether the loader
	// machine, not the database, was the bottleneck.
	RunCPU  float64 `json:"run_cpu_s"`
	RunWall float64 `json:"run_wall_s"`
	Cores   int     `json:"cores"`
}

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
func readLoaderUsage() (LoaderUsage, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return LoaderUsage{}, err
	}
	tv := func(t syscall.Timeval) float64 {
		return (time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond).Seconds()
	}
	// Linux reports ru_maxrss in KiB.
	return LoaderUsage{MaxRSSBytes: int64(ru.Maxrss) * 1024, UserCPU: tv(ru.Utime), SystemCPU: tv(ru.Stime),
		Cores: runtime.GOMAXPROCS(0)}, nil
}
