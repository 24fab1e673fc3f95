package sysmetrics

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// clockTicks is USER_HZ, the unit of the CPU times in /proc/PID/stat and
// /proc/stat: what sysconf(_SC_CLK_TCK) returns. golang.org/x/sys/unix has
// no sysconf, and none is needed: the kernel converts its internal HZ to
// USER_HZ for user space, and USER_HZ is 100 on every Linux architecture
// (it is part of the ABI; procps and node_exporter's procfs assume the
// same).
const clockTicks = 100

// procStat is what /proc/PID/stat says about one process.
type procStat struct {
	ppid int
	// start is when the process started, in ticks since boot. With the
	// pid it identifies a process: pids are reused.
	start uint64
	// own is the CPU the process used (utime+stime, all its threads,
	// live and exited), children the CPU of the children it waited for
	// (cutime+cstime), both in seconds.
	own, children float64
}

// parseStat parses a /proc/PID/stat line. The command name is in
// parentheses and may itself hold spaces and parentheses, so the fields
// are counted from the last ')'.
func parseStat(b []byte) (procStat, error) {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return procStat{}, fmt.Errorf("no command name in %q", b)
	}
	// After the name, numbered from 0: state(0) ppid(1) ... utime(11)
	// stime(12) cutime(13) cstime(14) ... starttime(19); proc(5) numbers
	// them from 1 with the pid and name first, so utime is its 14.
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 20 {
		return procStat{}, fmt.Errorf("short stat line %q", b)
	}
	var st procStat
	var err error
	if st.ppid, err = strconv.Atoi(f[1]); err != nil {
		return procStat{}, fmt.Errorf("ppid: %w", err)
	}
	if st.start, err = strconv.ParseUint(f[19], 10, 64); err != nil {
		return procStat{}, fmt.Errorf("starttime: %w", err)
	}
	var ticks [4]float64
	for i := range ticks {
		// cutime and cstime are signed in the kernel's format.
		n, err := strconv.ParseInt(f[11+i], 10, 64)
		if err != nil {
			return procStat{}, fmt.Errorf("cpu times: %w", err)
		}
		ticks[i] = float64(n)
	}
	st.own = (ticks[0] + ticks[1]) / clockTicks
	st.children = (ticks[2] + ticks[3]) / clockTicks
	return st, nil
}

// parseIO reads read_bytes and write_bytes from a /proc/PID/io file.
// read_bytes counts reads as they are submitted to the block layer: real
// storage reads, unlike rchar, which counts page-cache hits and pipes
// too. write_bytes counts pages as they are dirtied, whole pages and
// large folios, and direct I/O: not what reaches the disk (see
// Sample.PageCacheWriteBps).
func parseIO(b []byte) (read, write float64, err error) {
	read, write = math.NaN(), math.NaN()
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		if k != "read_bytes" && k != "write_bytes" {
			continue
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", k, err)
		}
		if k == "read_bytes" {
			read = n
		} else {
			write = n
		}
	}
	if math.IsNaN(read) || math.IsNaN(write) {
		return 0, 0, fmt.Errorf("no read_bytes and write_bytes in %q", b)
	}
	return read, write, nil
}

// parseStatm returns the resident pages of a /proc/PID/statm line.
func parseStatm(b []byte) (float64, error) {
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, fmt.Errorf("short statm line %q", b)
	}
	return strconv.ParseFloat(f[1], 64)
}

// procFS reads a proc file system; tests point root at fixtures.
type procFS struct{ root string }

// stat reads one process's stat file.
func (p procFS) stat(pid int) (procStat, error) {
	path := filepath.Join(p.root, strconv.Itoa(pid), "stat")
	b, err := os.ReadFile(path)
	if err != nil {
		return procStat{}, err
	}
	st, err := parseStat(b)
	if err != nil {
		return procStat{}, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}

// stats reads every process's stat file. A process that exits during the
// walk is left out.
func (p procFS) stats() (map[int]procStat, error) {
	entries, err := os.ReadDir(p.root)
	if err != nil {
		return nil, err
	}
	out := make(map[int]procStat, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue // not a process: meminfo, self, ...
		}
		st, err := p.stat(pid)
		if gone(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[pid] = st
	}
	return out, nil
}

// schedstat returns the seconds a process's main thread has spent on a
// CPU and waiting on a run queue for one, from /proc/PID/schedstat ("run
// wait slices", nanoseconds; Linux 2.6.9+ with scheduler statistics).
func (p procFS) schedstat(pid int) (float64, error) {
	path := filepath.Join(p.root, strconv.Itoa(pid), "schedstat")
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, fmt.Errorf("%s: short line %q", path, b)
	}
	run, err1 := strconv.ParseFloat(f[0], 64)
	wait, err2 := strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("%s: bad counters %q", path, b)
	}
	return (run + wait) / 1e9, nil
}

// rss returns a process's resident set in bytes.
func (p procFS) rss(pid int) (float64, error) {
	path := filepath.Join(p.root, strconv.Itoa(pid), "statm")
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	pages, err := parseStatm(b)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return pages * float64(os.Getpagesize()), nil
}

// io returns a process's read_bytes and write_bytes, its exited threads
// and the children it waited for included.
func (p procFS) io(pid int) (read, write float64, err error) {
	return readIO(filepath.Join(p.root, strconv.Itoa(pid), "io"))
}

// threadsIO returns the read_bytes and write_bytes of a process's live
// threads alone: unlike its io file, without the children it waited for.
func (p procFS) threadsIO(pid int) (read, write float64, err error) {
	dir := filepath.Join(p.root, strconv.Itoa(pid), "task")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0, err
	}
	for _, e := range entries {
		r, w, err := readIO(filepath.Join(dir, e.Name(), "io"))
		if gone(err) {
			continue // the thread ended
		}
		if err != nil {
			return 0, 0, err
		}
		read, write = read+r, write+w
	}
	return read, write, nil
}

func readIO(path string) (read, write float64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	if read, write, err = parseIO(b); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	return read, write, nil
}

// gone reports whether err says a process (or thread) no longer exists:
// its directory is gone, or it is being reaped while we read.
func gone(err error) bool { return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) }

// descendants returns root and every process below it, through the
// parents in stats. The stat files are not read at one instant, so a pid
// reused during the walk could make a parent its own descendant: each
// process is taken once.
func descendants(stats map[int]procStat, root int) []int {
	children := map[int][]int{}
	for pid, st := range stats {
		children[st.ppid] = append(children[st.ppid], pid)
	}
	out := []int{root}
	seen := map[int]bool{root: true}
	for i := 0; i < len(out); i++ {
		for _, c := range children[out[i]] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}
