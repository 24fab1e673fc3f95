package cli

import (
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
	return LoaderUsage{MaxRSSBytes: int64(ru.Maxrss) * 1024, UserCPU: tv(ru.Utime), SystemCPU: tv(ru.Stime)}, nil
}
