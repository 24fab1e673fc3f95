package experiment

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/dbarena/dbarena/analysis/bottleneck"
	"github.com/dbarena/dbarena/analysis/interference"
	"github.com/dbarena/dbarena/analysis/objective"
	"github.com/dbarena/dbarena/analysis/steady"
	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/internal/cgroup"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/sysmetrics"
)

// Thresholds of the client-bound and target-missed flags, each pinned by
// a test on both sides.
const (
	// busyWorkers is the share of a closed loop's workers that must be
	// waiting on the database on average (Little's law: throughput x
	// mean latency) for the client not to be the limit.
	busyWorkers = 0.7
	// reachedTarget is the share of a target rate a paced trial must
	// reach: the objective's default (the bottleneck verdict's
	// rate-limited rule uses the same).
	reachedTarget = objective.DefaultAchieved
)

// A trial stalled at its end when an operation due in its window had
// waited at least stallMin when the window closed, and stallOverP99
// times the completed operations' p99: a database whose scans take two
// seconds has operations two seconds old at every end.
const (
	stallMin     = time.Second
	stallOverP99 = 5
)

// stalledAtEnd reports whether the oldest operation the window's end
// cut off waited long enough to call it a stall.
func stalledAtEnd(oldest, completedP99 time.Duration) bool {
	return oldest >= stallMin && oldest >= stallOverP99*completedP99
}

// workersIdle reports whether fewer than busyWorkers of threads workers
// were waiting on the database on average (concurrency by Little's
// law): the rest of their time went to the client.
func workersIdle(concurrency float64, threads int) bool {
	return threads > 0 && concurrency > 0 && concurrency < busyWorkers*float64(threads)
}

// missedTarget reports whether a paced trial ran below reachedTarget of
// its target rate.
func missedTarget(throughput, target float64) bool {
	return target > 0 && throughput < reachedTarget*target
}

// fairness flags what makes a trial's figures describe something other
// than the database: a machine at its CPU limit where the load generator
// ran (with the database, when it runs there too), and a throughput that
// moved across the measured window. A trial with stages is not judged
// steady: its rate moves by design.
func (tr *targetRun) fairness(row *results.Trial, cfg runner.Config, viaLoaders bool, machines []machineCPU, rates []float64) {
	u := tr.usage(row, viaLoaders, machines)
	if f, ok := hostSaturated(u, tr.sharesCores(), sysmetrics.MachineCPUCount()); ok {
		row.Flags = append(row.Flags, f)
	}
	if f, ok := tr.interference(row, viaLoaders); ok {
		row.Flags = append(row.Flags, f)
	}
	if len(cfg.Stages) > 0 {
		return
	}
	judgeSteady(row, rates)
}

// judgeSteady flags a measured run whose throughput moved across its
// window (analysis/steady): its mean describes a moving target.
func judgeSteady(row *results.Trial, rates []float64) {
	if row.Kind != results.KindRun {
		return
	}
	if t := steady.Fit(rates); t.Trending() {
		dir := "climbed"
		if t.Drift < 0 {
			dir = "fell"
		}
		row.Flags = append(row.Flags, results.Flagf(results.FlagNotSteady,
			"throughput %s by %.0f%% of its mean across the %d measured intervals (trend t=%.1f): the mean describes a moving target; warm up longer (warmup: until steady)",
			dir, 100*math.Abs(t.Drift), t.N, t.T))
	}
}

// hostSaturated flags a trial whose load generator's machine was
// saturated (bottleneck.Saturated) on average over the measured window
// while the load generator and the database competed for its cores
// (shared): the figures are then the machine's rather than the
// database's. What processes outside the benchmark took, of shared
// cores or of cores of their own, is judged apart, core by core
// (interference). It says what each part took.
func hostSaturated(u usage, shared bool, cores int) (results.Flag, bool) {
	m := u.machine
	if m == nil || !shared || !bottleneck.Saturated(m.MeanCPU, float64(cores)) {
		return "", false
	}
	parts := []string{fmt.Sprintf("the load generator %.0f%%", u.client)}
	if u.dbHere > 0 {
		parts = append(parts, fmt.Sprintf("the database %.0f%%", u.dbHere))
	}
	parts = append(parts, fmt.Sprintf("other processes %.0f%%", u.others()))
	return results.Flagf(results.FlagHostSaturated,
		"this machine was at %.0f%% CPU of %d%% on average (%s): the figures are the machine's limit, not the database's; use fewer threads, a separate loader machine, or cores of its own for the database (deploy.cpus with deploy.pin)",
		m.MeanCPU, cores*100, strings.Join(parts, ", ")), true
}

// sharesCores reports whether the load generator and the target's local
// database may run on the same cores: a database host not confined to
// cores of its own, or confined to some of the load generator's. A
// remote database shares none.
func (tr *targetRun) sharesCores() bool {
	mine := sysmetrics.Affinity()
	for _, h := range tr.dep.Hosts() {
		if h.PID == 0 {
			continue
		}
		if len(h.Cores) == 0 {
			return true
		}
		for _, c := range h.Cores {
			if len(mine) == 0 || slices.Contains(mine, c) {
				return true
			}
		}
	}
	return false
}

// databaseCores are the cores the target's local database hosts were
// pinned to (nil: none pinned).
func (tr *targetRun) databaseCores() []int {
	var taken []int
	for _, h := range tr.dep.Hosts() {
		taken = append(taken, h.Cores...)
	}
	slices.Sort(taken)
	return slices.Compact(taken)
}

// recordCores records in the manifest the cores a pinned local database
// was given and those the load generator keeps while it is measured:
// every other core of pool. By construction the client then never takes
// CPU from the database it measures, nor the database from it.
func (tr *targetRun) recordCores(pool []int) error {
	taken := tr.databaseCores()
	if len(taken) == 0 {
		return nil
	}
	free := cgroup.Others(pool, taken)
	if len(free) == 0 {
		return fmt.Errorf("target %s: deploy.pin: the database took cores %v, every one this process may use; none is left for the load generator", tr.t.Name, taken)
	}
	s := tr.s
	s.mu.Lock()
	s.manifest.Targets[tr.index].DatabaseCores = taken
	s.manifest.Targets[tr.index].LoaderCores = free
	s.mu.Unlock()
	s.log.Info("cores", "target", tr.t.Name, "database", fmt.Sprint(taken), "load generator", fmt.Sprint(free))
	return nil
}

// interference flags a trial whose database or load generator lost a
// share of its cores to anything else over the measured window
// (analysis/interference): processes outside the benchmark, the
// hypervisor's steal, the experiment's idle targets. Judged where the
// database runs as local processes this run samples (the local and
// compose providers): one elsewhere on this machine (an existing
// endpoint, a pod) would read as other processes. A trial run by
// loaders elsewhere is judged on the database's cores alone.
func (tr *targetRun) interference(row *results.Trial, viaLoaders bool) (results.Flag, bool) {
	hosts := tr.dep.Hosts()
	if len(hosts) == 0 || slices.ContainsFunc(hosts, func(h deploy.Host) bool { return h.PID == 0 }) {
		return "", false
	}
	stats := map[string]sysmetrics.Stats{}
	var machine *sysmetrics.Stats
	var parts []interference.Part
	for _, st := range tr.s.measuredStats(row) {
		stats[st.Host] = st
		switch st.Role {
		case sysmetrics.RoleMachine:
			st := st
			machine = &st
		case sysmetrics.RoleLoader:
			if !viaLoaders || !tr.loaders().remote() {
				parts = append(parts, interference.Part{Name: "the load generator", Kind: interference.Client, Cores: sysmetrics.Affinity(), CPU: st.MeanCPU})
			}
		}
	}
	if machine == nil || len(machine.MeanCoreBusy) == 0 {
		return "", false
	}
	add := func(r *targetRun, kind interference.Kind) {
		for _, h := range r.dep.Hosts() {
			if h.PID == 0 {
				continue
			}
			cpu := math.NaN()
			if st, ok := stats[h.Name]; ok {
				cpu = st.MeanCPU
			}
			parts = append(parts, interference.Part{Name: r.t.Name, Kind: kind, Cores: h.Cores, CPU: cpu})
		}
	}
	add(tr, interference.Database)
	if tr.g != nil {
		for _, o := range tr.g.idle(tr) {
			add(o, interference.Idle)
		}
	}
	var hit []string
	for _, g := range interference.Groups(interference.Usage{Busy: machine.MeanCoreBusy, Steal: machine.MeanCoreSteal}, parts) {
		if g.Interfered() {
			hit = append(hit, g.Describe())
		}
	}
	if len(hit) == 0 {
		return "", false
	}
	return results.Flagf(results.FlagInterfered, "%s over the measured window, more than %.0f%% of their time: the figures are not the database's alone",
		strings.Join(hit, "; "), 100*interference.MaxShare), true
}
