package experiment

// A trial's row: its figures, the flags on its fairness and validity,
// and the machine's figures over its span.

import (
	"fmt"
	"math"
	"time"

	"github.com/dbarena/dbarena/analysis/bottleneck"
	"github.com/dbarena/dbarena/analysis/littles"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/sysmetrics"
)

// boundText is a trial's bottleneck on its progress line.
func boundText(row results.Trial) string {
	if row.Bottleneck == "" {
		return ""
	}
	return "\n  bound by: " + row.Bottleneck + " (" + row.BottleneckWhy + ")"
}

func flagText(flags []results.Flag) string {
	if len(flags) == 0 {
		return ""
	}
	out := ""
	for _, f := range flags {
		out += "\n  warning: " + string(f)
	}
	return out
}

// trialRow summarizes a finished trial and checks its validity.
func (tr *targetRun) trialRow(st *spec.Step, cfg runner.Config, res *runner.Result, viaLoaders bool, machines []machineCPU, rates []float64) results.Trial {
	m := res.Measured
	row := tr.rowOf(st, m.Start, res.End)
	row.Threads, row.TargetRate = cfg.Threads, cfg.Target
	row.Duration, row.Operations, row.Errors, row.Aborted = m.Duration, m.Operations, m.Errors, m.Aborted
	row.Throughput, row.ErrorRate, row.Status = m.OKThroughput, m.ErrorThroughput, results.StatusCompleted
	if m.Pacing != nil {
		row.Pacing = results.PacingOf(*m.Pacing)
	}
	for _, o := range m.Ops {
		row.Late += o.Late
	}
	if res.Interrupted {
		row.Status = results.StatusInterrupted
	}
	// waited holds every completed operation's latency, failures too:
	// a worker waits on a failing database as on a working one, and
	// Little's law counts both.
	all, waited := measure.NewHistogram(), measure.NewHistogram()
	for i := range res.MeasuredResults {
		r := &res.MeasuredResults[i]
		h := r.Latency()
		all.Merge(h)
		if r.Counted > 0 {
			waited.Merge(h)
			waited.Merge(r.ErrorLatency)
		}
		if r.OK() == 0 && r.ErrorCount() == 0 {
			continue
		}
		row.Ops = append(row.Ops, results.OpOf(r))
	}
	row.Latency = results.LatencyOf(measure.StatsOf(all))
	stallFlag(&row, res.MeasuredResults)
	row.Concurrency = littles.Concurrency(m.Throughput, time.Duration(waited.Mean()*float64(time.Nanosecond)))
	tr.s.validity(&row, cfg, res, viaLoaders, machines)
	tr.fairness(&row, cfg, viaLoaders, machines, rates)
	if late, pacing, service := res.PacingLate(); late {
		row.Flags = append(row.Flags, results.Flagf(results.FlagPacing, "the load generator started operations late (p99 %.0f µs after they were due, above the larger of 100 µs and a tenth of the service p99, %.0f µs): response times hold the tool's delay, not only the database's; give the load generator more CPU or fewer threads", pacing.P99, service.P99))
	}
	return row
}

// stallFlag flags a trial whose window closed on operations that had
// waited far longer than the others (stalledAtEnd). Redis silent for the
// last 4 s of a closed loop's window was "completed, p99 0.12 ms",
// flagged client-bound: the two operations it held counted nowhere.
func stallFlag(row *results.Trial, rs measure.Results) {
	cut, done := measure.NewHistogram(), measure.NewHistogram()
	for i := range rs {
		if rs[i].CutOff != nil {
			cut.Merge(rs[i].CutOff)
		}
		done.Merge(rs[i].Service)
	}
	if cut.TotalCount() == 0 {
		return
	}
	oldest := time.Duration(cut.Max())
	p99 := time.Duration(done.ValueAtQuantile(99))
	if !stalledAtEnd(oldest, p99) {
		return
	}
	row.Flags = append(row.Flags, results.Flagf(results.FlagStalled,
		"%d operations due in the window had not completed when it closed, the oldest after %s (the completed ones' p99: %s): the database stopped answering at the end; they count in the percentiles at their latency so far",
		cut.TotalCount(), oldest.Round(time.Millisecond), p99.Round(time.Microsecond)))
}

// validity flags a trial whose numbers describe the client more than the
// database: a loader CPU near saturation, workers that spent much of their
// time outside the database (Little's law), a target rate the threads
// could not reach, errors and interruptions. A trial run by loader
// processes is judged by the busiest loader machine, from the CPU the
// loaders reported themselves: this process only waited for them.
func (s *runState) validity(row *results.Trial, cfg runner.Config, res *runner.Result, viaLoaders bool, machines []machineCPU) {
	who := "the load generator"
	e := bottleneck.Unknown()
	if viaLoaders {
		// The loaders report their mean only: no peak (LoaderCPUMax 0).
		row.LoaderCPUs = 0
		for _, m := range machines {
			if row.LoaderCPUs == 0 || m.percent/float64(m.cores) > row.LoaderCPU/float64(row.LoaderCPUs) {
				row.LoaderCPU, row.LoaderCPUs = m.percent, m.cores
				who = m.name
			}
		}
		if len(machines) == 0 && s.log != nil {
			s.log.Warn("the loaders reported no CPU figures (a --loader-binary older than this dbarena?): this trial is not checked for a client bottleneck", "trial", row.ID)
		}
	} else {
		row.LoaderCPUs = sysmetrics.CPUCount()
		for _, st := range s.statsDuring(row.Start, row.End) {
			switch st.Role {
			case sysmetrics.RoleLoader:
				row.LoaderCPU, row.LoaderCPUMax = st.MeanCPU, st.MaxCPU
			case sysmetrics.RoleMachine:
				e.ClientCoresBusy, e.ClientCoresSteal = clientCores(&st)
			}
		}
	}
	e.ClientCPU, e.ClientCores = row.LoaderCPU, row.LoaderCPUs
	switch why, ok := bottleneck.ClientAtLimit(e); {
	case bottleneck.Saturated(row.LoaderCPU, float64(row.LoaderCPUs)):
		row.Flags = append(row.Flags, results.Flagf(results.FlagClientBound, "%s used %.0f%% CPU of %d%% available; the database may be faster than measured (use more or bigger load machines)", who, row.LoaderCPU, row.LoaderCPUs*100))
	case ok:
		row.Flags = append(row.Flags, results.Flagf(results.FlagClientBound, "%s; the database may be faster than measured (give the load generator cores nothing else takes)", why))
	}
	threads := float64(row.Threads)
	if cfg.Target == 0 && row.Kind == results.KindRun && workersIdle(row.Concurrency, row.Threads) {
		row.Flags = append(row.Flags, results.Flagf(results.FlagClientBound, "by Little's law only %.1f of %d workers were waiting on the database on average (throughput x mean latency); the rest of the time went to the client", row.Concurrency, row.Threads))
	}
	if missedTarget(row.Throughput, cfg.Target) {
		need := math.Ceil(littles.Concurrency(cfg.Target, time.Duration(row.Latency.Mean*float64(time.Microsecond))))
		msg := fmt.Sprintf("%.0f of %.0f ops/s", row.Throughput, cfg.Target)
		if need > threads {
			msg += fmt.Sprintf("; Little's law needs at least %.0f threads at this latency, the trial had %d", need, row.Threads)
		}
		row.Flags = append(row.Flags, results.NewFlag(results.FlagTargetMissed, msg))
	}
	if row.Errors > 0 {
		row.Flags = append(row.Flags, results.ErrorsFlag(row.Errors, row.Operations))
	}
	if res.Interrupted {
		row.Flags = append(row.Flags, results.InterruptedFlag())
	}
	if res.ErrorStopped {
		row.Flags = append(row.Flags, results.NewFlag(results.FlagStoppedEarly, res.StopReason))
	}
	if row.Aborted > 0 {
		row.Flags = append(row.Flags, results.Flagf(results.FlagAborted, "%d operations in flight when the run stopped were cut short (in neither throughput nor errors; in the percentiles at their latency so far)", row.Aborted))
	}
}

// statsDuring summarizes every host's samples from..to.
func (s *runState) statsDuring(from, to time.Time) []sysmetrics.Stats {
	s.mu.Lock()
	samples := append([]sysmetrics.Sample(nil), s.samples...)
	s.mu.Unlock()
	return sysmetrics.Summarize(samples, from, to)
}

// measuredStats summarizes every host's samples over a trial's measured
// window. A sample's rates cover the interval that ends at its time, so
// the first one counted is the first that began inside the window: one
// that began before it mixes in the quieter set-up.
func (s *runState) measuredStats(row *results.Trial) []sysmetrics.Stats {
	return s.statsDuring(s.measuredFrom(row.Start), row.End)
}
