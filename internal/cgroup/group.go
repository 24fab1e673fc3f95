package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Group is one set of limits for one process tree: a cgroup (v1: a
// directory per controller; v2: one directory) or a CPU affinity mask.
type Group struct {
	host   *Host
	name   string
	limits Limits
	method Method
	cores  []int  // pinned cores (cpuset or affinity), sorted
	swap   string // how swap is kept out of the memory limit
	// fallback is why cgroups were not used (MethodAffinity, or
	// MethodNone for a group asked only to count I/O).
	fallback string
	// countIO: the group's cgroup counts its block I/O (Limits.CountIO
	// and a controller to do it); ioFallback is why not, when asked.
	countIO    bool
	ioFallback string

	v1      map[string]string // controller -> directory
	v1paths map[string]string // controller -> path in /proc/PID/cgroup
	v2dir   string
	v2path  string
	dirs    []string // created directories, to remove

	mu       sync.Mutex
	v2fd     int // open v2 directory for CLONE_INTO_CGROUP, -1 until needed
	released bool
}

// Name is the group's directory name, "dbarena-<name>-<random>".
func (g *Group) Name() string { return g.name }

// Method is how the limits are enforced.
func (g *Group) Method() Method { return g.method }

// Limits are the limits the group was created with.
func (g *Group) Limits() Limits { return g.limits }

// CountsIO reports whether the group's cgroup counts the block I/O of its
// processes (Limits.CountIO was asked and a controller could do it);
// FindBlockIO reads the counters from any of its processes.
func (g *Group) CountsIO() bool { return g.countIO }

// NoIOReason is why a group asked to count I/O does not ("" when it does
// or was not asked).
func (g *Group) NoIOReason() string {
	switch {
	case g.countIO || !g.limits.CountIO:
		return ""
	case g.ioFallback != "":
		return g.ioFallback
	}
	return g.fallback
}

// Cores are the cores the group is confined to (Pin or CPU affinity), nil
// when it may run on any.
func (g *Group) Cores() []int { return slices.Clone(g.cores) }

// Describe says what holds, for a report: "1.5 CPUs (cfs quota
// 150000/100000 us), 2 GiB memory (no swap), cgroup v1".
func (g *Group) Describe() string {
	l := g.limits
	var parts []string
	switch g.method {
	case MethodNone:
		return "no limits"
	case MethodAffinity:
		n := len(g.cores)
		s := fmt.Sprintf("%d cores (%s)", n, formatCores(g.cores))
		if n == 1 {
			s = fmt.Sprintf("1 core (%s)", formatCores(g.cores))
		}
		if float64(n) != l.CPUs {
			s += fmt.Sprintf(" for %s asked: affinity cannot split a core", formatCPUs(l.CPUs))
		}
		return fmt.Sprintf("%s, %s (no cgroup: %s)", s, g.method, g.fallback)
	}
	if l.CPUs > 0 {
		var how string
		if g.method == MethodCgroupV1 {
			how = fmt.Sprintf("cfs quota %d/%d us", l.quota(), cfsPeriod)
		} else {
			how = fmt.Sprintf("cpu.max %d %d", l.quota(), cfsPeriod)
		}
		if l.Pin {
			how += ", cores " + formatCores(g.cores)
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", formatCPUs(l.CPUs), how))
	}
	if l.MemoryBytes > 0 {
		parts = append(parts, fmt.Sprintf("%s memory (%s)", formatBytes(l.MemoryBytes), g.swap))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("no limits (block I/O counted, %s)", g.method)
	}
	return strings.Join(append(parts, string(g.method)), ", ")
}

// Contains reports whether process pid is inside the group: in every
// controller's cgroup, or for CPU affinity, allowed only the group's cores.
// A server's own children can be checked with it after start.
func (g *Group) Contains(pid int) (bool, error) {
	switch g.method {
	case MethodNone:
		return true, nil
	case MethodAffinity:
		b, err := os.ReadFile(filepath.Join(g.host.cfg.proc, strconv.Itoa(pid), "status"))
		if err != nil {
			return false, fmt.Errorf("limits: read affinity of %d: %w", pid, err)
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			if list, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
				cores, err := parseCores(list)
				if err != nil {
					return false, fmt.Errorf("limits: affinity of %d: %w", pid, err)
				}
				return len(cores) > 0 && !slices.ContainsFunc(cores, func(c int) bool { return !slices.Contains(g.cores, c) }), nil
			}
		}
		return false, fmt.Errorf("limits: no Cpus_allowed_list for %d", pid)
	}
	m, err := readMembership(filepath.Join(g.host.cfg.proc, strconv.Itoa(pid), "cgroup"))
	if err != nil {
		return false, fmt.Errorf("limits: process %d: %w", pid, err)
	}
	if g.method == MethodCgroupV2 {
		return m.hasV2 && m.v2 == g.v2path, nil
	}
	for c, p := range g.v1paths {
		if m.v1[c] != p {
			return false, nil
		}
	}
	return true, nil
}

// removeWait bounds how long Close waits for a group to empty: the kernel
// drops an exited process from cgroup.procs only once it is reaped, a few
// milliseconds after the wait that reaped it returns.
const removeWait = 2 * time.Second

// Close removes the group's directories and returns its cores to the Host.
// It kills nothing: stop the processes first. A group still holding
// processes after a short wait is left in place and the error names them;
// Close may be called again, and after success it does nothing. On cgroup
// v1, cmd.Start returns before the wrapper has joined: closing in between
// makes the wrapper exit 125 without running the program.
func (g *Group) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.v2fd >= 0 {
		_ = syscall.Close(g.v2fd) // a read-only directory descriptor: nothing to flush
		g.v2fd = -1
	}
	if !g.released {
		g.host.release(g.cores)
		g.released = true
	}
	return g.removeDirs()
}

// removeDirs removes the created directories, newest first, retrying while
// the kernel still counts exiting processes in them.
func (g *Group) removeDirs() error {
	var errs []error
	deadline := time.Now().Add(removeWait)
	for i := len(g.dirs) - 1; i >= 0; i-- {
		d := g.dirs[i]
		for {
			err := g.host.cfg.rmdir(d)
			if err == nil || errors.Is(err, fs.ErrNotExist) {
				g.dirs = slices.Delete(g.dirs, i, i+1)
				break
			}
			if errors.Is(err, syscall.EBUSY) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			procs, _ := os.ReadFile(filepath.Join(d, "cgroup.procs"))
			if pids := strings.Fields(string(procs)); len(pids) > 0 {
				err = fmt.Errorf("%w (processes still inside: %s)", err, strings.Join(pids, " "))
			}
			errs = append(errs, fmt.Errorf("limits: remove %s: %w", d, err))
			break
		}
	}
	return errors.Join(errs...)
}
