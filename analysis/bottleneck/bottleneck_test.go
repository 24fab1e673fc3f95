package bottleneck_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/analysis/bottleneck"
)

// unknown is evidence with nothing measured.
func unknown() bottleneck.Evidence {
	n := math.NaN()
	return bottleneck.Evidence{ClientCPU: n, DatabaseCPU: n, MachineCPU: n, DiskReadIOPS: n, DiskBusyPercent: n,
		CacheHitRatio: n, LockWaitShare: n, IOWaitShare: n}
}

func TestRules(t *testing.T) {
	for name, tc := range map[string]struct {
		edit func(e *bottleneck.Evidence)
		want bottleneck.Kind
		why  string
	}{
		"nothing measured": {func(e *bottleneck.Evidence) {}, bottleneck.NoneFound, "no figures"},
		"target reached":   {func(e *bottleneck.Evidence) { e.TargetRate, e.Throughput = 1000, 990 }, bottleneck.RateLimited, "990 of the 1000"},
		"target missed":    {func(e *bottleneck.Evidence) { e.TargetRate, e.Throughput = 1000, 900 }, bottleneck.NoneFound, ""},
		"client":           {func(e *bottleneck.Evidence) { e.ClientCPU, e.ClientCores = 96, 1 }, bottleneck.ClientCPU, "96% CPU of 100%"},
		"database at its limit": {func(e *bottleneck.Evidence) { e.DatabaseCPU, e.DatabaseCores = 48, 0.5 },
			bottleneck.DatabaseCPU, "48% CPU of 50% allowed"},
		"one core of two": {func(e *bottleneck.Evidence) {
			e.DatabaseCPU, e.DatabaseCores, e.DatabaseNodes, e.OneCoreServer = 99, 2, 1, true
		}, bottleneck.DatabaseCPU, "one saturated core"},
		"one core's worth of a server of many threads": {func(e *bottleneck.Evidence) {
			e.DatabaseCPU, e.DatabaseCores, e.DatabaseNodes = 99, 2, 1
		}, bottleneck.NoneFound, ""},
		"three nodes at a third each": {func(e *bottleneck.Evidence) {
			e.DatabaseCPU, e.DatabaseCores, e.DatabaseNodes, e.OneCoreServer = 100, 6, 3, true
		}, bottleneck.NoneFound, ""},
		"two cores of four busy": {func(e *bottleneck.Evidence) { e.DatabaseCPU, e.DatabaseCores = 200, 4 }, bottleneck.NoneFound, ""},
		"shared machine": {func(e *bottleneck.Evidence) { e.Shared, e.MachineCPU, e.MachineCores = true, 185, 2 },
			bottleneck.MachineCPU, "185% CPU of 200%"},
		"machine busy, database elsewhere": {func(e *bottleneck.Evidence) { e.MachineCPU, e.MachineCores = 185, 2 },
			bottleneck.MachineCPU, "running the load generator was at 185%"},
		"locks": {func(e *bottleneck.Evidence) { e.LockWaitShare = 0.5 }, bottleneck.LockWaits, "50% of active sessions"},
		"cache misses from disk": {func(e *bottleneck.Evidence) {
			e.CacheHitRatio, e.CacheName, e.DiskReadIOPS = 0.6, "pg_cache_hit_ratio", 800
		}, bottleneck.CacheMisses, "pg_cache_hit_ratio 60.0%, 800 disk reads/s"},
		"misses the page cache served": {func(e *bottleneck.Evidence) {
			e.CacheHitRatio, e.CacheName, e.DiskReadIOPS, e.DiskBusyPercent = 0.6, "pg_cache_hit_ratio", 2, 1
		}, bottleneck.NoneFound, ""},
		"disk": {func(e *bottleneck.Evidence) { e.DiskBusyPercent = 95 }, bottleneck.Disk, "95% busy"},
		"client first, database also": {func(e *bottleneck.Evidence) {
			e.ClientCPU, e.ClientCores, e.DatabaseCPU, e.DatabaseCores = 195, 2, 50, 0.5
		}, bottleneck.ClientCPU, "also database CPU: the database used 50%"},
	} {
		t.Run(name, func(t *testing.T) {
			e := unknown()
			tc.edit(&e)
			v := bottleneck.Judge(e)
			require.Equal(t, tc.want, v.Kind, v.Why)
			require.Contains(t, v.Why, tc.why)
		})
	}
}
