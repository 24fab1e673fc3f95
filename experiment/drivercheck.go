package experiment

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/internal/redact"
	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/trial"
	"github.com/dbarena/dbarena/workload"
)

// CheckDrivers parses every step's driver properties as its trial will
// open them, connecting to nothing: a value of the wrong kind fails the
// experiment before anything is deployed, where it failed each trial
// after the deployment (minutes, on a cloud). The properties a
// deployment adds (addresses, URLs) are not known yet; the drivers'
// defaults stand in for them. The errors wrap a driver.ConfigError: bad
// input. A property whose secret cannot be resolved is left to
// Preflight.
func CheckDrivers(plan *spec.Plan) error {
	var errs []error
	seen := map[string]bool{}
	for i := range plan.Steps {
		st := &plan.Steps[i]
		info, err := drivers.Lookup(st.Target.Driver)
		if err != nil || info.Check == nil {
			continue
		}
		props, ok := resolvedProps(st)
		if !ok {
			continue
		}
		if err := transactions(st, info); err != nil && !seen[st.Target.Name+"\x00"+st.Workload.Name] {
			seen[st.Target.Name+"\x00"+st.Workload.Name] = true
			errs = append(errs, fmt.Errorf("%s: target %s (driver %s), step %s: %w", plan.Spec.File, st.Target.Name, info.Name, st.ID, err))
		}
		err = info.Check(props, max(st.Threads, 1))
		if err == nil {
			continue
		}
		// Steps share their target's properties: say each fault once.
		key := st.Target.Name + "\x00" + err.Error()
		if seen[key] {
			continue
		}
		seen[key] = true
		sep := " "
		if strings.Contains(err.Error(), "\n") {
			sep = ""
		}
		errs = append(errs, fmt.Errorf("%s: target %s (driver %s), step %s:%s%w", plan.Spec.File, st.Target.Name, info.Name, st.ID, sep,
			indent(err)))
	}
	return errors.Join(errs...)
}

// kindNeeds is, for each workload kind whose operations need more of
// a driver than core YCSB's, the driver table's flag for it.
var kindNeeds = map[workload.Kind]func(drivers.Info) bool{
	workload.KindLedger: func(d drivers.Info) bool { return d.Transfers },
	workload.KindTPCC:   func(d drivers.Info) bool { return d.SQLTransactions },
}

// transactions refuses a step whose workload kind needs what its
// driver's sessions do not offer (a TPC-C step failed at the target's
// load, after the targets before it had run), naming the drivers that
// do.
func transactions(st *spec.Step, info drivers.Info) error {
	cfg, _, err := workload.ParseConfig(st.Properties, nil)
	if err != nil {
		return nil // the plan has parsed it already
	}
	has, ok := kindNeeds[cfg.Kind]
	if !ok || has(info) {
		return nil
	}
	return driver.BadConfig(fmt.Errorf("workload %s: %s: it runs on the %s drivers",
		st.Workload.Name, cfg.Kind.Info().Lacking("driver "+info.Name+"'s"), strings.Join(driversWhere(has), ", ")))
}

// driversWhere names the drivers of the table that have a capability.
func driversWhere(has func(drivers.Info) bool) []string {
	var names []string
	for _, d := range drivers.All() {
		if has(d) {
			names = append(names, d.Name)
		}
	}
	return names
}

// resolvedProps are a step's driver properties with their secrets
// resolved, as its trial opens them; false when a secret cannot be
// (Preflight says which).
func resolvedProps(st *spec.Step) (map[string]string, bool) {
	p := properties.New()
	p.Merge(st.Properties)
	if _, err := trial.ResolveSecrets(p, redact.New()); err != nil {
		return nil, false
	}
	return p.Map(), true
}

// indent keeps an error of several lines (a driver lists every bad
// property) under the line that names its target.
func indent(err error) error {
	msg := err.Error()
	if !strings.Contains(msg, "\n") {
		return err
	}
	return &indented{err: err, msg: "\n  " + strings.ReplaceAll(msg, "\n", "\n  ")}
}

// indented is an error printed indented, unwrapping to the original.
type indented struct {
	err error
	msg string
}

func (e *indented) Error() string { return e.msg }
func (e *indented) Unwrap() error { return e.err }

// existingProvider names the provider of databases that already run.
const existingProvider = "existing"

// reachable opens target t's driver as its first step would, on one
// worker, and closes it: an existing endpoint that does not answer (a
// closed port, a wrong address) fails the preflight, dry run included,
// before anything starts, where before it failed the first load.
func reachable(ctx context.Context, plan *spec.Plan, t *spec.Target) error {
	info, err := drivers.Lookup(t.Driver)
	if err != nil || info.Open == nil {
		return nil // CheckDrivers says it
	}
	for i := range plan.Steps {
		st := &plan.Steps[i]
		if st.Target != t {
			continue
		}
		props, ok := resolvedProps(st)
		if !ok {
			return nil // the secret's own check says it
		}
		db, err := info.Open(ctx, driver.Params{Props: props, Workers: 1})
		if err != nil {
			return fmt.Errorf("target %s (an existing %s endpoint): %w", t.Name, t.Database, err)
		}
		driver.CloseWithin(db, 5*time.Second) // it answered: that was the question
		return nil
	}
	return nil
}
