package sysmetrics

import (
	"fmt"
	"io/fs"
	"math"
	"os"
	"time"
)

// processTree samples a process and its descendants from /proc, and the
// block I/O of their cgroup when it is theirs alone.
type processTree struct {
	fs         procFS
	sysRoot    string
	name, role string
	pid        int
	// alone leaves the descendants out.
	alone bool
	acct  treeAccount
	r     rater
	// findBlock finds the block-layer counters of pid's cgroup (nil: the
	// tree has none to look for, as the loader).
	findBlock func(pid int) (blockCounter, bool, error)
	// blk is the tree's own cgroup, chosen at the first sample and kept:
	// a rate never spans two sources. nil: disk writes are unknown.
	blk     *cgroupIO
	started bool
}

// NewProcessTree samples pid and every descendant, found afresh at each
// sample through the parent of every process, so servers that fork a
// process per connection or worker are followed:
//   - CPU from utime+stime, and from cutime+cstime for the children the
//     tree waited for, so a child that exits between two samples still
//     counts for its last moments (see treeAccount);
//   - memory as the resident sets summed (shared memory, such as
//     PostgreSQL's shared buffers, counts once per process that touched
//     it: an upper bound. The exact figure, PSS from smaps_rollup, walks
//     the page tables under the server's mmap lock every second, which
//     would perturb the server being measured);
//   - disk bytes read and written from the block-layer counters of the
//     cgroup pid sits in, when that cgroup holds the tree and nothing
//     else (the local provider gives each server one; see
//     limits.BlockIO for what cgroup v1 leaves out), summed over the
//     disks NewMachine counts. Without such a cgroup, bytes read come
//     from /proc/PID/io's read_bytes, counted as the processes submit
//     reads to the block layer (so real storage reads), and bytes
//     written are unknown (NaN): write_bytes counts pages as they are
//     dirtied, in whole folios, and goes to PageCacheWriteBps instead;
//   - page-cache writes (PageCacheWriteBps) from write_bytes, with or
//     without a cgroup. Other users' processes need root, else NaN
//     (reads too, without a cgroup).
//
// Processes have no operation or network counters of their own: IOPS and
// network rates are NaN. Sample fails once pid itself is gone.
func NewProcessTree(name, role string, pid int) Source {
	return &processTree{fs: procFS{root: "/proc"}, sysRoot: "/sys", name: name, role: role, pid: pid, findBlock: findCgroup}
}

// NewSelf samples this process alone, named "loader" with RoleLoader: the
// load generator. Its children are left out, CPU and disk alike: the local
// provider's database servers are its children, and neither their work
// nor, when they exit, their whole lifetime's counters (which the kernel
// adds to the parent that waits for them) are the loader's. Its cgroup
// is not its own (the servers may share it), so its disk writes are
// unknown and its dirtied pages are PageCacheWriteBps.
func NewSelf() Source {
	return &processTree{fs: procFS{root: "/proc"}, name: "loader", role: RoleLoader, pid: os.Getpid(), alone: true}
}

// Name implements Source.
func (t *processTree) Name() string { return t.name }

// Role implements Source.
func (t *processTree) Role() string { return t.role }

// Sample implements Source.
func (t *processTree) Sample(now time.Time) (Sample, bool, error) {
	first := !t.started
	if first {
		t.started = true
		t.blk = t.cgroup()
	}
	var members []int
	var membersErr error
	if t.blk != nil {
		// Listed before the processes, so that a member missing from
		// the tree is not one born in between.
		members, membersErr = t.blk.c.Procs()
	}
	procs, err := t.read()
	if err != nil {
		return Sample{}, false, fmt.Errorf("process tree %s (pid %d): %w", t.name, t.pid, err)
	}
	c := t.acct.add(procs)
	if !t.alone {
		if lead, err := t.fs.schedstat(t.pid); err == nil {
			c.lead, c.leadKnown = lead, true
		}
	}
	if t.blk != nil {
		read, write, err := t.blk.bytes(members, membersErr, procs, t.fs)
		switch {
		case err == nil:
			c.diskRead, c.diskWrite = read, write
		case first:
			t.blk = nil // not the tree's own: /proc's reads, writes unknown
		default:
			// Someone else's I/O would count as the tree's.
			c.diskRead, c.diskWrite = math.NaN(), math.NaN()
		}
	}
	s, ok := t.r.next(c, now)
	s.Host, s.Role = t.name, t.role
	return s, ok, nil
}

// cgroup returns the tree's cgroup counters, or nil when it has none
// that counts block I/O.
func (t *processTree) cgroup() *cgroupIO {
	if t.findBlock == nil {
		return nil
	}
	c, ok, err := t.findBlock(t.pid)
	if err != nil || !ok {
		// Unreadable membership (the process is gone: the walk says so)
		// is no cgroup.
		return nil
	}
	return &cgroupIO{c: c, sysRoot: t.sysRoot, disks: map[[2]uint32]bool{}}
}

// read reads the counters of every process in the tree.
func (t *processTree) read() (map[int]procReading, error) {
	if t.alone {
		st, err := t.fs.stat(t.pid)
		if err != nil {
			return nil, err
		}
		st.children = 0 // not the loader's
		r := procReading{stat: st, read: math.NaN(), dirtied: math.NaN()}
		if r.rss, err = t.fs.rss(t.pid); err != nil {
			return nil, err
		}
		if rb, wb, err := t.fs.threadsIO(t.pid); err == nil {
			r.read, r.dirtied = rb, wb
		}
		return map[int]procReading{t.pid: r}, nil
	}
	stats, err := t.fs.stats()
	if err != nil {
		return nil, err
	}
	if _, ok := stats[t.pid]; !ok {
		return nil, fmt.Errorf("exited: %w", fs.ErrNotExist)
	}
	out := map[int]procReading{}
	for _, pid := range descendants(stats, t.pid) {
		r := procReading{stat: stats[pid], read: math.NaN(), dirtied: math.NaN()}
		if r.rss, err = t.fs.rss(pid); err != nil {
			if gone(err) {
				continue // exited since the listing; accounted as gone
			}
			return nil, err
		}
		rb, wb, err := t.fs.io(pid)
		switch {
		case err == nil:
			r.read, r.dirtied = rb, wb
		case gone(err):
			continue
		}
		// Any other error (EACCES: another user's process, not root)
		// leaves this process's disk figures unknown.
		out[pid] = r
	}
	return out, nil
}

// procReading is one process's counters at one sample.
type procReading struct {
	stat procStat
	rss  float64
	// read and dirtied are /proc/PID/io's read_bytes and write_bytes;
	// NaN if unreadable.
	read, dirtied float64
}

// treeAccount turns the counters of a changing set of processes into the
// tree's cumulative totals, which only grow. Summing the processes' own
// counters would not do: they start at zero in every new process, vanish
// with every exited one, and when a parent waits for a child the kernel
// adds the child's lifetime CPU (to cutime+cstime) and storage bytes (to
// the parent's io file) into the parent's counters, counting again what
// earlier samples already saw of the child. So each process contributes
// its growth since the previous sample (all of it if it is new), and a
// process that has gone has the counters it had at the previous sample
// taken off the growth of its nearest surviving ancestor, the one that
// waited for it. A process that leaves the tree without being waited for
// by it (re-parented to init) is taken off an ancestor that did not
// receive it: that ancestor's children and disk growth reads low, but
// never below zero, for that one interval.
type treeAccount struct {
	prev          map[int]procReading
	cpu           float64
	read, dirtied float64
	ioKnown       bool
}

// growth is one process's increase since the previous sample.
type growth struct{ own, children, read, dirtied float64 }

// add takes a sample's readings and returns the tree's counters.
func (a *treeAccount) add(cur map[int]procReading) counters {
	g := make(map[int]*growth, len(cur))
	for pid, c := range cur {
		if !math.IsNaN(c.read) {
			a.ioKnown = true
		}
		p, ok := a.prev[pid]
		if !ok || p.stat.start != c.stat.start {
			// New since the previous sample (or the pid was reused): all
			// its counters grew within the interval.
			p = procReading{}
		}
		g[pid] = &growth{own: c.stat.own - p.stat.own, children: c.stat.children - p.stat.children,
			read: known(c.read) - known(p.read), dirtied: known(c.dirtied) - known(p.dirtied)}
	}
	for pid, p := range a.prev {
		if c, ok := cur[pid]; ok && c.stat.start == p.stat.start {
			continue
		}
		if anc, ok := a.survivor(p.stat.ppid, cur); ok {
			g[anc].children -= p.stat.own + p.stat.children
			g[anc].read -= known(p.read)
			g[anc].dirtied -= known(p.dirtied)
		}
	}
	for _, d := range g {
		a.cpu += math.Max(d.own, 0) + math.Max(d.children, 0)
		a.read += math.Max(d.read, 0)
		a.dirtied += math.Max(d.dirtied, 0)
	}
	a.prev = cur
	mem := 0.0
	for _, c := range cur {
		mem += c.rss
	}
	// Disk writes are the cgroup's, if any (Sample): write_bytes counts
	// dirtied pages, not the disk.
	c := counters{cpuSeconds: a.cpu, memory: mem, diskRead: a.read, diskWrite: math.NaN(), pageCacheWrite: a.dirtied,
		diskReadOps: math.NaN(), diskWriteOps: math.NaN(), netRx: math.NaN(), netTx: math.NaN()}
	if !a.ioKnown {
		c.diskRead, c.pageCacheWrite = math.NaN(), math.NaN()
	}
	return c
}

// survivor walks up from pid through the parents of the previous sample
// to the first process alive in both samples.
func (a *treeAccount) survivor(pid int, cur map[int]procReading) (int, bool) {
	for range len(a.prev) {
		p, ok := a.prev[pid]
		if !ok {
			return 0, false
		}
		if c, ok := cur[pid]; ok && c.stat.start == p.stat.start {
			return pid, true
		}
		pid = p.stat.ppid
	}
	return 0, false
}

// known is v, or 0 when v is unknown.
func known(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}
