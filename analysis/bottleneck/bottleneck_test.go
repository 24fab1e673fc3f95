package bottleneck_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/analysis/bottleneck"
)

// walWait is the WAL flush the issue saw on PostgreSQL workload A: 14
// sessions in LWLock:WALWrite and 8 in IO:WALSync of 34 active.
func walWait(share float64) bottleneck.Wait {
	return bottleneck.Wait{Class: bottleneck.WaitWALFlush, Share: share, Events: []bottleneck.Event{
		{Name: "LWLock:WALWrite", Share: share * 14 / 22}, {Name: "IO:WALSync", Share: share * 8 / 22}}}
}

func TestRules(t *testing.T) {
	for name, tc := range map[string]struct {
		edit func(e *bottleneck.Evidence)
		want bottleneck.Kind
		why  string
	}{
		"nothing measured": {func(e *bottleneck.Evidence) {}, bottleneck.NoneFound, "no figures to judge by"},
		"target reached":   {func(e *bottleneck.Evidence) { e.TargetRate, e.Throughput = 1000, 990 }, bottleneck.RateLimited, "990 of the 1000"},
		"target missed": {func(e *bottleneck.Evidence) {
			e.TargetRate, e.Throughput, e.ClientCPU, e.ClientCores = 1000, 900, 40, 2
		},
			bottleneck.NoneFound, "client 40% CPU of 200%"},
		"client": {func(e *bottleneck.Evidence) { e.ClientCPU, e.ClientCores = 96, 1 }, bottleneck.ClientCPU, "96% CPU of 100%"},
		"a client whose core the hypervisor took": {func(e *bottleneck.Evidence) {
			e.ClientCPU, e.ClientCores, e.ClientCoresBusy, e.ClientCoresSteal = 68, 1, 99, 30
		}, bottleneck.ClientCPU, "the load generator used 68% CPU of 100% and its core was 99% busy: other processes took 31% (the hypervisor's steal 30%)"},
		"a latency-bound client beside a busy neighbour": {func(e *bottleneck.Evidence) {
			e.ClientCPU, e.ClientCores, e.ClientCoresBusy, e.ClientCoresSteal = 40, 1, 75, 0
		}, bottleneck.NoneFound, "client 40% CPU of 100%"},
		"database at its limit": {func(e *bottleneck.Evidence) { e.DatabaseCPU, e.DatabaseCores = 48, 0.5 },
			bottleneck.DatabaseCPU, "48% CPU of 50% allowed"},
		"one core of two": {func(e *bottleneck.Evidence) {
			e.DatabaseCPU, e.DatabaseCores, e.DatabaseNodes, e.OneCoreServer = 99, 2, 1, true
		}, bottleneck.DatabaseCPU, "99% CPU of one core"},
		"a one-thread server kept waiting": {func(e *bottleneck.Evidence) {
			e.DatabaseCPU, e.DatabaseThread, e.DatabaseCores, e.DatabaseNodes, e.OneCoreServer = 89, 99, 2, 1, true
		}, bottleneck.DatabaseCPU, "the database's one serving thread was on a CPU or waiting for one 99% of the time (89% CPU: other processes kept it waiting)"},
		"a many-thread server's main thread": {func(e *bottleneck.Evidence) {
			e.DatabaseCPU, e.DatabaseThread, e.DatabaseCores, e.DatabaseNodes = 89, 99, 2, 1
		}, bottleneck.NoneFound, "database 89% CPU of 200%"},
		"a one-thread server below its core": {func(e *bottleneck.Evidence) {
			e.DatabaseCPU, e.DatabaseCores, e.DatabaseNodes, e.OneCoreServer = 78, 2, 1, true
		}, bottleneck.NoneFound, "database 78% CPU of one core (it serves requests on one thread)"},
		"a one-thread server capped below a core": {func(e *bottleneck.Evidence) {
			e.DatabaseCPU, e.DatabaseCores, e.DatabaseNodes, e.OneCoreServer = 46, 0.5, 1, true
		}, bottleneck.DatabaseCPU, "46% CPU of 50% allowed"},
		"one core's worth of a server of many threads": {func(e *bottleneck.Evidence) {
			e.DatabaseCPU, e.DatabaseCores, e.DatabaseNodes = 99, 2, 1
		}, bottleneck.NoneFound, "database 99% CPU of 200%"},
		"three nodes at a third each": {func(e *bottleneck.Evidence) {
			e.DatabaseCPU, e.DatabaseCores, e.DatabaseNodes, e.OneCoreServer = 100, 6, 3, true
		}, bottleneck.NoneFound, "database 100% CPU of 600%"},
		"shared machine": {func(e *bottleneck.Evidence) {
			e.Shared, e.MachineCPU, e.MachineCores = true, 185, 2
			e.ClientCPU, e.ClientCores, e.DatabaseCPU, e.DatabaseCores, e.OtherCPU = 90, 2, 80, 2, 15
		}, bottleneck.MachineCPU, "client and database was at 185% CPU of 200%: load generator 90%, database 80%, other processes 15%"},
		"machine taken by others": {func(e *bottleneck.Evidence) {
			e.Shared, e.MachineCPU, e.MachineCores = true, 194, 2
			e.ClientCPU, e.ClientCores, e.DatabaseCPU, e.DatabaseCores, e.OtherCPU = 27, 2, 60, 2, 107
		}, bottleneck.MachineCPU, "load generator 27%, database 60%, other processes 107%"},
		"machine busy, database elsewhere": {func(e *bottleneck.Evidence) { e.MachineCPU, e.MachineCores = 185, 2 },
			bottleneck.MachineCPU, "running the load generator was at 185%"},
		"shaped link": {func(e *bottleneck.Evidence) { e.Link, e.LinkBps, e.LinkCapacityBps = "veth0", 0.98e6, 1e6 },
			bottleneck.Network, "link veth0 carried 7.8 Mbit/s of its 8.0 Mbit/s (98%)"},
		"link of unknown capacity": {func(e *bottleneck.Evidence) { e.Link, e.LinkBps = "lo", 5e9 },
			bottleneck.NoneFound, "no figures"},
		"WAL flush": {func(e *bottleneck.Evidence) { e.Waits = []bottleneck.Wait{walWait(0.65)} },
			bottleneck.CommitFlush, "65% of the database's sessions waited on the WAL flush at commit (LWLock:WALWrite 41%, IO:WALSync 24%)"},
		"row locks": {func(e *bottleneck.Evidence) {
			e.Waits = []bottleneck.Wait{walWait(0.05), {Class: bottleneck.WaitRowLock, Share: 0.7,
				Events: []bottleneck.Event{{Name: "Lock:transactionid", Share: 0.6}, {Name: "Lock:tuple", Share: 0.1}}}}
		}, bottleneck.RowLocks, "70% of the database's sessions waited on row locks (Lock:transactionid 60%, Lock:tuple 10%)"},
		"the larger wait first": {func(e *bottleneck.Evidence) {
			e.Waits = []bottleneck.Wait{walWait(0.3), {Class: bottleneck.WaitRowLock, Share: 0.5}}
		}, bottleneck.RowLocks, "also commit flush (WAL): 30%"},
		"internal locks": {func(e *bottleneck.Evidence) {
			e.Waits = []bottleneck.Wait{{Class: bottleneck.WaitLWLock, Share: 0.4, Events: []bottleneck.Event{{Name: "LWLock:BufferMapping", Share: 0.4}}}}
		}, bottleneck.Internal, "waited on the server's internal locks (LWLock:BufferMapping 40%)"},
		"other heavyweight locks": {func(e *bottleneck.Evidence) {
			e.Waits = []bottleneck.Wait{{Class: bottleneck.WaitLock, Share: 0.3}}
		}, bottleneck.Locks, "30% of the database's sessions waited on heavyweight locks"},
		"data file I/O alone names nothing": {func(e *bottleneck.Evidence) {
			e.Waits = []bottleneck.Wait{{Class: bottleneck.WaitIO, Share: 0.9}}
		}, bottleneck.NoneFound, "90% of the database's sessions waiting on data file I/O"},
		"cache misses from disk": {func(e *bottleneck.Evidence) {
			e.CacheHitRatio, e.CacheName, e.DiskReadIOPS = 0.6, "pg_cache_hit_ratio", 800
		}, bottleneck.CacheMisses, "pg_cache_hit_ratio 60.0%, 800 disk reads/s"},
		"cache misses waiting on I/O": {func(e *bottleneck.Evidence) {
			e.CacheHitRatio, e.CacheName, e.Waits = 0.6, "pg_cache_hit_ratio", []bottleneck.Wait{{Class: bottleneck.WaitIO, Share: 0.2}}
		}, bottleneck.CacheMisses, "20% of the database's sessions waiting on I/O"},
		"misses the page cache served": {func(e *bottleneck.Evidence) {
			e.CacheHitRatio, e.CacheName, e.DiskReadIOPS, e.DiskBusyPercent = 0.6, "pg_cache_hit_ratio", 2, 1
		}, bottleneck.NoneFound, "pg_cache_hit_ratio 60.0%"},
		"disk": {func(e *bottleneck.Evidence) { e.DiskBusyPercent = 95 }, bottleneck.Disk, "95% busy"},
		"client first, database also": {func(e *bottleneck.Evidence) {
			e.ClientCPU, e.ClientCores, e.DatabaseCPU, e.DatabaseCores = 195, 2, 50, 0.5
		}, bottleneck.ClientCPU, "also database CPU: the database used 50%"},
	} {
		t.Run(name, func(t *testing.T) {
			e := bottleneck.Unknown()
			tc.edit(&e)
			v := bottleneck.Judge(e)
			require.Equal(t, tc.want, v.Kind, v.Why)
			require.NotEmpty(t, tc.why, "every case names the evidence it expects")
			require.Contains(t, v.Why, tc.why)
		})
	}
}

// TestThresholds pins every rule's threshold from both sides: just at it
// the rule holds, just below it does not. Moving a threshold fails here.
func TestThresholds(t *testing.T) {
	const eps = 1e-6
	for name, tc := range map[string]struct {
		at   func(e *bottleneck.Evidence, v float64)
		edge float64
		// below says which side of edge holds: false for a rule that
		// holds at or above it, true for one that holds below it.
		below bool
		kind  bottleneck.Kind
	}{
		"target reached at 95%": {func(e *bottleneck.Evidence, v float64) { e.TargetRate, e.Throughput = 1000, v }, 950, false, bottleneck.RateLimited},
		"client CPU at 90% of its cores": {func(e *bottleneck.Evidence, v float64) { e.ClientCPU, e.ClientCores = v, 2 },
			180, false, bottleneck.ClientCPU},
		"a client's cores at 90% busy with what others took": {func(e *bottleneck.Evidence, v float64) {
			e.ClientCPU, e.ClientCores, e.ClientCoresBusy, e.ClientCoresSteal = 100, 2, v, 60
		}, 180, false, bottleneck.ClientCPU},
		"database CPU at 90% of its allowance": {func(e *bottleneck.Evidence, v float64) { e.DatabaseCPU, e.DatabaseCores = v, 1.5 },
			135, false, bottleneck.DatabaseCPU},
		"one-thread server at 90% of one core": {func(e *bottleneck.Evidence, v float64) {
			e.DatabaseCPU, e.DatabaseCores, e.DatabaseNodes, e.OneCoreServer = v, 2, 1, true
		}, 90, false, bottleneck.DatabaseCPU},
		"a one-thread server's thread demand at 90%": {func(e *bottleneck.Evidence, v float64) {
			e.DatabaseCPU, e.DatabaseThread, e.DatabaseCores, e.DatabaseNodes, e.OneCoreServer = 50, v, 2, 1, true
		}, 90, false, bottleneck.DatabaseCPU},
		"machine CPU at 90%": {func(e *bottleneck.Evidence, v float64) { e.MachineCPU, e.MachineCores = v, 2 }, 180, false, bottleneck.MachineCPU},
		"link at 90% of its capacity": {func(e *bottleneck.Evidence, v float64) { e.Link, e.LinkBps, e.LinkCapacityBps = "eth0", v, 1000 },
			900, false, bottleneck.Network},
		"a quarter of sessions on one wait": {func(e *bottleneck.Evidence, v float64) {
			e.Waits = []bottleneck.Wait{{Class: bottleneck.WaitRowLock, Share: v}}
		}, 0.25, false, bottleneck.RowLocks},
		"cache hit ratio below 90%": {func(e *bottleneck.Evidence, v float64) {
			e.CacheHitRatio, e.CacheName, e.DiskReadIOPS = v, "c", 1000
		}, 0.90, true, bottleneck.CacheMisses},
		"cache misses with 50 disk reads/s": {func(e *bottleneck.Evidence, v float64) {
			e.CacheHitRatio, e.CacheName, e.DiskReadIOPS = 0.5, "c", v
		}, 50, false, bottleneck.CacheMisses},
		"cache misses with disks half busy": {func(e *bottleneck.Evidence, v float64) {
			e.CacheHitRatio, e.CacheName, e.DiskBusyPercent = 0.5, "c", v
		}, 50, false, bottleneck.CacheMisses},
		"cache misses with a fifth waiting on I/O": {func(e *bottleneck.Evidence, v float64) {
			e.CacheHitRatio, e.CacheName, e.Waits = 0.5, "c", []bottleneck.Wait{{Class: bottleneck.WaitIO, Share: v}}
		}, 0.20, false, bottleneck.CacheMisses},
		"disks 80% busy": {func(e *bottleneck.Evidence, v float64) { e.DiskBusyPercent = v }, 80, false, bottleneck.Disk},
	} {
		t.Run(name, func(t *testing.T) {
			judge := func(v float64) bottleneck.Kind {
				e := bottleneck.Unknown()
				tc.at(&e, v)
				return bottleneck.Judge(e).Kind
			}
			holds, fails := tc.edge, tc.edge-eps*math.Max(1, tc.edge)
			if tc.below {
				holds, fails = fails, tc.edge
			}
			require.Equal(t, tc.kind, judge(holds), "at %v the rule holds", holds)
			require.Equal(t, bottleneck.NoneFound, judge(fails), "at %v it does not", fails)
		})
	}
}

// TestSaturated pins the CPU limit the flags share with the rules.
func TestSaturated(t *testing.T) {
	require.True(t, bottleneck.Saturated(90, 1))
	require.False(t, bottleneck.Saturated(89.99, 1))
	require.True(t, bottleneck.Saturated(180, 2))
	require.False(t, bottleneck.Saturated(179.9, 2))
	require.False(t, bottleneck.Saturated(math.NaN(), 1))
	require.False(t, bottleneck.Saturated(100, 0))
}
