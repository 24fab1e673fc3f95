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
func (tr *targetRun) judge(row *results.Trial, viaLoaders bool, machines []machineCPU) {
	// A trial of a second or two has no sample that began inside it.
	if row.Status == results.StatusFailed || row.Operations == 0 || row.Duration < 2*tr.s.coll.Interval() {
		return
	}
	v := bottleneck.Judge(tr.evidence(row, viaLoaders, machines))
	row.Bottleneck, row.BottleneckWhy = string(v.Kind), v.Why
}

// evidence gathers a trial's figures for the judgement.
func (tr *targetRun) evidence(row *results.Trial, viaLoaders bool, machines []machineCPU) bottleneck.Evidence {
	n := math.NaN()
	e := bottleneck.Unknown()
	e.TargetRate, e.Throughput = row.TargetRate, row.Throughput
	if row.LoaderCPUs > 0 {
		e.ClientCPU, e.ClientCores = row.LoaderCPU, row.LoaderCPUs
	}
	u := tr.usage(row, viaLoaders, machines)
	if row.LoaderCPUs > 0 && !viaLoaders {
		e.ClientCoresBusy, e.ClientCoresSteal = clientCores(u.machine)
	}
	hosts := tr.dep.Hosts()
	local, limited := tr.local(), tr.t.Deploy.CPUs > 0
	if u.dbMeasured > 0 && u.dbMeasured == len(hosts) {
		e.DatabaseCPU, e.DatabaseNodes, e.DatabaseThread = u.dbCPU, len(hosts), u.dbThread
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
	readIOPS, busy := u.readIOPS, u.busy
	if m := u.machine; m != nil {
		// The load generator ran here: this machine's CPU was its (and
		// the database's, when that runs here too).
		e.MachineCPU, e.MachineCores, e.Shared, e.OtherCPU = m.MeanCPU, sysmetrics.MachineCPUCount(), local, u.others()
		if local {
			// And the database's disks are this machine's.
			readIOPS, busy = m.MeanDiskReadIOPS, m.MeanDiskBusyPercent
		}
		e.Link, e.LinkBps, e.LinkCapacityBps = m.NetLink, m.MeanNetLinkBps, m.NetLinkCapacityBps
	}
	if local || readIOPS > 0 || busy > 0 {
		e.DiskReadIOPS, e.DiskBusyPercent = readIOPS, busy
	}
	e.CacheName, e.CacheHitRatio = cacheRatio(row.DBFigures)
	e.Waits = waits(row.DBFigures)
	return e
}

// usage is the CPU of the parts of a trial over its measured window: the
// database's hosts, the load generator and the machine it ran on.
type usage struct {
	// machine is this machine's stats when the load generator ran here
	// (in this process or in loader processes here), else nil.
	machine *sysmetrics.Stats
	// dbCPU sums the database hosts measured, dbMeasured counts them;
	// dbHere is the part of dbCPU that ran on this machine. dbThread is
	// a single local host's main thread's share of time on a CPU or
	// waiting for one (NaN otherwise).
	dbCPU, dbHere, dbThread float64
	dbMeasured              int
	// client is the load generator's CPU on this machine: this process,
	// and the loader processes it started here.
	client float64
	// readIOPS and busy are remote database hosts' own disks.
	readIOPS, busy float64
}

// usage reads the trial's measured window from every host's samples.
func (tr *targetRun) usage(row *results.Trial, viaLoaders bool, machines []machineCPU) usage {
	u := usage{dbThread: math.NaN()}
	stats := map[string]sysmetrics.Stats{}
	for _, st := range tr.s.measuredStats(row) {
		stats[st.Host] = st
		switch st.Role {
		case sysmetrics.RoleMachine:
			if !viaLoaders || !tr.loaders().remote() {
				st := st
				u.machine = &st
			}
		case sysmetrics.RoleLoader:
			u.client += nanZero(st.MeanCPU)
		}
	}
	if viaLoaders && u.machine != nil {
		for _, m := range machines {
			u.client += m.percent
		}
	}
	for _, h := range tr.dep.Hosts() {
		st, ok := stats[h.Name]
		if !ok || math.IsNaN(st.MeanCPU) {
			continue
		}
		u.dbMeasured++
		u.dbCPU += st.MeanCPU
		if h.PID > 0 {
			u.dbHere += st.MeanCPU
			if len(tr.dep.Hosts()) == 1 {
				u.dbThread = st.MeanLeadThreadPercent
			}
		}
		if h.MetricsURL != "" { // a whole remote host: its own disks
			u.readIOPS += nanZero(st.MeanDiskReadIOPS)
			u.busy = math.Max(u.busy, nanZero(st.MeanDiskBusyPercent))
		}
	}
	return u
}

// others is the CPU this machine spent outside the benchmark: neither
// the load generator nor the database (NaN when the machine is not
// this one's).
func (u usage) others() float64 {
	if u.machine == nil || math.IsNaN(u.machine.MeanCPU) {
		return math.NaN()
	}
	return math.Max(u.machine.MeanCPU-u.client-u.dbHere, 0)
}

// clientCores is how busy the cores this process (the load generator)
// may run on were, and the hypervisor's steal on them, from this
// machine's stats m: NaN when not measured, or when those cores are all
// of the machine's (the machine's CPU then says the same).
func clientCores(m *sysmetrics.Stats) (busy, steal float64) {
	cores := sysmetrics.Affinity()
	if m == nil || len(m.MeanCoreBusy) == 0 || len(cores) >= len(m.MeanCoreBusy) {
		return math.NaN(), math.NaN()
	}
	for _, c := range cores {
		b, ok := m.MeanCoreBusy[c]
		if !ok {
			return math.NaN(), math.NaN()
		}
		busy, steal = busy+b, steal+m.MeanCoreSteal[c]
	}
	return busy, steal
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

// waits reads the database's waits from its figures: a driver names a
// class's share <db>_<class>_wait_share and each of its events' share
// <db>_<class>_wait_share_<Type>_<Event> ("pg_wal_flush_wait_share" and
// "pg_wal_flush_wait_share_LWLock_WALWrite"). The database's prefix
// holds no "_", nor does an event's type.
func waits(figures map[string]float64) []bottleneck.Wait {
	var out []bottleneck.Wait
	for _, c := range bottleneck.WaitClasses() {
		w := bottleneck.Wait{Class: c, Share: math.NaN()}
		for name, v := range figures {
			_, rest, ok := strings.Cut(name, "_")
			if !ok {
				continue
			}
			switch {
			case rest == string(c)+"_wait_share":
				w.Share = v
			case strings.HasPrefix(rest, string(c)+"_wait_share_"):
				typ, event, _ := strings.Cut(strings.TrimPrefix(rest, string(c)+"_wait_share_"), "_")
				w.Events = append(w.Events, bottleneck.Event{Name: typ + ":" + event, Share: v})
			}
		}
		if math.IsNaN(w.Share) {
			continue
		}
		sort.Slice(w.Events, func(i, j int) bool {
			if w.Events[i].Share != w.Events[j].Share {
				return w.Events[i].Share > w.Events[j].Share
			}
			return w.Events[i].Name < w.Events[j].Name
		})
		out = append(out, w)
	}
	return out
}

func nanZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}
