package trial

import (
	"context"

	"github.com/dbarena/dbarena/driver"
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
	// Counters are the driver's own counts (driver.CounterSource).
	Counters []results.Counter
}

// Run runs the trial's phase with its settings and the observers, then
// what every run of a trial records besides: the read-back of a load
// that asks for it, a verify phase's report, and the driver's counts.
// `dbarena ycsb` and an experiment's trials run in one process both
// take this path, so that a trial records the same facts however it is
// started. The error is the runner's: nothing was measured.
func (t *Trial) Run(ctx context.Context, observers ...runner.Observer) (*Outcome, error) {
	res, err := runner.Run(ctx, t.Settings.Run, t.Workload, t.DB, observers...)
	if err != nil {
		return nil, err
	}
	o := &Outcome{Result: res}
	switch {
	case res.Phase == runner.Verify:
		o.Verify = runner.NewVerifyReport(res, t.WorkloadConfig.DataIntegrity)
	case res.Phase == runner.Load && t.Settings.Verify && !res.Interrupted && res.Failure() == "":
		o.Verify, o.VerifyErr = runner.VerifyLoad(ctx, t.Settings.Run, t.WorkloadConfig, t.DB)
	}
	o.Counters = t.Counters()
	return o, nil
}

// Counters are the driver's own counts so far (driver.CounterSource;
// nil for a driver without).
func (t *Trial) Counters() []results.Counter {
	cs, ok := t.DB.(driver.CounterSource)
	if !ok {
		return nil
	}
	var out []results.Counter
	for _, c := range cs.Counters() {
		out = append(out, results.Counter{Name: c.Name, Value: c.Value, Help: c.Help})
	}
	return out
}
