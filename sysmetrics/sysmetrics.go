// Package sysmetrics samples the resources of the machines and processes
// a benchmark involves, once per interval: each database server's process
// tree (locally, from /proc), whole machines (/proc, or node_exporter's
// Prometheus text format for remote hosts) and the load generator itself.
//
// Every figure but memory is a rate computed between two readings of
// cumulative counters, so the first reading of a source only primes it.
// A Collector samples a set of sources every interval and hands each
// round to a sink; Summarize condenses a trial's samples per host.
//
//	c := sysmetrics.NewCollector(time.Second, write)
//	c.Logger = logger
//	c.Add(sysmetrics.NewSelf())
//	c.Add(sysmetrics.NewMachine("machine"))
//	c.Start(ctx)
//	c.Add(sysmetrics.NewProcessTree("postgres", sysmetrics.RoleDatabase, pid))
//	...
//	c.Stop()
package sysmetrics

import (
	"math"
	"time"
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
	// Host is the source's name, Role one of the Role constants.
	Host string
	Role string
	// CPUPercent is 100 for one core busy the whole interval, so four
	// busy cores read 400.
	CPUPercent float64
	// MemoryBytes is resident memory summed over a process tree, or the
	// memory in use (total - available) of a machine. It is a level at
	// Time, not a rate.
	MemoryBytes float64
	// DiskReadBps and DiskWriteBps are bytes per second read from and
	// written to the block devices: a machine's disks, or what a process
	// tree's cgroup sent to them (see NewProcessTree). Never bytes
	// dirtied in the page cache, which can exceed the disk many times:
	// a process tree without a cgroup of its own has DiskWriteBps NaN and
	// its dirtied bytes in PageCacheWriteBps.
	DiskReadBps, DiskWriteBps float64
	// PageCacheWriteBps is bytes per second a process tree dirtied in the
	// page cache, and wrote with direct I/O (/proc/PID/io write_bytes).
	// Pages are counted whole as they become dirty, large folios too: 8
	// KiB written into a clean 256 KiB folio count 256 KiB, so the WAL's
	// pattern of small writes each made durable reads 32 times what
	// reached the disk (2,048 MiB for 65.6 MiB written, Linux 6.18, ext4).
	// A measure of write activity, not of the disk; NaN for machines and
	// remote hosts.
	PageCacheWriteBps float64
	// DiskReadIOPS and DiskWriteIOPS are completed operations per second;
	// NaN for process trees: a cgroup counts the requests its processes
	// submit, before the block layer merges them (894 for 273 completed
	// reads measured), not operations of the disk.
	DiskReadIOPS, DiskWriteIOPS float64
	// DiskBusyPercent is the share of the interval the busiest disk had
	// I/O in flight (iostat's %util); NaN for process trees. Near 100 a
	// disk that serves one request at a time is saturated; an SSD that
	// serves many at once may not be.
	DiskBusyPercent float64
	// NetRxBps and NetTxBps are network bytes per second; NaN for process
	// trees, which have no network counters of their own.
	NetRxBps, NetTxBps float64
	// NetLink is the network interface of known capacity that carried
	// the largest share of it, NetLinkBps its bytes per second in its
	// busier direction and NetLinkCapacityBps its capacity: its speed or
	// the rate a tbf qdisc shapes it to, whichever is lower. "" and NaN
	// when no interface's capacity is known (loopback and veth have
	// none until shaped).
	NetLink                        string
	NetLinkBps, NetLinkCapacityBps float64
	// LeadThreadPercent is the share of the interval a process tree's
	// first thread (its root process's main thread) was on a CPU or
	// waiting for one (/proc/PID/schedstat), 100 for all of it; NaN for
	// machines and remote hosts. For a server that serves requests on
	// that one thread (Redis) it is the demand on its one core: a thread
	// that other processes keep waiting reads as less than busy in
	// CPUPercent (Redis on 1 MB updates beside the test servers: 89-94%
	// each second) while it never idles (100%).
	LeadThreadPercent float64
}

// Source is one thing to sample. A source is sampled from one goroutine
// at a time.
type Source interface {
	// Name is the host name its samples carry, unique in a Collector.
	Name() string
	// Role is one of the Role constants.
	Role() string
	// Sample returns the use since the previous call. The first call
	// primes the counters and returns ok=false, as does a call too soon
	// after the previous one to give a meaningful rate (see minSpan).
	Sample(now time.Time) (s Sample, ok bool, err error)
}

// counters are the cumulative figures a source reads (memory aside, which
// is a level); rates are their differences over time. NaN marks a figure
// not measured.
type counters struct {
	cpuSeconds                float64
	memory                    float64
	diskRead, diskWrite       float64
	pageCacheWrite            float64
	diskReadOps, diskWriteOps float64
	// diskBusy is each disk's seconds with I/O in flight (nil: not
	// measured).
	diskBusy     map[string]float64
	netRx, netTx float64
	// links are each interface's bytes and capacity (nil: not
	// measured).
	links map[string]linkCounters
	// lead is a tree's first thread's seconds on a CPU plus waiting for
	// one, when leadKnown.
	lead      float64
	leadKnown bool
	// hostClock is the measured host's own clock, in seconds, when it read
	// its counters (node_exporter's node_time_seconds), or 0 when unknown.
	// A remote host's counters are read some unknown time after we ask,
	// and that delay varies with the network and the host's load; the
	// host's own clock is not subject to either.
	hostClock float64
}

// unmeasured returns counters with every figure unknown.
func unmeasured() counters {
	n := math.NaN()
	return counters{cpuSeconds: n, memory: n, diskRead: n, diskWrite: n, pageCacheWrite: n,
		diskReadOps: n, diskWriteOps: n, netRx: n, netTx: n}
}

// minSpan is the shortest span a rate is computed over: counters move in
// steps (ticks of 10 ms, whole pages), so a rate over a few milliseconds
// is noise (a 4 KiB write in 1 ms reads as 4 MB/s). A reading sooner than
// that is skipped, and the next one covers the longer span.
const minSpan = 200 * time.Millisecond

// rater keeps a source's previous reading and turns the next one into
// rates.
type rater struct {
	prev   counters
	prevAt time.Time
	primed bool
}

// next takes the counters read at time at and returns the rates since the
// previous reading, or ok=false when this reading only primes or comes
// within minSpan of the previous one.
func (r *rater) next(cur counters, at time.Time) (s Sample, ok bool) {
	if !r.primed {
		r.prev, r.prevAt, r.primed = cur, at, true
		return Sample{}, false
	}
	dt := span(r.prev, cur, at.Sub(r.prevAt))
	if dt < minSpan.Seconds() {
		return Sample{}, false
	}
	prev := r.prev
	r.prev, r.prevAt = cur, at
	return rates(prev, cur, dt, at), true
}

// span returns the seconds between two readings: the host's own clock
// when both readings carry it and it roughly agrees with ours (a clock
// stepped by NTP between the readings does not), else our clock's span.
func span(prev, cur counters, local time.Duration) float64 {
	dt := local.Seconds()
	if prev.hostClock > 0 && cur.hostClock > 0 {
		if host := cur.hostClock - prev.hostClock; host > 0 && math.Abs(host-dt) <= dt/2 {
			return host
		}
	}
	return dt
}

// busiest is the highest share of dt any disk had I/O in flight, in
// percent; NaN when no disk is in both readings.
func busiest(prev, cur map[string]float64, dt float64) float64 {
	out, found := 0.0, false
	for dev, b := range cur {
		if a, ok := prev[dev]; ok {
			out, found = math.Max(out, math.Max(b-a, 0)/dt*100), true
		}
	}
	if !found {
		return math.NaN()
	}
	return out
}

// rates turns two readings dt seconds apart into a sample. A counter
// that went down (a device vanished, a counter wrapped) gives 0, never a
// negative rate.
func rates(prev, cur counters, dt float64, at time.Time) Sample {
	per := func(a, b float64) float64 {
		if math.IsNaN(a) || math.IsNaN(b) {
			return math.NaN()
		}
		return math.Max(b-a, 0) / dt
	}
	s := Sample{Time: at, CPUPercent: per(prev.cpuSeconds, cur.cpuSeconds) * 100, MemoryBytes: cur.memory,
		DiskReadBps: per(prev.diskRead, cur.diskRead), DiskWriteBps: per(prev.diskWrite, cur.diskWrite),
		PageCacheWriteBps: per(prev.pageCacheWrite, cur.pageCacheWrite),
		DiskReadIOPS:      per(prev.diskReadOps, cur.diskReadOps), DiskWriteIOPS: per(prev.diskWriteOps, cur.diskWriteOps),
		DiskBusyPercent: busiest(prev.diskBusy, cur.diskBusy, dt),
		NetRxBps:        per(prev.netRx, cur.netRx), NetTxBps: per(prev.netTx, cur.netTx)}
	s.NetLink, s.NetLinkBps, s.NetLinkCapacityBps = busiestLink(prev.links, cur.links, dt)
	s.LeadThreadPercent = math.NaN()
	if prev.leadKnown && cur.leadKnown {
		s.LeadThreadPercent = math.Min(per(prev.lead, cur.lead)*100, 100)
	}
	return s
}
