package experiment

// This machine, as the manifest records the one that ran the load
// generator.

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/sysmetrics"
)

// loaderHost describes this machine.
func loaderHost() results.Host {
	h := results.Host{OS: "linux", CPUs: sysmetrics.CPUCount()}
	h.Hostname, _ = os.Hostname()
	h.Arch = runtimeArch()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	h.MemoryBytes = memTotal()
	return h
}

func runtimeArch() string { return runtime.GOARCH }

// memTotal reads the machine's memory from /proc/meminfo (0: unknown).
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}
