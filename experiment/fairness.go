package experiment

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/dbarena/dbarena/analysis/bottleneck"
	"github.com/dbarena/dbarena/analysis/steady"
	"github.com/dbarena/dbarena/deploy/limits"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/sysmetrics"
)

// othersCPU is the CPU, in percent of one core, that processes outside
// the benchmark may take of a saturated machine before the machine, not
// the design, is blamed: on a quiet machine the kernel's own threads
// and the idle test servers took 0-10% in the runs behind issue 24.
const othersCPU = 20.0

// Thresholds of the client-bound and target-missed flags, each pinned by
// a test on both sides.
const (
	// busyWorkers is the share of a closed loop's workers that must be
	// waiting on the database on average (Little's law: throughput x
	// mean latency) for the client not to be the limit.
	busyWorkers = 0.7
	// reachedTarget is the share of a target rate a paced trial must
	// reach (the bottleneck verdict's rate-limited rule uses the same).
	reachedTarget = 0.95
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
	if len(cfg.Stages) > 0 || row.Kind != results.KindRun {
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
// saturated (bottleneck.Saturated) on average over the measured window,
// when that made the figures the machine's rather than the database's:
// the load generator and the database competed for its cores (shared),
// or processes outside the benchmark took othersCPU or more of it. A
// machine whose parts each had cores of their own is busy by design,
// and each part's own limit is judged apart (client-bound, the
// database's CPU verdict). It says what each part took.
func hostSaturated(u usage, shared bool, cores int) (results.Flag, bool) {
	m := u.machine
	if m == nil || !bottleneck.Saturated(m.MeanCPU, float64(cores)) {
		return "", false
	}
	others := u.others()
	intruded := others >= othersCPU
	if !shared && !intruded {
		return "", false
	}
	parts := []string{fmt.Sprintf("the load generator %.0f%%", u.client)}
	if u.dbHere > 0 {
		parts = append(parts, fmt.Sprintf("the database %.0f%%", u.dbHere))
	}
	parts = append(parts, fmt.Sprintf("other processes %.0f%%", others))
	advice := "use fewer threads, a separate loader machine, or cores of its own for the database (deploy.cpus with deploy.pin)"
	if intruded {
		advice = "processes outside the benchmark took a share of it: stop them, or run where nothing else runs"
	}
	return results.Flagf(results.FlagHostSaturated,
		"this machine was at %.0f%% CPU of %d%% on average (%s): the figures are the machine's limit, not the database's; %s",
		m.MeanCPU, cores*100, strings.Join(parts, ", "), advice), true
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

// keepOffDatabaseCores confines the load generator (this process, and
// the loader and reference processes it starts) to the cores a pinned
// local database was not given, until restore: by construction the
// client then never takes CPU from the database it measures, nor the
// database from it. It records both sets in the manifest. A target with
// no pinned host changes nothing.
func (tr *targetRun) keepOffDatabaseCores() (restore func() error, err error) {
	var taken []int
	for _, h := range tr.dep.Hosts() {
		taken = append(taken, h.Cores...)
	}
	if len(taken) == 0 {
		return func() error { return nil }, nil
	}
	free := limits.Others(sysmetrics.Affinity(), taken)
	if len(free) == 0 {
		return nil, fmt.Errorf("target %s: deploy.pin: the database took cores %v, every one this process may use; none is left for the load generator", tr.t.Name, taken)
	}
	restore, err = limits.ConfineSelf(free)
	if err != nil {
		return nil, fmt.Errorf("target %s: keep the load generator off the database's cores: %w", tr.t.Name, err)
	}
	slices.Sort(taken)
	s := tr.s
	s.mu.Lock()
	s.manifest.Targets[tr.index].DatabaseCores = taken
	s.manifest.Targets[tr.index].LoaderCores = free
	s.mu.Unlock()
	s.log.Info("cores", "target", tr.t.Name, "database", fmt.Sprint(taken), "load generator", fmt.Sprint(free))
	return restore, nil
}
