package sysmetrics

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat.
// The kernel fixes it at 100 on every Linux architecture for user space
// (sysconf(_SC_CLK_TCK)), independent of the kernel's own HZ.
const clockTicks = 100

// procRoot is /proc; tests point it at fixtures.
type procFS struct{ root string }

// statFields parses /proc/PID/stat. The command name is in parentheses
// and may itself contain spaces and parentheses, so fields are counted
// from the last ')'. It returns the parent pid and utime+stime in ticks.
func parseStat(b []byte) (ppid int, ticks float64, err error) {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return 0, 0, fmt.Errorf("no command name in %q", b)
	}
	f := strings.Fields(string(b[end+1:]))
	// After the name: state(0) ppid(1) ... utime(11) stime(12).
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("short stat line %q", b)
	}
	ppid, err = strconv.Atoi(f[1])
	if err != nil {
		return 0, 0, fmt.Errorf("ppid %q: %w", f[1], err)
	}
	ut, err1 := strconv.ParseFloat(f[11], 64)
	st, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("utime/stime in %q", b)
	}
	return ppid, ut + st, nil
}

// tree returns pid and its descendants, found through every process's
// parent: children appear and vanish between samples.
func (p procFS) tree(pid int) ([]int, error) {
	entries, err := os.ReadDir(p.root)
	if err != nil {
		return nil, err
	}
	children := map[int][]int{}
	for _, e := range entries {
		id, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(p.root, e.Name(), "stat"))
		if err != nil {
			continue // exited since the listing
		}
		ppid, _, err := parseStat(b)
		if err != nil {
			continue
		}
		children[ppid] = append(children[ppid], id)
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out, nil
}

// readProc reads one process's cumulative counters.
func (p procFS) readProc(pid int) (counters, error) {
	dir := filepath.Join(p.root, strconv.Itoa(pid))
	c := counters{netRx: math.NaN(), netTx: math.NaN(), diskReadOps: math.NaN(), diskWriteOps: math.NaN()}
	b, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return c, err
	}
	_, ticks, err := parseStat(b)
	if err != nil {
		return c, fmt.Errorf("%s/stat: %w", dir, err)
	}
	c.cpuSeconds = ticks / clockTicks
	if b, err := os.ReadFile(filepath.Join(dir, "statm")); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 2 {
			pages, _ := strconv.ParseFloat(f[1], 64)
			c.memory = pages * float64(os.Getpagesize())
		}
	}
	c.diskRead, c.diskWrite = math.NaN(), math.NaN()
	if f, err := os.Open(filepath.Join(dir, "io")); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, _ := strings.Cut(sc.Text(), ":")
			n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				continue
			}
			switch k {
			case "read_bytes":
				c.diskRead = n
			case "write_bytes":
				c.diskWrite = n
			}
		}
	}
	return c, nil
}

// processTree samples a process and its descendants.
type processTree struct {
	fs         procFS
	name, role string
	pid        int
	// alone leaves descendants out.
	alone bool
	r     rater
}

// NewProcessTree samples pid and every descendant: CPU from utime+stime,
// memory as summed resident set, disk bytes from /proc/PID/io (storage
// traffic, counted when pages are dirtied; needs root for other users'
// processes, else NaN). Processes have no IOPS or network counters of
// their own: those are NaN.
func NewProcessTree(name, role string, pid int) Source {
	return &processTree{fs: procFS{root: "/proc"}, name: name, role: role, pid: pid}
}

// NewSelf samples this process alone: the load generator. Its children
// are left out: the local provider's database servers are its children,
// and their CPU is not the loader's.
func NewSelf() Source {
	return &processTree{fs: procFS{root: "/proc"}, name: "loader", role: RoleLoader, pid: os.Getpid(), alone: true}
}

func (t *processTree) Name() string { return t.name }
func (t *processTree) Role() string { return t.role }

// Sample implements Source.
func (t *processTree) Sample(now time.Time) (Sample, bool, error) {
	pids, err := []int{t.pid}, error(nil)
	if !t.alone {
		pids, err = t.fs.tree(t.pid)
	}
	if err != nil {
		return Sample{}, false, fmt.Errorf("%s: %w", t.name, err)
	}
	var sum counters
	sum.diskReadOps, sum.diskWriteOps, sum.netRx, sum.netTx = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	found := false
	ioKnown := false
	for _, pid := range pids {
		c, err := t.fs.readProc(pid)
		if err != nil {
			if pid == t.pid {
				return Sample{}, false, fmt.Errorf("%s: process %d: %w", t.name, pid, err)
			}
			continue // a child exited between the listing and the read
		}
		found = true
		sum.cpuSeconds += c.cpuSeconds
		sum.memory += c.memory
		if !math.IsNaN(c.diskRead) {
			sum.diskRead += c.diskRead
			sum.diskWrite += c.diskWrite
			ioKnown = true
		}
	}
	if !found {
		return Sample{}, false, fmt.Errorf("%s: process %d is gone", t.name, t.pid)
	}
	if !ioKnown {
		sum.diskRead, sum.diskWrite = math.NaN(), math.NaN()
	}
	s, ok := t.r.next(sum, now)
	s.Host, s.Role = t.name, t.role
	return s, ok, nil
}
