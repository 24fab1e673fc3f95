package trial

import (
	"context"
	"fmt"
	"time"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
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
	part := partOf(t.WorkloadConfig.Kind)
	stop := part.watch(ctx, t)
	res, err := runner.Run(ctx, cfg, t.Workload, t.DB, observers...)
	attach := stop()
	if err != nil {
		return nil, err
	}
	o := &Outcome{Result: res}
	loaded := res.Phase == runner.Load && !res.Interrupted && res.Failure() == ""
	switch {
	case res.Phase == runner.Verify:
		o.Verify = runner.NewVerifyReport(res, t.WorkloadConfig.DataIntegrity)
	case loaded && part.afterLoad(ctx, t, o):
	case loaded && t.Settings.Verify:
		o.Verify, o.VerifyErr = runner.VerifyLoad(ctx, t.Settings.Run, t.WorkloadConfig, t.DB)
	case res.Phase == runner.Transactions && !t.Settings.Shared && ctx.Err() == nil:
		// The invariants must hold however the run ended, once no
		// transaction is in flight: not while a worker is still in one.
		if res.LeftBehind > 0 && part.transactional() {
			if o.AuditErr = t.settle(ctx, res); o.AuditErr != nil {
				break
			}
		}
		o.Audit, o.AuditErr = part.audit(ctx, t, t.Settings.Run.Threads)
		attach(o)
	}
	if ctx.Err() != nil {
		// Stopped during what followed the run (a read-back, an
		// audit): the results are an interrupted run's.
		res.Interrupted = true
	}
	o.Counters = t.Counters()
	if res.Phase == runner.Transactions {
		o.Counters = append(o.Counters, part.resultCounters(res)...)
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
// TPC-C's consistency conditions. It returns nil for a workload
// without. The check is bounded by audit.timeout.
func (t *Trial) Audit(ctx context.Context, threads int) (results.Audit, error) {
	return partOf(t.WorkloadConfig.Kind).audit(ctx, t, threads)
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

// Counters are the workload kind's own figures of the trial's phase
// (TPC-C's scale and pacing, which name its figures) and the driver's
// own counts so far (driver.CounterSource).
func (t *Trial) Counters() []results.Counter {
	out := partOf(t.WorkloadConfig.Kind).counters(t)
	cs, ok := t.DB.(driver.CounterSource)
	if !ok {
		return out
	}
	for _, c := range cs.Counters() {
		out = append(out, results.Counter{Name: c.Name, Value: c.Value, Help: c.Help})
	}
	return out
}
