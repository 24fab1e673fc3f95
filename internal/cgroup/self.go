package cgroup

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"
)

// ConfineSelf confines this process, every thread of it, to cores, and
// the Go scheduler to as many, so that a load generator in this process
// stays off the cores a pinned database was given. The children it
// starts afterwards (loader processes, reference tools, servers not
// pinned themselves) inherit the mask. restore puts back the mask the
// process had and Go's own choice of GOMAXPROCS.
func ConfineSelf(cores []int) (restore func() error, err error) {
	if len(cores) == 0 {
		return nil, errors.New("limits: confine to no core")
	}
	var old, want unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, fmt.Errorf("limits: read this process's affinity: %w", err)
	}
	for _, c := range cores {
		want.Set(c)
	}
	if err := setAllThreads(&want); err != nil {
		_ = setAllThreads(&old) // best effort: the error below says what failed
		return nil, err
	}
	runtime.GOMAXPROCS(len(cores))
	return func() error {
		err := setAllThreads(&old)
		runtime.SetDefaultGOMAXPROCS()
		return err
	}, nil
}

// setAllThreads sets the affinity of every thread of this process. A
// thread is made with its creator's mask, so one created while the list
// is walked may carry the old mask: the walk runs until it finds no
// thread it has not set.
func setAllThreads(set *unix.CPUSet) error {
	done := map[int]bool{}
	for range 10 {
		entries, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return fmt.Errorf("limits: list this process's threads: %w", err)
		}
		fresh := 0
		for _, e := range entries {
			tid, err := strconv.Atoi(e.Name())
			if err != nil || done[tid] {
				continue
			}
			fresh++
			if err := unix.SchedSetaffinity(tid, set); err != nil && !errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("limits: set the affinity of thread %d: %w", tid, err)
			}
			done[tid] = true
		}
		if fresh == 0 {
			return nil
		}
	}
	return nil
}

// Others returns the cores of mine that are not in taken, in order.
func Others(mine, taken []int) []int {
	var out []int
	for _, c := range mine {
		if !slices.Contains(taken, c) {
			out = append(out, c)
		}
	}
	return out
}
