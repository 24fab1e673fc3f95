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

// Outcome is what running a trial in this process gave.
type Outcome struct {
	Result *runner.Result
	// Verify is the report of a verify phase, or of the read-back a
	// load whose settings ask for it ran once it ended on its own and
	// within the error policy (nil when there was none).
	Verify *results.VerifyReport
	// VerifyErr is why that read-back could not run.
	VerifyErr error
	// Audit is the check of the workload's invariants after its run
	// phase: a ledger's accounts, TPC-C's consistency conditions (nil
	// for a workload without, or a run stopped by its context); AuditErr
	// why it could not run.
	Audit    results.Audit
	AuditErr error
	// Counters are the driver's own counts (driver.CounterSource).
	Counters []results.Counter
}

// Run runs the trial's phase with its settings and the observers, then
// what every run of a trial records besides: the read-back of a load
// that asks for it, a verify phase's report, a ledger's audit, and the
// driver's counts.
// `dbarena ycsb` and an experiment's trials run in one process both
// take this path, so that a trial records the same facts however it is
// started. The error is the runner's: nothing was measured.
func (t *Trial) Run(ctx context.Context, observers ...runner.Observer) (*Outcome, error) {
	cfg := t.Settings.Run
	cfg.FirstWorker = t.FirstWorker
	sampler := t.startLedgerSampler(ctx)
	res, err := runner.Run(ctx, cfg, t.Workload, t.DB, observers...)
	during := sampler.stop()
	if err != nil {
		return nil, err
	}
	o := &Outcome{Result: res}
	switch {
	case res.Phase == runner.Verify:
		o.Verify = runner.NewVerifyReport(res, t.WorkloadConfig.DataIntegrity)
	case res.Phase == runner.Load && t.WorkloadConfig.IsTPCC() && !res.Interrupted && res.Failure() == "":
		// The optimizer's statistics of what was loaded: without them
		// the consistency checks' joins were planned for empty tables.
		o.VerifyErr = t.bounded(ctx, "tpcc: the load's statistics (ANALYZE)", func(ctx context.Context) error {
			return t.withSQL(ctx, func(sx driver.SQLTransactor) error { return tpcc.Analyze(ctx, sx) })
		})
		if o.VerifyErr == nil && t.Settings.Verify {
			// A TPC-C load's read-back: every consistency condition,
			// the loaded-only one too.
			o.Audit, o.AuditErr = t.auditTPCC(ctx, true)
		}
	case res.Phase == runner.Load && t.Settings.Verify && !res.Interrupted && res.Failure() == "":
		o.Verify, o.VerifyErr = runner.VerifyLoad(ctx, t.Settings.Run, t.WorkloadConfig, t.DB)
	case res.Phase == runner.Transactions && !t.Settings.Shared && ctx.Err() == nil:
		// The invariants must hold however the run ended, once no
		// transaction is in flight: not while a worker is still in one.
		if res.LeftBehind > 0 && (t.WorkloadConfig.IsLedger() || t.WorkloadConfig.IsTPCC()) {
			if o.AuditErr = t.settle(ctx, res); o.AuditErr != nil {
				break
			}
		}
		o.Audit, o.AuditErr = t.Audit(ctx, t.Settings.Run.Threads)
		if r, ok := o.Audit.(*results.LedgerReport); ok {
			r.During = during
		}
	}
	if ctx.Err() != nil {
		// Stopped during what followed the run (a read-back, an
		// audit): the results are an interrupted run's.
		res.Interrupted = true
	}
	o.Counters = t.Counters()
	if res.Phase == runner.Transactions {
		switch {
		case t.WorkloadConfig.IsTPCC():
			o.Counters = append(o.Counters, results.Counter{Name: results.CounterTPCCRolledBack, Value: float64(res.RolledBack),
				Help: "New-Orders rolled back by their unused item (clause 2.4.1.4), counted done"})
		case t.WorkloadConfig.IsLedger():
			o.Counters = append(o.Counters, results.Counter{Name: results.CounterLedgerDeclined, Value: float64(res.Declined),
				Help: "transfers declined: the payer would go below the floor, counted done"})
		}
	}
	return o, nil
}

// auditTimeout is the bound of each check after a phase (audit.timeout).
func (t *Trial) auditTimeout() time.Duration {
	if d := t.Settings.AuditTimeout; d > 0 {
		return d
	}
	return DefaultAuditTimeout
}

// bounded runs fn, a check named what, within audit.timeout: a database
// that stopped answering (a frozen server, a lock held elsewhere) gets
// an error that says so, not a wait without end.
func (t *Trial) bounded(ctx context.Context, what string, fn func(ctx context.Context) error) error {
	d := t.auditTimeout()
	bctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := fn(bctx)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("%s: interrupted before it ended: %w", what, err)
	case bctx.Err() != nil:
		return fmt.Errorf("%s: not finished within %s=%s: the database did not answer in time, and nothing is judged (a larger database may need more)",
			what, core.AuditTimeout, d)
	}
	return err
}

// settle waits, within audit.timeout, for the workers a frozen database
// left in a transaction at the run's end to return (their calls were
// cancelled), so that the audit reads no transaction half done.
func (t *Trial) settle(ctx context.Context, res *runner.Result) error {
	notSettled := fmt.Errorf("audit: not run: %d workers were still in a transaction when the run ended, and the audit would read it half done", res.LeftBehind)
	if res.Settled == nil {
		return notSettled
	}
	return t.bounded(ctx, "audit: waiting for the workers still in a transaction", func(ctx context.Context) error {
		select {
		case <-res.Settled:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", notSettled, ctx.Err())
		}
	})
}

// Audit checks the workload's invariants after its run phase, with
// threads readers where it reads record by record: a ledger's accounts,
// TPC-C's consistency conditions.
// It returns nil for a workload without. The check is bounded by
// audit.timeout.
func (t *Trial) Audit(ctx context.Context, threads int) (results.Audit, error) {
	switch {
	case t.WorkloadConfig.IsLedger():
		var r *results.LedgerReport
		err := t.bounded(ctx, "ledger audit", func(ctx context.Context) (err error) {
			r, err = runner.AuditLedger(ctx, threads, t.WorkloadConfig, t.DB)
			return err
		})
		if r == nil {
			return nil, err
		}
		return r, err
	case t.WorkloadConfig.IsTPCC():
		return t.auditTPCC(ctx, false)
	}
	return nil, nil
}

// auditTPCC checks TPC-C's consistency conditions within audit.timeout:
// all of them on the database as loaded (initial), all but the
// loaded-only one after a run.
func (t *Trial) auditTPCC(ctx context.Context, initial bool) (results.Audit, error) {
	var r *results.ConsistencyReport
	err := t.bounded(ctx, "TPC-C consistency check", func(ctx context.Context) (err error) {
		r, err = t.checkTPCC(ctx, initial)
		return err
	})
	if r == nil {
		return nil, err
	}
	return r, err
}

// Counters are the driver's own counts so far (driver.CounterSource;
// nil for a driver without).
// A TPC-C run adds its scale and pacing, which name its figures
// (results.TPCCFiguresOf).
func (t *Trial) Counters() []results.Counter {
	var out []results.Counter
	if c := t.WorkloadConfig.TPCC; t.WorkloadConfig.IsTPCC() && t.Settings.Run.Phase == runner.Load {
		out = append(out, results.Counter{Name: results.CounterTPCCLoaded, Value: float64(c.Warehouses), Help: "TPC-C warehouses loaded (with the items)"})
	}
	if c := t.WorkloadConfig.TPCC; t.WorkloadConfig.IsTPCC() && t.Settings.Run.Phase == runner.Transactions {
		spec := 0.0
		if c.Mode == tpcc.Spec {
			spec = 1
		}
		out = append(out, results.Counter{Name: results.CounterTPCCWarehouses, Value: float64(c.Warehouses), Help: "TPC-C warehouses"},
			results.Counter{Name: results.CounterTPCCSpecPaced, Value: spec, Help: "1: TPC-C spec pacing (keying and think times), 0: unpaced"},
			results.Counter{Name: results.CounterTPCCTimeScale, Value: c.TimeScale, Help: "the scale of spec pacing's keying and think times"})
	}
	cs, ok := t.DB.(driver.CounterSource)
	if !ok {
		return out
	}
	for _, c := range cs.Counters() {
		out = append(out, results.Counter{Name: c.Name, Value: c.Value, Help: c.Help})
	}
	return out
}
