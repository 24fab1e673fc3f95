package cgroup

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Limits caps a process tree. Zero fields mean no limit.
type Limits struct {
	// CPUs is the CPU time the tree may use, in cores (1.5: one and a half
	// cores' worth of time per wall-clock second, spread over any cores).
	CPUs float64
	// MemoryBytes caps resident memory plus swap; over it the kernel
	// reclaims and then OOM-kills inside the group.
	MemoryBytes int64
	// Pin also confines the tree to ceil(CPUs) whole cores (cpuset), so that
	// "2 CPUs" means two cores and not 2 cores' worth of time smeared over
	// every core the machine has. CPU affinity always pins.
	Pin bool
	// Cores, with Pin, are the cores to pin to (at least ceil(CPUs) of
	// them, all this host's); nil: the host chooses the least loaded.
	// Targets deployed side by side share the cores given to databases,
	// so the load generator keeps the same cores whichever one it
	// measures.
	Cores []int
	// CountIO puts the tree in a cgroup whose block-layer counters are
	// its own (blkio on cgroup v1, io and memory on v2; see BlockIO),
	// with or without limits: bytes that reached the disks, where
	// /proc/PID/io only has bytes dirtied in the page cache. It is best
	// effort: a machine where no controller counts block I/O gets the
	// group without it (Group.CountsIO).
	CountIO bool
}

// Method is how a Group enforces its limits.
type Method string

// The methods, from strongest to weakest.
const (
	MethodCgroupV1 Method = "cgroup v1"
	MethodCgroupV2 Method = "cgroup v2"
	// MethodAffinity confines the CPUs through sched_setaffinity; memory is
	// not limited.
	MethodAffinity Method = "cpu affinity"
	// MethodNone is a group without limits: Command leaves the command
	// alone.
	MethodNone Method = "none"
)

// ErrNoMemoryLimit is returned by New when a memory limit is asked for and
// no memory controller can be used: a silent fallback would let a study
// report a memory limit that never held.
var ErrNoMemoryLimit = errors.New("no usable memory controller")

// cfsPeriod is the CFS bandwidth period in microseconds: the kernel's
// default, so quota/period reads as cores (150000/100000 = 1.5 CPUs).
const cfsPeriod = 100000

// minCPUs is the smallest limit the kernel accepts: a quota of 1 ms per
// 100 ms period.
const minCPUs = 0.01

// Validate reports limits no method can honour, and cores beyond the
// available ones when available > 0.
func (l Limits) Validate(available int) error {
	switch {
	case math.IsNaN(l.CPUs) || math.IsInf(l.CPUs, 0):
		return fmt.Errorf("limits: CPUs %v is not a number of cores", l.CPUs)
	case l.CPUs < 0:
		return fmt.Errorf("limits: CPUs %v is negative", l.CPUs)
	case l.CPUs > 0 && l.CPUs < minCPUs:
		return fmt.Errorf("limits: CPUs %v is below the kernel's minimum quota of %v", l.CPUs, minCPUs)
	case l.MemoryBytes < 0:
		return fmt.Errorf("limits: memory %d bytes is negative", l.MemoryBytes)
	case l.Pin && l.CPUs == 0:
		return errors.New("limits: Pin needs a CPU limit to know how many cores")
	}
	// A limit above the machine would hold trivially, and a scaling curve
	// with a "4 core" point measured on 2 cores would be a lie.
	if available > 0 && l.CPUs > float64(available) {
		return fmt.Errorf("limits: %v CPUs asked for but only %d cores are available", l.CPUs, available)
	}
	return nil
}

// limited reports whether l caps anything (Pin needs CPUs).
func (l Limits) limited() bool { return l.CPUs > 0 || l.MemoryBytes > 0 }

// cores is the number of whole cores that hold l.CPUs.
func (l Limits) cores() int { return int(math.Ceil(l.CPUs)) }

// quota is the CFS quota in microseconds per cfsPeriod.
func (l Limits) quota() int64 { return int64(math.Round(l.CPUs * cfsPeriod)) }

// validName accepts names that are safe as one path element and in a shell
// script: letters, digits, '-', '_' and '.', not starting with '.'.
func validName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("limits: group name %q must have 1 to 64 characters", name)
	}
	if name[0] == '.' {
		return fmt.Errorf("limits: group name %q must not start with '.'", name)
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.'
		if !ok {
			return fmt.Errorf("limits: group name %q has %q; use letters, digits, '-', '_' and '.'", name, r)
		}
	}
	return nil
}

// formatBytes prints n in the largest binary unit that divides it exactly.
func formatBytes(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// formatCPUs prints a CPU count without trailing zeros.
func formatCPUs(c float64) string {
	s := strconv.FormatFloat(c, 'f', -1, 64)
	if c == 1 {
		return s + " CPU"
	}
	return s + " CPUs"
}

// formatCores prints cores as a cpuset list ("0-2,5").
func formatCores(cores []int) string {
	var b strings.Builder
	for i := 0; i < len(cores); {
		j := i
		for j+1 < len(cores) && cores[j+1] == cores[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j == i {
			fmt.Fprintf(&b, "%d", cores[i])
		} else {
			fmt.Fprintf(&b, "%d-%d", cores[i], cores[j])
		}
		i = j + 1
	}
	return b.String()
}

// parseCores reads a cpuset list ("0-2,5") as written by the kernel.
func parseCores(s string) ([]int, error) {
	var cores []int
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("cpu list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("cpu list %q: %w", s, err)
			}
		}
		if b < a {
			return nil, fmt.Errorf("cpu list %q: range %s runs backwards", s, part)
		}
		for c := a; c <= b; c++ {
			cores = append(cores, c)
		}
	}
	return cores, nil
}
