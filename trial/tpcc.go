package trial

import (
	"context"
	"fmt"
	"time"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/workload/tpcc"
)

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
		return t.wrap(&driver.Error{Class: driver.ClassUnsupported,
			Err: fmt.Errorf("tpcc.warehouses %d: this driver's sessions cannot run SQL transactions (driver.SQLTransactor): no TPC-C on it", t.WorkloadConfig.TPCC.Warehouses)})
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
