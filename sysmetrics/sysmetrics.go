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

	"github.com/dbarena/dbarena/results"
)

// Roles of a source.
const (
	RoleDatabase = "database"
	RoleLoader   = "loader"
	RoleMachine  = "machine"
)

// Sample is one source's resource use over the interval ending at Time:
// the row sysmetrics.csv stores, less its trial.
type Sample = results.Usage

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
	cpuSeconds float64
	// cores are a machine's cores' busy and steal seconds, by core
	// number (nil: not measured).
	cores                     map[int]coreCounters
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

// coreCounters are one core's cumulative busy seconds (steal included)
// and steal seconds.
type coreCounters struct{ busy, steal float64 }

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
	s.CoreBusyPercent, s.CoreStealPercent = coreRates(prev.cores, cur.cores, dt)
	s.LeadThreadPercent = math.NaN()
	if prev.leadKnown && cur.leadKnown {
		s.LeadThreadPercent = math.Min(per(prev.lead, cur.lead)*100, 100)
	}
	return s
}

// coreRates are each core's busy and steal percent between two readings,
// for the cores in both (nil, nil when none is).
func coreRates(prev, cur map[int]coreCounters, dt float64) (busy, steal map[int]float64) {
	for n, b := range cur {
		a, ok := prev[n]
		if !ok {
			continue
		}
		if busy == nil {
			busy, steal = map[int]float64{}, map[int]float64{}
		}
		busy[n] = math.Min(math.Max(b.busy-a.busy, 0)/dt*100, 100)
		steal[n] = math.Min(math.Max(b.steal-a.steal, 0)/dt*100, 100)
	}
	return busy, steal
}
