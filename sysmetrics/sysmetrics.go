// Package sysmetrics samples the resources of the machines and processes
// a benchmark involves, once per interval: each database server's process
// tree (locally, from /proc), whole machines (/proc, or node_exporter's
// Prometheus text format for remote hosts) and the load generator itself.
// Rates are computed between two samples, so the first sample of a source
// only primes its counters.
package sysmetrics

import (
	"errors"
	"io/fs"
	"math"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Roles of a source.
const (
	RoleDatabase = "database"
	RoleLoader   = "loader"
	RoleMachine  = "machine"
)

// Sample is one source's resource use over the interval ending at Time.
// NaN marks a figure the source cannot measure.
type Sample struct {
	Time time.Time
	Host string
	Role string
	// CPUPercent is 100 for one core busy the whole interval.
	CPUPercent float64
	// MemoryBytes is resident memory summed over a process tree, or the
	// memory in use (total - available) of a machine.
	MemoryBytes float64
	// Disk and network rates, bytes and operations per second.
	DiskReadBps, DiskWriteBps   float64
	DiskReadIOPS, DiskWriteIOPS float64
	NetRxBps, NetTxBps          float64
}

// Source is one thing to sample.
type Source interface {
	Name() string
	Role() string
	// Sample returns the use since the previous call. The first call
	// primes the counters and returns ok=false.
	Sample(now time.Time) (s Sample, ok bool, err error)
}

// counters are cumulative figures a source reads; rates are their
// differences over time. NaN fields are not measured.
type counters struct {
	cpuSeconds                float64
	memory                    float64
	diskRead, diskWrite       float64
	diskReadOps, diskWriteOps float64
	netRx, netTx              float64
}

// rate turns two readings into a sample, clamping negative differences
// (a child process exited and took its counters with it) to zero.
func rate(prev, cur counters, prevT, now time.Time) Sample {
	dt := now.Sub(prevT).Seconds()
	per := func(a, b float64) float64 {
		if math.IsNaN(a) || math.IsNaN(b) {
			return math.NaN()
		}
		if dt <= 0 || b < a {
			return 0
		}
		return (b - a) / dt
	}
	return Sample{Time: now, CPUPercent: per(prev.cpuSeconds, cur.cpuSeconds) * 100, MemoryBytes: cur.memory,
		DiskReadBps: per(prev.diskRead, cur.diskRead), DiskWriteBps: per(prev.diskWrite, cur.diskWrite),
		DiskReadIOPS: per(prev.diskReadOps, cur.diskReadOps), DiskWriteIOPS: per(prev.diskWriteOps, cur.diskWriteOps),
		NetRxBps: per(prev.netRx, cur.netRx), NetTxBps: per(prev.netTx, cur.netTx)}
}

// rater keeps the previous reading of a source.
type rater struct {
	prev   counters
	prevT  time.Time
	primed bool
}

// minSpan is the shortest span a rate is computed over: counters move in
// steps (ticks of 10 ms, whole pages), so a rate over a few milliseconds
// is noise. A sample sooner than that is skipped and the next one covers
// the longer span.
const minSpan = 200 * time.Millisecond

func (r *rater) next(cur counters, now time.Time) (Sample, bool) {
	if r.primed && now.Sub(r.prevT) < minSpan {
		return Sample{}, false
	}
	prev, prevT, ok := r.prev, r.prevT, r.primed
	r.prev, r.prevT, r.primed = cur, now, true
	if !ok {
		return Sample{}, false
	}
	return rate(prev, cur, prevT, now), true
}

// Stats summarizes one host's samples over a window.
type Stats struct {
	Host, Role                        string
	Samples                           int
	MeanCPU, MaxCPU                   float64
	MaxMemory                         float64
	MeanDiskReadBps, MeanDiskWriteBps float64
	MeanNetRxBps, MeanNetTxBps        float64
}

// Summarize returns one Stats per host for the samples whose time lies in
// [from, to], sorted by host. NaN figures are left out of means.
func Summarize(samples []Sample, from, to time.Time) []Stats {
	type acc struct {
		st     Stats
		sums   [5]float64
		counts [5]int
	}
	byHost := map[string]*acc{}
	for _, s := range samples {
		if s.Time.Before(from) || s.Time.After(to) {
			continue
		}
		a := byHost[s.Host]
		if a == nil {
			a = &acc{st: Stats{Host: s.Host, Role: s.Role, MaxCPU: math.Inf(-1)}}
			byHost[s.Host] = a
		}
		a.st.Samples++
		for i, v := range [5]float64{s.CPUPercent, s.DiskReadBps, s.DiskWriteBps, s.NetRxBps, s.NetTxBps} {
			if !math.IsNaN(v) {
				a.sums[i] += v
				a.counts[i]++
			}
		}
		if !math.IsNaN(s.CPUPercent) {
			a.st.MaxCPU = math.Max(a.st.MaxCPU, s.CPUPercent)
		}
		if !math.IsNaN(s.MemoryBytes) {
			a.st.MaxMemory = math.Max(a.st.MaxMemory, s.MemoryBytes)
		}
	}
	out := make([]Stats, 0, len(byHost))
	for _, a := range byHost {
		mean := func(i int) float64 {
			if a.counts[i] == 0 {
				return math.NaN()
			}
			return a.sums[i] / float64(a.counts[i])
		}
		a.st.MeanCPU, a.st.MeanDiskReadBps, a.st.MeanDiskWriteBps = mean(0), mean(1), mean(2)
		a.st.MeanNetRxBps, a.st.MeanNetTxBps = mean(3), mean(4)
		if math.IsInf(a.st.MaxCPU, -1) {
			a.st.MaxCPU = math.NaN()
		}
		out = append(out, a.st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out
}

// CPUCount returns the cores this process may run on (its affinity mask),
// which is what "the loader's CPU is saturated" must be measured against.
func CPUCount() int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err == nil && set.Count() > 0 {
		return set.Count()
	}
	return 1
}

// DirSize returns the bytes a directory tree occupies on disk (allocated
// blocks, not apparent sizes: sparse and preallocated files count as the
// storage they use). Files that vanish during the walk are skipped.
func DirSize(path string) (int64, error) {
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
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			total += st.Blocks * 512
		}
		return nil
	})
	return total, err
}
