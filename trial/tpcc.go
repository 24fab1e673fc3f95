package trial

import (
	"context"
	"fmt"
	"time"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload/tpcc"
)

// tpccPart is TPC-C's part in a trial: its nine tables, the optimizer's
// statistics and (with load.verify) every consistency condition after
// its load, the conditions after each run, its scale and pacing and the
// New-Orders rolled back among its counters.
type tpccPart struct{ corePart }

func (tpccPart) transactional() bool { return true }

// check refuses a verify phase (TPC-C holds no YCSB records) and a
// target rate or stages on spec-paced terminals (paced twice).
func (tpccPart) check(pl *Plan, phase runner.Phase) error {
	c := pl.WorkloadConfig
	if phase == runner.Verify {
		return fmt.Errorf("%s %d: the verify phase reads YCSB's records back, and a TPC-C database holds none; "+
			"TPC-C checks its consistency conditions instead: all 12 after a load with %s=true (--verify), 11 after every run",
			core.TPCCWarehouses, c.TPCC.Warehouses, core.Verify)
	}
	if c.TPCC.Mode == tpcc.Spec && (pl.Settings.Run.Target > 0 || len(pl.Settings.Run.Stages) > 0) {
		return fmt.Errorf("%s=%s paces each terminal by keying and think times; a target rate or stages would pace it twice: drop target (and stages), or set %s=%s",
			core.TPCCMode, tpcc.Spec, core.TPCCMode, tpcc.Unpaced)
	}
	return nil
}

func (tpccPart) ready(ctx context.Context, t *Trial, load bool) (bool, error) {
	return true, t.readyTPCC(ctx, load)
}

// afterLoad gathers the optimizer's statistics of what was loaded
// (without them the consistency checks' joins were planned for empty
// tables) and, with load.verify, checks every consistency condition,
// the loaded-only one too: a TPC-C load's read-back.
func (tpccPart) afterLoad(ctx context.Context, t *Trial, o *Outcome) bool {
	o.VerifyErr = t.bounded(ctx, "tpcc: the load's statistics (ANALYZE)", func(ctx context.Context) error {
		return t.withSQL(ctx, func(sx driver.SQLTransactor) error { return tpcc.Analyze(ctx, sx) })
	})
	if o.VerifyErr == nil && t.Settings.Verify {
		o.Audit, o.AuditErr = t.auditTPCC(ctx, true)
	}
	return true
}

func (tpccPart) audit(ctx context.Context, t *Trial, _ int) (results.Audit, error) {
	return t.auditTPCC(ctx, false)
}

// counters are the warehouses a load loaded, and a run's scale and
// pacing, which name its figures (results.TPCCFiguresOf).
func (tpccPart) counters(t *Trial) []results.Counter {
	c := t.WorkloadConfig.TPCC
	switch t.Settings.Run.Phase {
	case runner.Load:
		return []results.Counter{{Name: results.CounterTPCCLoaded, Value: float64(c.Warehouses), Help: "TPC-C warehouses loaded (with the items)"}}
	case runner.Transactions:
		spec := 0.0
		if c.Mode == tpcc.Spec {
			spec = 1
		}
		return []results.Counter{{Name: results.CounterTPCCWarehouses, Value: float64(c.Warehouses), Help: "TPC-C warehouses"},
			{Name: results.CounterTPCCSpecPaced, Value: spec, Help: "1: TPC-C spec pacing (keying and think times), 0: unpaced"},
			{Name: results.CounterTPCCTimeScale, Value: c.TimeScale, Help: "the scale of spec pacing's keying and think times"}}
	}
	return nil
}

func (tpccPart) resultCounters(res *runner.Result) []results.Counter {
	return []results.Counter{{Name: results.CounterTPCCRolledBack, Value: float64(res.RolledBack),
		Help: "New-Orders rolled back by their unused item (clause 2.4.1.4), counted done"}}
}

// withSQL runs fn on a session of its own that runs SQL transactions, or
// says that the driver's cannot.
func (t *Trial) withSQL(ctx context.Context, fn func(s driver.SQLTransactor) error) error {
	sess, err := t.DB.Session(ctx, 0)
	if err != nil {
		return t.wrap(err)
	}
	defer sess.Close()
	sx, ok := sess.(driver.SQLTransactor)
	if !ok {
		return t.wrap(runner.KindUnsupported(t.WorkloadConfig))
	}
	return t.wrap(fn(sx))
}

// readyTPCC readies TPC-C's tables: a load that may create them creates
// their database when missing and starts from empty ones (dropped if they exist: a TPC-C load replaces its
// database); a run needs as many warehouses loaded as it names.
func (t *Trial) readyTPCC(ctx context.Context, load bool) error {
	s := t.Settings
	if dc, ok := t.DB.(driver.DatabaseCreator); ok && load && (s.Drop || s.CreateSchema) {
		if err := dc.CreateDatabase(ctx); err != nil {
			return t.wrap(err)
		}
	}
	return t.withSQL(ctx, func(sx driver.SQLTransactor) error {
		if load && (s.Drop || s.CreateSchema) {
			return tpcc.CreateSchema(ctx, sx)
		}
		n, err := tpcc.Warehouses(ctx, sx)
		switch {
		case err != nil:
			return fmt.Errorf("tpcc: the tables are not there (load first): %w", err)
		case !load && n < t.WorkloadConfig.TPCC.Warehouses:
			return fmt.Errorf("tpcc.warehouses=%d but the database holds %d warehouses: load them first", t.WorkloadConfig.TPCC.Warehouses, n)
		}
		return nil
	})
}

// checkTPCC checks TPC-C's consistency conditions: all of them when
// initial (the database as loaded), otherwise those that hold after a
// run.
func (t *Trial) checkTPCC(ctx context.Context, initial bool) (*results.ConsistencyReport, error) {
	var rep *results.ConsistencyReport
	err := t.withSQL(ctx, func(sx driver.SQLTransactor) error {
		start := time.Now()
		verdicts, err := tpcc.Check(ctx, sx, initial)
		if err != nil {
			return err
		}
		rep = &results.ConsistencyReport{Seconds: time.Since(start).Seconds()}
		for _, v := range verdicts {
			rep.Conditions = append(rep.Conditions, results.ConditionVerdict{Number: v.Condition.Number, Rule: v.Condition.Rule,
				Broken: v.Broken, Evidence: v.Evidence})
		}
		return nil
	})
	return rep, err
}

// TPCCFigures are the outcome's TPC-C figures, named by its mode, for
// threads terminals; nil for a run that is not TPC-C's.
func (o *Outcome) TPCCFigures(threads int) *results.TPCCFigures {
	counters := map[string]float64{}
	for _, c := range o.Counters {
		counters[c.Name] = c.Value
	}
	if w := o.Result.Warmup; w != nil {
		counters[results.CounterTPCCRampUp] = w.Duration.Seconds()
	}
	var ops []results.Op
	for i := range o.Result.MeasuredResults {
		if r := &o.Result.MeasuredResults[i]; r.OK()+r.ErrorCount() > 0 {
			ops = append(ops, results.OpOf(r))
		}
	}
	return results.TPCCFiguresOf(counters, o.Result.Measured.Duration, threads, ops)
}
