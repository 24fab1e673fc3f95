package experiment

import (
	"math"
	"sort"
	"strings"

	"github.com/dbarena/dbarena/analysis/bottleneck"
	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/sysmetrics"
)

// judge names what bound a trial (analysis/bottleneck) from its row, the
// hosts' samples over its measured window (the seconds that began inside
// it) and the database's own figures, and writes it into the row.
func (tr *targetRun) judge(row *results.Trial, viaLoaders bool) {
	// A trial of a second or two has no sample that began inside it.
	if row.Status == results.StatusFailed || row.Operations == 0 || row.Duration < 2*tr.s.coll.Interval() {
		return
	}
	v := bottleneck.Judge(tr.evidence(row, viaLoaders))
	row.Bottleneck, row.BottleneckWhy = string(v.Kind), v.Why
}

// evidence gathers a trial's figures for the judgement.
func (tr *targetRun) evidence(row *results.Trial, viaLoaders bool) bottleneck.Evidence {
	n := math.NaN()
	e := bottleneck.Evidence{TargetRate: row.TargetRate, Throughput: row.Throughput,
		ClientCPU: row.LoaderCPU, ClientCores: row.LoaderCPUs,
		DatabaseCPU: n, MachineCPU: n, DiskReadIOPS: n, DiskBusyPercent: n, CacheHitRatio: n, LockWaitShare: n, IOWaitShare: n}
	if row.LoaderCPUs == 0 {
		e.ClientCPU = n
	}
	stats := map[string]sysmetrics.Stats{}
	var machine *sysmetrics.Stats
	for _, st := range tr.s.measuredStats(row) {
		stats[st.Host] = st
		if st.Role == sysmetrics.RoleMachine {
			machine = &st
		}
	}
	hosts := tr.dep.Hosts()
	local, limited := tr.local(), tr.t.Deploy.CPUs > 0
	var dbCPU, readIOPS, busy float64
	measured := 0
	for _, h := range hosts {
		st, ok := stats[h.Name]
		if !ok || math.IsNaN(st.MeanCPU) {
			continue
		}
		measured++
		dbCPU += st.MeanCPU
		if h.MetricsURL != "" { // a whole remote host: its own disks
			readIOPS += nanZero(st.MeanDiskReadIOPS)
			busy = math.Max(busy, nanZero(st.MeanDiskBusyPercent))
		}
	}
	if measured > 0 && measured == len(hosts) {
		e.DatabaseCPU, e.DatabaseNodes = dbCPU, len(hosts)
		if db, err := deploy.LookupDatabase(tr.t.Database); err == nil {
			e.OneCoreServer = db.OneCore
		}
		switch {
		case limited:
			e.DatabaseCores = tr.t.Deploy.CPUs * float64(len(hosts))
		case local:
			// Local servers inherit this process's affinity.
			e.DatabaseCores = float64(sysmetrics.CPUCount())
		default:
			e.DatabaseCPU = n // a remote host's cores are not known
		}
	}
	if machine != nil && !viaLoaders {
		// The load generator ran here: this machine's CPU was its.
		e.MachineCPU, e.MachineCores, e.Shared = machine.MeanCPU, sysmetrics.MachineCPUCount(), local
		if local {
			// And the database's, with the disks.
			readIOPS, busy = machine.MeanDiskReadIOPS, machine.MeanDiskBusyPercent
		}
	}
	if local || readIOPS > 0 || busy > 0 {
		e.DiskReadIOPS, e.DiskBusyPercent = readIOPS, busy
	}
	e.CacheName, e.CacheHitRatio = cacheRatio(row.DBFigures)
	e.LockWaitShare = figureEnding(row.DBFigures, "_lock_wait_share")
	e.IOWaitShare = figureEnding(row.DBFigures, "_io_wait_share")
	return e
}

// cacheRatio is the lowest of a database's cache hit ratios (its block,
// buffer pool, row or key cache; not Redis' keyspace hits, whose misses
// are absent keys), and its name.
func cacheRatio(figures map[string]float64) (string, float64) {
	names := make([]string, 0, len(figures))
	for k := range figures {
		if strings.HasSuffix(k, "_hit_ratio") && (strings.Contains(k, "cache") || strings.Contains(k, "buffer_pool")) {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	best, v := "", math.NaN()
	for _, k := range names {
		if math.IsNaN(v) || figures[k] < v {
			best, v = k, figures[k]
		}
	}
	return best, v
}

// figureEnding is the figure whose name ends with suffix (NaN: none).
func figureEnding(figures map[string]float64, suffix string) float64 {
	for k, v := range figures {
		if strings.HasSuffix(k, suffix) {
			return v
		}
	}
	return math.NaN()
}

func nanZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}
