package experiment

import (
	"context"
	"time"

	"github.com/dbarena/dbarena/dbmetrics"
	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/trial"
)

// onDBMetrics writes one round of database metrics, labelled with the
// trial that was running.
func (s *runState) onDBMetrics(rows []results.DBMetric) {
	s.mu.Lock()
	trial, target, hosts := s.trial, s.target, s.targetHosts
	s.mu.Unlock()
	// Another target's database, deployed beside the measured one and
	// not paused, is not in the trial: its rows say so by carrying none.
	var mine []results.DBMetric
	for i := range rows {
		if hosts == nil || hosts[rows[i].Host] {
			rows[i].Trial = trial
			mine = append(mine, rows[i])
		}
	}
	if s.opts.Live != nil && len(mine) > 0 {
		s.opts.Live.DBMetrics(target, mine)
	}
	if err := s.w.AddDBMetrics(rows); err != nil {
		s.log.Warn("dbmetrics not written", "err", err)
	}
}

// metricsSource names a target's database in the sampler; the driver's
// own counters of the running trial are another source.
func (tr *targetRun) metricsSource() string  { return "database/" + tr.t.Name }
func (tr *targetRun) countersSource() string { return "counters/" + tr.t.Name }

// metricsHost is the host a database's rows carry when its metrics do
// not name a node: the deployment's first host, or the target's name.
func (tr *targetRun) metricsHost() string {
	if hs := tr.dep.Hosts(); len(hs) > 0 {
		return hs[0].Name
	}
	return tr.t.Name
}

// watchDatabase starts sampling the target's database once its first
// trial has made it ready (before a load, the database or keyspace the
// metrics live in may not exist): on a DB of its own, with one
// connection, so that the workers' connections carry only the workload.
// A driver that reads no database metrics is left alone; one that
// cannot open is reported once and the run goes on without.
func (tr *targetRun) watchDatabase(ctx context.Context, p *trial.Trial) {
	if tr.metricsTried {
		return
	}
	tr.metricsTried = true
	mr, closeDB, err := p.OpenMetrics(ctx, tr.s.log)
	if err != nil {
		tr.s.log.Warn("database metrics: no connection of their own; the run goes on without them", "target", tr.t.Name, "err", err)
		return
	}
	if mr == nil {
		return
	}
	tr.closeMetrics = closeDB
	if tr.metricsPaused && tr.s.dbm.Reattach(tr.metricsSource(), mr) {
		tr.metricsPaused = false
		return
	}
	tr.s.dbm.Add(tr.metricsSource(), tr.metricsHost(), tr.t.Database, mr)
}

// detachDatabase stops sampling the target's database while it is
// paused, and closes its connection: a client left connected to a
// stopped server times out and reconnects in a loop. The figures read
// so far stay; its next trial opens a connection again.
func (tr *targetRun) detachDatabase() {
	if tr.closeMetrics == nil {
		return
	}
	tr.s.dbm.Pause(tr.metricsSource())
	tr.closeMetrics()
	tr.closeMetrics, tr.metricsTried, tr.metricsPaused = nil, false, true
}

// watchCounters samples the running trial's driver counters, when its
// driver keeps any (DynamoDB's consumed capacity and throttles), until
// the returned function is called.
func (tr *targetRun) watchCounters(db driver.DB) (stop func()) {
	cs, ok := db.(driver.CounterSource)
	if !ok {
		return func() {}
	}
	tr.s.dbm.Add(tr.countersSource(), tr.metricsHost(), tr.t.Database, dbmetrics.FromCounters(cs))
	return func() { tr.s.dbm.Remove(tr.countersSource()) }
}

// dbFigures are the database's ratios over a trial's measured window:
// the intervals that began inside it (measuredFrom). The points before its end are
// dropped afterwards, so a long run holds one trial's at a time.
func (tr *targetRun) dbFigures(start, end time.Time) map[string]float64 {
	f := tr.s.dbm.Figures(tr.metricsSource(), tr.s.measuredFrom(start), end)
	tr.s.dbm.Forget(tr.metricsSource(), end)
	if len(f) == 0 {
		return nil
	}
	return f
}

// unwatchDatabase stops sampling the target's database, records its
// ratios over the target's whole life in the manifest (with the
// figures other sources gave it), and closes its connection.
func (tr *targetRun) unwatchDatabase() {
	if tr.closeMetrics == nil && !tr.metricsPaused {
		return
	}
	totals := tr.s.dbm.Totals(tr.metricsSource())
	tr.s.dbm.Remove(tr.metricsSource())
	if tr.closeMetrics != nil {
		tr.closeMetrics()
	}
	tr.closeMetrics, tr.metricsPaused = nil, false
	if len(totals) == 0 {
		return
	}
	tr.s.mu.Lock()
	defer tr.s.mu.Unlock()
	ti := &tr.s.manifest.Targets[tr.index]
	if ti.Native == nil {
		ti.Native = map[string]float64{}
	}
	for k, v := range totals {
		ti.Native[k] = v
	}
}
