package experiment

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

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
