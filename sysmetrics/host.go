package sysmetrics

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// CPUCount returns the cores this process may run on (its affinity mask,
// which taskset or a cgroup cpuset narrows), which is what "the loader's
// CPU is saturated" must be measured against: a loader pinned to 2 of 16
// cores is saturated at 200%.
func CPUCount() int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err == nil && set.Count() > 0 {
		return set.Count()
	}
	return 1
}

// Affinity returns the cores this process may run on, in order (nil when
// the kernel does not say).
func Affinity() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var out []int
	// CPU_SETSIZE: the cores a CPUSet can name.
	for c := 0; c < 1024 && len(out) < set.Count(); c++ {
		if set.IsSet(c) {
			out = append(out, c)
		}
	}
	return out
}

// MachineCPUCount returns the machine's online cores, whatever this
// process's affinity: the cores a machine-wide CPU figure is out of.
func MachineCPUCount() int {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return CPUCount()
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if len(line) > 3 && strings.HasPrefix(line, "cpu") && line[3] >= '0' && line[3] <= '9' {
			n++
		}
	}
	return max(n, 1)
}

// DirSize returns the bytes a directory tree occupies on disk: allocated
// blocks (st_blocks * 512), not apparent sizes, so sparse and preallocated
// files count as the storage they use, and a file with several hard links
// (Cassandra's snapshots are hard links to live SSTables) counts once.
// Files that vanish during the walk, as a running database's do, are
// skipped.
func DirSize(path string) (int64, error) {
	type inode struct{ dev, ino uint64 }
	seen := map[inode]bool{}
	var total int64
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p != path && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		info, err := d.Info()
		if err != nil {
			return nil // removed since it was listed
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		if st.Nlink > 1 && !d.IsDir() {
			id := inode{dev: uint64(st.Dev), ino: st.Ino}
			if seen[id] {
				return nil
			}
			seen[id] = true
		}
		total += st.Blocks * 512
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("size of %s: %w", path, err)
	}
	return total, nil
}
