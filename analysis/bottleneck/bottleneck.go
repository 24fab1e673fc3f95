// Package bottleneck says what bound a trial, from the client's, the
// hosts' and the database's own figures over its measured window, with
// the evidence. The rules are checked in a fixed order and the first that
// holds names the bottleneck; the evidence lists every rule that held, so
// a reader sees a second suspect too.
//
// The rules, in order:
//
//  1. rate-limited: a target rate was set and the trial reached 95% of it.
//     Nothing else bound it: the database was asked for no more.
//  2. client CPU: the load generator used 90% or more of the cores it may
//     run on (its affinity, a loader machine's cores).
//  3. database CPU: the database's processes used 90% or more of their
//     allowance (deploy.cpus, else the cores of their host). One
//     saturated core: a single node of a server that serves requests on
//     one thread (Redis; the catalogue says which) using one core's worth
//     (90% or more) is at its limit, however many cores its host has.
//  4. machine CPU: the machine the load generator ran on (with the
//     database, when it runs there too) was 90% busy or more: the machine
//     is the limit, of neither alone.
//  5. lock waits: a quarter or more of the database's active sessions
//     were waiting on a lock (PostgreSQL's Lock, LWLock, BufferPin).
//  6. cache misses / disk: the database's cache hit ratio was below 90%
//     and the disks worked (50 read IOPS or more, 50% busy or more) or a
//     fifth of its sessions waited on I/O.
//  7. disk: the disks were 80% busy or more.
//  8. none found.
//
// Where it can be wrong: CPU figures are means over the window, so a
// resource saturated in bursts reads as less than busy; a process tree's
// CPU is known only for local deployments (process trees), containers and
// pods with limits, or hosts of known core count; "disk busy" is the
// time with I/O in flight, which an SSD that serves many requests at once
// reaches long before its limit; lock and I/O shares come from one
// snapshot of the sessions a second, so short waits are undercounted;
// a network limit is not judged, as no link capacity is known.
package bottleneck

import (
	"fmt"
	"math"
	"strings"
)

// Kind names a bottleneck.
type Kind string

// Bottlenecks, in the order the rules are checked.
const (
	RateLimited Kind = "rate-limited"
	ClientCPU   Kind = "client CPU"
	DatabaseCPU Kind = "database CPU"
	MachineCPU  Kind = "machine CPU"
	LockWaits   Kind = "lock waits"
	CacheMisses Kind = "cache misses / disk"
	Disk        Kind = "disk"
	NoneFound   Kind = "none found"
)

// Thresholds of the rules.
const (
	reachedTarget  = 0.95
	busyCPU        = 0.90
	lockShare      = 0.25
	cacheHit       = 0.90
	diskReadIOPS   = 50
	diskWorking    = 50.0
	ioShare        = 0.20
	diskSaturation = 80.0
)

// Evidence is what a trial measured. NaN marks a figure not measured;
// each rule needs its own figures and is skipped without them.
type Evidence struct {
	// TargetRate is the throttle in ops/s (0: none), Throughput the
	// successful operations per second.
	TargetRate, Throughput float64
	// ClientCPU is the load generator's (busiest loader machine's) mean
	// CPU, 100 = one core, on ClientCores cores.
	ClientCPU   float64
	ClientCores int
	// DatabaseCPU is the database's processes' mean CPU, summed over its
	// DatabaseNodes, on DatabaseCores (its limit, or its hosts' cores).
	// OneCoreServer says it serves requests on one thread.
	DatabaseCPU   float64
	DatabaseCores float64
	DatabaseNodes int
	OneCoreServer bool
	// MachineCPU is the mean CPU of the machine the load generator ran
	// on, on MachineCores (NaN when loader processes ran the trial);
	// Shared says the database ran there too.
	MachineCPU   float64
	MachineCores int
	Shared       bool
	// DiskReadIOPS and DiskBusyPercent are the database hosts' disks
	// (this machine's, for a local database).
	DiskReadIOPS, DiskBusyPercent float64
	// CacheHitRatio is the database cache's over the window, named
	// CacheName ("pg_cache_hit_ratio"); LockWaitShare and IOWaitShare the
	// shares of active sessions waiting on locks and on I/O.
	CacheHitRatio              float64
	CacheName                  string
	LockWaitShare, IOWaitShare float64
}

// Verdict is the bottleneck and the evidence for it.
type Verdict struct {
	Kind Kind
	// Why gives the figures of every rule that held, the deciding one
	// first; for NoneFound, the highest figures seen.
	Why string
}

// Saturated reports whether a CPU figure (100 = one core) is at the limit
// of cores: 90% of them or more, on average. The rules below use it, and
// so do the experiment's client-bound and host-saturated flags, so that a
// flag and a verdict never disagree on what "at its limit" means.
func Saturated(cpuPercent, cores float64) bool {
	return known(cpuPercent) && cores > 0 && cpuPercent >= busyCPU*100*cores
}

// Judge applies the rules to e.
func Judge(e Evidence) Verdict {
	type finding struct {
		kind Kind
		why  string
	}
	var found []finding
	hold := func(k Kind, format string, args ...any) {
		found = append(found, finding{k, fmt.Sprintf(format, args...)})
	}
	if e.TargetRate > 0 && e.Throughput >= reachedTarget*e.TargetRate {
		hold(RateLimited, "%.0f of the %.0f ops/s asked for", e.Throughput, e.TargetRate)
	}
	if Saturated(e.ClientCPU, float64(e.ClientCores)) {
		hold(ClientCPU, "the load generator used %.0f%% CPU of %d%%", e.ClientCPU, 100*e.ClientCores)
	}
	if known(e.DatabaseCPU) && e.DatabaseCores > 0 {
		switch {
		case Saturated(e.DatabaseCPU, e.DatabaseCores):
			hold(DatabaseCPU, "the database used %.0f%% CPU of %.0f%% allowed", e.DatabaseCPU, 100*e.DatabaseCores)
		case e.OneCoreServer && e.DatabaseNodes == 1 && Saturated(e.DatabaseCPU, 1):
			hold(DatabaseCPU, "the database used %.0f%% CPU of %.0f%%: one saturated core, the limit of a server that serves requests on one thread",
				e.DatabaseCPU, 100*e.DatabaseCores)
		}
	}
	if Saturated(e.MachineCPU, float64(e.MachineCores)) {
		who := "the load generator"
		if e.Shared {
			who = "client and database"
		}
		hold(MachineCPU, "the machine running %s was at %.0f%% CPU of %d%%", who, e.MachineCPU, 100*e.MachineCores)
	}
	if known(e.LockWaitShare) && e.LockWaitShare >= lockShare {
		hold(LockWaits, "%.0f%% of active sessions waited on locks", 100*e.LockWaitShare)
	}
	if known(e.CacheHitRatio) && e.CacheHitRatio < cacheHit {
		var disk []string
		if known(e.DiskReadIOPS) && e.DiskReadIOPS >= diskReadIOPS {
			disk = append(disk, fmt.Sprintf("%.0f disk reads/s", e.DiskReadIOPS))
		}
		if known(e.DiskBusyPercent) && e.DiskBusyPercent >= diskWorking {
			disk = append(disk, fmt.Sprintf("disks %.0f%% busy", e.DiskBusyPercent))
		}
		if known(e.IOWaitShare) && e.IOWaitShare >= ioShare {
			disk = append(disk, fmt.Sprintf("%.0f%% of active sessions waiting on I/O", 100*e.IOWaitShare))
		}
		if len(disk) > 0 {
			hold(CacheMisses, "%s %.1f%%, %s", e.CacheName, 100*e.CacheHitRatio, strings.Join(disk, ", "))
		}
	}
	if known(e.DiskBusyPercent) && e.DiskBusyPercent >= diskSaturation {
		hold(Disk, "disks %.0f%% busy", e.DiskBusyPercent)
	}
	if len(found) == 0 {
		return Verdict{Kind: NoneFound, Why: e.highest()}
	}
	whys := make([]string, len(found))
	for i, f := range found {
		whys[i] = f.why
		if i > 0 {
			whys[i] = "also " + string(f.kind) + ": " + f.why
		}
	}
	return Verdict{Kind: found[0].kind, Why: strings.Join(whys, "; ")}
}

// highest says what was busiest when no rule held.
func (e Evidence) highest() string {
	var parts []string
	if known(e.ClientCPU) && e.ClientCores > 0 {
		parts = append(parts, fmt.Sprintf("client %.0f%% CPU of %d%%", e.ClientCPU, 100*e.ClientCores))
	}
	if known(e.DatabaseCPU) && e.DatabaseCores > 0 {
		parts = append(parts, fmt.Sprintf("database %.0f%% CPU of %.0f%%", e.DatabaseCPU, 100*e.DatabaseCores))
	}
	if known(e.MachineCPU) && e.MachineCores > 0 {
		parts = append(parts, fmt.Sprintf("machine %.0f%% CPU of %d%%", e.MachineCPU, 100*e.MachineCores))
	}
	if known(e.DiskBusyPercent) {
		parts = append(parts, fmt.Sprintf("disks %.0f%% busy", e.DiskBusyPercent))
	}
	if known(e.CacheHitRatio) {
		parts = append(parts, fmt.Sprintf("%s %.1f%%", e.CacheName, 100*e.CacheHitRatio))
	}
	if len(parts) == 0 {
		return "no figures to judge by"
	}
	return "nothing at its limit: " + strings.Join(parts, ", ") + " (a latency-bound client: more threads may go faster)"
}

func known(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
