// Package bottleneck says what bound a trial, from the client's, the
// hosts' and the database's own figures over its measured window, with
// the evidence. The rules are checked in a fixed order and the first that
// holds names the bottleneck; the evidence lists every rule that held, so
// a reader sees a second suspect too.
//
// The rules, in order (docs/guide/bottlenecks.md says what each reads per
// database and where it can be wrong):
//
//  1. rate-limited: a target rate was set and the trial reached 95% of it.
//     Nothing else bound it: the database was asked for no more.
//  2. client CPU: the load generator used 90% or more of the cores it may
//     run on (its affinity, a loader machine's cores), or those cores were
//     90% busy with other processes or the hypervisor's steal taking the
//     rest (ClientAtLimit).
//  3. database CPU: the database's processes used 90% or more of their
//     allowance (deploy.cpus, else the cores of their host). A single node
//     of a server that serves requests on one thread (Redis; the catalogue
//     says which) is judged against one core, however many its host has.
//  4. machine CPU: the machine the load generator ran on (with the
//     database, when it runs there too) was 90% busy or more; the
//     evidence says how much of it each part and the processes outside
//     the benchmark took.
//  5. network: a link of known capacity (a shaped link, a NIC's speed)
//     carried 90% or more of it in one direction.
//  6. the database's own waits: a quarter or more of its client sessions
//     (the workers' connections, idle ones included: a quarter of the
//     workers' time) waited on one class of wait: the commit's WAL flush, row locks,
//     other heavyweight locks, or the server's internal locks. Where
//     several classes hold, the largest share comes first; the evidence
//     names the wait events the server reported.
//  7. cache misses / disk: the database's cache hit ratio was below 90%
//     and the disks worked (50 read IOPS or more, 50% busy or more) or a
//     fifth of its sessions waited on data file I/O.
//  8. disk: the disks were 80% busy or more.
//  9. none found.
package bottleneck

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dbarena/dbarena/analysis/objective"
)

// Kind names a bottleneck.
type Kind string

// Bottlenecks, in the order the rules are checked.
const (
	RateLimited Kind = "rate-limited"
	ClientCPU   Kind = "client CPU"
	DatabaseCPU Kind = "database CPU"
	MachineCPU  Kind = "machine CPU"
	Network     Kind = "network"
	CommitFlush Kind = "commit flush (WAL)"
	RowLocks    Kind = "row locks"
	Locks       Kind = "lock waits"
	Internal    Kind = "internal locks"
	CacheMisses Kind = "cache misses / disk"
	Disk        Kind = "disk"
	NoneFound   Kind = "none found"
)

// Thresholds of the rules. Each is pinned by a test on both sides.
const (
	reachedTarget  = objective.DefaultAchieved // the share of a rate that keeps up with it
	busyCPU        = 0.90
	busyLink       = 0.90
	waitShare      = 0.25
	cacheHit       = 0.90
	diskReadIOPS   = 50
	diskWorking    = 50.0
	ioShare        = 0.20
	diskSaturation = 80.0
)

// WaitClass is a class of the database's waits, as its driver names it
// in the figure <db>_<class>_wait_share.
type WaitClass string

// The classes of wait, each with the bottleneck it names.
const (
	WaitWALFlush WaitClass = "wal_flush"
	WaitRowLock  WaitClass = "row_lock"
	WaitLock     WaitClass = "lock"
	WaitLWLock   WaitClass = "lwlock"
	WaitIO       WaitClass = "io"
)

// WaitClasses are the classes a driver may report, in a fixed order.
func WaitClasses() []WaitClass {
	return []WaitClass{WaitWALFlush, WaitRowLock, WaitLock, WaitLWLock, WaitIO}
}

// waitKinds are the bottlenecks the wait classes name; data file I/O is
// judged with the cache (rule 7), not alone.
var waitKinds = map[WaitClass]struct {
	kind Kind
	what string
}{
	WaitWALFlush: {CommitFlush, "waited on the WAL flush at commit"},
	WaitRowLock:  {RowLocks, "waited on row locks"},
	WaitLock:     {Locks, "waited on heavyweight locks other than rows'"},
	WaitLWLock:   {Internal, "waited on the server's internal locks"},
}

// Wait is the share of the database's client sessions that waited on one
// class of wait over the window, and the events of that class the
// database reported, largest first.
type Wait struct {
	Class  WaitClass
	Share  float64
	Events []Event
}

// Event is one wait event ("LWLock:WALWrite") and its share of the
// client sessions.
type Event struct {
	Name  string
	Share float64
}

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
	// ClientCoresBusy is how busy the cores the load generator was
	// confined to were (100 = one core), the hypervisor's steal
	// included, and ClientCoresSteal that steal; NaN when unknown or
	// when those cores are the whole machine's, which MachineCPU judges.
	// A load generator whose core other processes or the hypervisor
	// took reads below its limit while its threads wait for the core.
	ClientCoresBusy, ClientCoresSteal float64
	// DatabaseCPU is the database's processes' mean CPU, summed over its
	// DatabaseNodes, on DatabaseCores (its limit, or its hosts' cores).
	// OneCoreServer says it serves requests on one thread.
	DatabaseCPU   float64
	DatabaseCores float64
	DatabaseNodes int
	OneCoreServer bool
	// DatabaseThread is the share, in percent, of the window the
	// database's main thread was on a CPU or waiting for one (NaN:
	// unknown). A one-thread server whose thread never idles is at its
	// limit even when other processes keep it waiting, which its CPU
	// alone reads as less than busy.
	DatabaseThread float64
	// MachineCPU is the mean CPU of the machine the load generator ran
	// on, on MachineCores (NaN when it ran elsewhere); Shared says the
	// database ran there too. OtherCPU is what processes outside the
	// benchmark (neither the load generator nor the database) took of it.
	MachineCPU   float64
	MachineCores int
	Shared       bool
	OtherCPU     float64
	// Link is the busiest network link of known capacity, LinkBps the
	// bytes per second it carried in its busier direction and
	// LinkCapacityBps its capacity (0: none known).
	Link                     string
	LinkBps, LinkCapacityBps float64
	// DiskReadIOPS and DiskBusyPercent are the database hosts' disks
	// (this machine's, for a local database).
	DiskReadIOPS, DiskBusyPercent float64
	// CacheHitRatio is the database cache's over the window, named
	// CacheName ("pg_cache_hit_ratio").
	CacheHitRatio float64
	CacheName     string
	// Waits are the shares of the client sessions by class of wait
	// (none: the database reports no waits).
	Waits []Wait
}

// Unknown returns evidence with nothing measured: every figure NaN.
func Unknown() Evidence {
	n := math.NaN()
	return Evidence{ClientCPU: n, ClientCoresBusy: n, ClientCoresSteal: n, DatabaseCPU: n, DatabaseThread: n, MachineCPU: n, OtherCPU: n, LinkBps: n,
		DiskReadIOPS: n, DiskBusyPercent: n, CacheHitRatio: n}
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

// ClientAtLimit reports whether the load generator was at its CPU limit,
// and says how: its own CPU at the limit of its cores (Saturated), or
// its cores at their limit with other processes or the hypervisor's
// steal taking what it did not get. Steal accrues only while a core has
// work to run, so a core the load generator alone was given that is
// busy to the limit had that work all the time. The experiment's
// client-bound flag asks the same question, so flag and verdict agree.
func ClientAtLimit(e Evidence) (string, bool) {
	cores := float64(e.ClientCores)
	if Saturated(e.ClientCPU, cores) {
		return fmt.Sprintf("the load generator used %.0f%% CPU of %d%%", e.ClientCPU, 100*e.ClientCores), true
	}
	if !known(e.ClientCPU) || !Saturated(e.ClientCoresBusy, cores) {
		return "", false
	}
	took := fmt.Sprintf("other processes took %.0f%%", math.Max(e.ClientCoresBusy-e.ClientCPU, 0))
	if known(e.ClientCoresSteal) && e.ClientCoresSteal >= 1 {
		took += fmt.Sprintf(" (the hypervisor's steal %.0f%%)", e.ClientCoresSteal)
	}
	its := "its core was"
	if e.ClientCores > 1 {
		its = "its cores were"
	}
	return fmt.Sprintf("the load generator used %.0f%% CPU of %d%% and %s %.0f%% busy: %s", e.ClientCPU, 100*e.ClientCores, its, e.ClientCoresBusy, took), true
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
	if why, ok := ClientAtLimit(e); ok {
		hold(ClientCPU, "%s", why)
	}
	switch {
	case !e.databaseCPUKnown():
	case e.oneCore() && Saturated(e.DatabaseCPU, 1):
		hold(DatabaseCPU, "the database used %.0f%% CPU of one core, the limit of a server that serves requests on one thread", e.DatabaseCPU)
	case e.oneCore() && known(e.DatabaseThread) && e.DatabaseThread >= 100*busyCPU:
		hold(DatabaseCPU, "the database's one serving thread was on a CPU or waiting for one %.0f%% of the time (%.0f%% CPU: other processes kept it waiting): one core, the limit of a server that serves requests on one thread",
			e.DatabaseThread, e.DatabaseCPU)
	case !e.oneCore() && Saturated(e.DatabaseCPU, e.DatabaseCores):
		hold(DatabaseCPU, "the database used %.0f%% CPU of %.0f%% allowed", e.DatabaseCPU, 100*e.DatabaseCores)
	}
	if Saturated(e.MachineCPU, float64(e.MachineCores)) {
		hold(MachineCPU, "%s", e.machineSentence())
	}
	if e.LinkCapacityBps > 0 && known(e.LinkBps) && e.LinkBps >= busyLink*e.LinkCapacityBps {
		hold(Network, "link %s carried %s of its %s (%.0f%%)", e.Link, bitRate(e.LinkBps), bitRate(e.LinkCapacityBps), 100*e.LinkBps/e.LinkCapacityBps)
	}
	for _, w := range e.heldWaits() {
		k := waitKinds[w.Class]
		hold(k.kind, "%.0f%% of the database's sessions %s%s", 100*w.Share, k.what, eventList(w.Events))
	}
	if known(e.CacheHitRatio) && e.CacheHitRatio < cacheHit {
		var disk []string
		if known(e.DiskReadIOPS) && e.DiskReadIOPS >= diskReadIOPS {
			disk = append(disk, fmt.Sprintf("%.0f disk reads/s", e.DiskReadIOPS))
		}
		if known(e.DiskBusyPercent) && e.DiskBusyPercent >= diskWorking {
			disk = append(disk, fmt.Sprintf("disks %.0f%% busy", e.DiskBusyPercent))
		}
		if io := e.WaitShare(WaitIO); io >= ioShare {
			disk = append(disk, fmt.Sprintf("%.0f%% of the database's sessions waiting on I/O", 100*io))
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

// WaitShare is the share of client sessions that waited on class c, NaN
// when the database does not report it.
func (e Evidence) WaitShare(c WaitClass) float64 {
	for _, w := range e.Waits {
		if w.Class == c {
			return w.Share
		}
	}
	return math.NaN()
}

// heldWaits are the classes of wait at or above the threshold that name
// a bottleneck of their own, the largest share first.
func (e Evidence) heldWaits() []Wait {
	var out []Wait
	for _, w := range e.Waits {
		if _, ok := waitKinds[w.Class]; ok && known(w.Share) && w.Share >= waitShare {
			out = append(out, w)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Share > out[j].Share })
	return out
}

// eventList says " (LWLock:WALWrite 41%, IO:WALSync 24%)" of up to three
// events with a share of at least 1%.
func eventList(events []Event) string {
	var parts []string
	for _, ev := range events {
		if len(parts) == 3 || ev.Share < 0.01 {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%%", ev.Name, 100*ev.Share))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// databaseCPUKnown says whether the database's CPU and its allowance are
// both known.
func (e Evidence) databaseCPUKnown() bool { return known(e.DatabaseCPU) && e.DatabaseCores > 0 }

// oneCore says whether the database is one node of a server that serves
// requests on one thread, allowed more than one core: one core is then
// its limit.
func (e Evidence) oneCore() bool {
	return e.OneCoreServer && e.DatabaseNodes == 1 && e.DatabaseCores > 1
}

// databaseLimit is the cores the database can use: its allowance, or one
// for a one-thread server.
func (e Evidence) databaseLimit() float64 {
	if e.oneCore() {
		return 1
	}
	return e.DatabaseCores
}

// databaseShare says "database 78% CPU of 100% (one thread)".
func (e Evidence) databaseShare() string {
	if e.oneCore() {
		return fmt.Sprintf("database %.0f%% CPU of one core (it serves requests on one thread)", e.DatabaseCPU)
	}
	return fmt.Sprintf("database %.0f%% CPU of %.0f%%", e.DatabaseCPU, 100*e.DatabaseCores)
}

// machineSentence says how busy the machine was and who took it: the load
// generator, the database when it runs there, and the processes outside
// the benchmark.
func (e Evidence) machineSentence() string {
	who := "the load generator"
	if e.Shared {
		who = "client and database"
	}
	out := fmt.Sprintf("the machine running %s was at %.0f%% CPU of %d%%", who, e.MachineCPU, 100*e.MachineCores)
	var parts []string
	if known(e.ClientCPU) {
		parts = append(parts, fmt.Sprintf("load generator %.0f%%", e.ClientCPU))
	}
	if e.Shared && known(e.DatabaseCPU) {
		parts = append(parts, fmt.Sprintf("database %.0f%%", e.DatabaseCPU))
	}
	if known(e.OtherCPU) {
		parts = append(parts, fmt.Sprintf("other processes %.0f%%", e.OtherCPU))
	}
	if len(parts) > 0 {
		out += ": " + strings.Join(parts, ", ")
	}
	return out
}

// highest says what was busiest when no rule held.
func (e Evidence) highest() string {
	var parts []string
	if known(e.ClientCPU) && e.ClientCores > 0 {
		parts = append(parts, fmt.Sprintf("client %.0f%% CPU of %d%%", e.ClientCPU, 100*e.ClientCores))
	}
	if e.databaseCPUKnown() {
		parts = append(parts, e.databaseShare())
	}
	if known(e.MachineCPU) && e.MachineCores > 0 {
		parts = append(parts, fmt.Sprintf("machine %.0f%% CPU of %d%%", e.MachineCPU, 100*e.MachineCores))
	}
	if e.LinkCapacityBps > 0 && known(e.LinkBps) {
		parts = append(parts, fmt.Sprintf("link %s %.0f%% of %s", e.Link, 100*e.LinkBps/e.LinkCapacityBps, bitRate(e.LinkCapacityBps)))
	}
	if known(e.DiskBusyPercent) {
		parts = append(parts, fmt.Sprintf("disks %.0f%% busy", e.DiskBusyPercent))
	}
	if known(e.CacheHitRatio) {
		parts = append(parts, fmt.Sprintf("%s %.1f%%", e.CacheName, 100*e.CacheHitRatio))
	}
	if w := e.largestWait(); w.Class != "" {
		what := "data file I/O"
		if k, ok := waitKinds[w.Class]; ok {
			what = string(k.kind)
		}
		parts = append(parts, fmt.Sprintf("%.0f%% of the database's sessions waiting on %s", 100*w.Share, what))
	}
	if len(parts) == 0 {
		return "no figures to judge by"
	}
	return "nothing at its limit: " + strings.Join(parts, ", ") + " (a latency-bound client: more threads may go faster)"
}

// largestWait is the class of wait with the largest share above 0.
func (e Evidence) largestWait() Wait {
	var best Wait
	for _, w := range e.Waits {
		if known(w.Share) && w.Share > best.Share {
			best = w
		}
	}
	return best
}

// bitRate writes bytes per second as a link speed: "8.0 Mbit/s".
func bitRate(bytesPerSec float64) string {
	bits := 8 * bytesPerSec
	switch {
	case bits >= 1e9:
		return fmt.Sprintf("%.1f Gbit/s", bits/1e9)
	case bits >= 1e6:
		return fmt.Sprintf("%.1f Mbit/s", bits/1e6)
	default:
		return fmt.Sprintf("%.0f kbit/s", bits/1e3)
	}
}

func known(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
