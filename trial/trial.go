// Package trial is the one path from a trial's properties to a database
// ready to measure: secrets resolved, the workload and settings parsed
// once, the driver opened, the table created or checked. `dbarena ycsb
// load/run/verify`, experiments and the loader processes an experiment
// starts (which are `dbarena ycsb` too) all go through it, so that a
// property means the same everywhere.
//
// The order is fixed: ResolveSecrets, Parse (which the caller may
// adjust: an experiment lays its own sections over the settings), Open,
// then Ready.
package trial

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/internal/redact"
	"github.com/dbarena/dbarena/internal/secret"
	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// ResolveSecrets replaces every ${env:NAME} and ${file:PATH} reference in
// p by its value, teaches hide each value and every secret-named
// property, and returns the references as written by key: outputs show
// those, never the values.
func ResolveSecrets(p *properties.Set, hide *redact.Redactor) (map[string]string, error) {
	refs := map[string]string{}
	for _, k := range p.Keys() {
		v, src, _ := p.Lookup(k)
		if !secret.Has(v) {
			continue
		}
		r, vals, err := secret.Expand(v)
		if err != nil {
			return nil, fmt.Errorf("property %s (%s): %w", k, src, err)
		}
		hide.Add(vals...)
		refs[k] = v
		p.Set(k, r, src)
	}
	hide.AddProps(p.Map())
	return refs, nil
}

// Plan is a trial parsed and not yet connected.
type Plan struct {
	Driver         drivers.Info
	Props          *properties.Set
	WorkloadConfig workload.Config
	Settings       Settings
	// Warnings are the workload's (properties YCSB knows that dbarena
	// ignores, ...), for the caller to log with its context.
	Warnings []workload.Warning
	// FirstWorker is the trial's number of this process's first worker
	// (driver.Params.FirstWorker): a loader's index times its threads.
	FirstWorker int
}

// Parse looks the driver up and parses the workload and the settings of
// phase from p; lay, when given, then sets what the caller decides (an
// experiment's typed settings) before the settings are validated as a
// whole. Every error is the user's input.
func Parse(driverName string, p *properties.Set, phase runner.Phase, lay func(*Settings) error) (*Plan, error) {
	info, err := drivers.Lookup(driverName)
	if err != nil {
		return nil, err
	}
	if err := checkDB(info.Name, p); err != nil {
		return nil, err
	}
	pl := &Plan{Driver: info, Props: p}
	if pl.WorkloadConfig, pl.Warnings, err = workload.ParseConfig(p, drivers.Prefixes()); err != nil {
		return nil, err
	}
	if pl.Settings, err = ParseSettings(p, phase, pl.WorkloadConfig); err != nil {
		return nil, err
	}
	if lay != nil {
		if err := lay(&pl.Settings); err != nil {
			return nil, err
		}
	}
	if err := pl.Settings.Validate(); err != nil {
		return nil, err
	}
	if err := partOf(pl.WorkloadConfig.Kind).check(pl, phase); err != nil {
		return nil, err
	}
	if err := pl.WorkloadConfig.ValidateKeys(); err != nil {
		return nil, err
	}
	return pl, nil
}

// Trial is a parsed trial with its driver open.
type Trial struct {
	*Plan
	Workload *workload.Workload
	DB       driver.DB
}

// Open builds the workload and opens the driver with one session per
// worker of the settings as they stand.
func (pl *Plan) Open(ctx context.Context, log *slog.Logger) (*Trial, error) {
	wl, err := workload.New(pl.WorkloadConfig)
	if err != nil {
		return nil, err
	}
	db, err := pl.Driver.Open(ctx, driver.Params{Props: pl.Props.Map(), Workers: pl.Settings.Run.Threads, FirstWorker: pl.FirstWorker, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("open driver %s: %w", pl.Driver.Name, err)
	}
	return &Trial{Plan: pl, Workload: wl, DB: db}, nil
}

// Schema is the table the trial's workload uses.
func (t *Trial) Schema() driver.Schema {
	return driver.Schema{Table: t.WorkloadConfig.Table, Fields: t.Workload.FieldNames(), FieldLength: int(t.WorkloadConfig.FieldLength)}
}

// Ready makes the table ready. Before a load it drops the table when
// the settings say so and creates it (or, with schema.create=false,
// checks it), and warns when batching was asked of a driver that cannot
// batch; before any other phase it checks that the table is there.
func (t *Trial) Ready(ctx context.Context, load bool, log *slog.Logger) error {
	if done, err := partOf(t.WorkloadConfig.Kind).ready(ctx, t, load); done {
		return err
	}
	sm, _ := t.DB.(driver.SchemaManager)
	if !load {
		if sm == nil {
			return nil
		}
		return t.wrap(sm.CheckSchema(ctx, t.Schema()))
	}
	s := t.Settings
	if s.Run.BatchSize > 1 {
		if sess, err := t.DB.Session(ctx, 0); err == nil {
			if _, ok := sess.(driver.BatchInserter); !ok {
				log.Warn("driver does not batch inserts; batchsize is ignored", "driver", t.Driver.Name, core.BatchSize, s.Run.BatchSize)
			}
			_ = sess.Close() // a probe session; nothing was done with it
		}
	}
	if sm == nil {
		return nil
	}
	if s.Drop {
		if err := sm.DropSchema(ctx, t.Schema()); err != nil {
			return t.wrap(fmt.Errorf("drop=true: drop table: %w", err))
		}
		log.Info("dropped table if it existed", "driver", t.Driver.Name, "table", t.WorkloadConfig.Table)
	}
	if !s.CreateSchema {
		if err := sm.CheckSchema(ctx, t.Schema()); err != nil {
			return t.wrap(fmt.Errorf("schema.create=false and %w", err))
		}
		return nil
	}
	return t.wrap(sm.CreateSchema(ctx, t.Schema()))
}

func (t *Trial) wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", t.Driver.Name, err)
}

// Close closes the driver within CloseWait: one that waits for
// connections a frozen server holds must not hold the caller, and
// everything measured is written before this.
func (t *Trial) Close() { driver.CloseWithin(t.DB, CloseWait) }

// CloseWait bounds Close.
const CloseWait = 500 * time.Millisecond

// OpenMetrics opens the driver a second time, with one worker, for
// reading the database's own metrics (driver.MetricsReader) on a
// connection of their own, so that the workers' connections carry only
// the workload. It returns a nil reader, and no error, for a driver that
// reads none; close releases the connection (within CloseWait).
func (t *Trial) OpenMetrics(ctx context.Context, log *slog.Logger) (r driver.MetricsReader, close func(), err error) {
	if _, ok := t.DB.(driver.MetricsReader); !ok {
		return nil, nil, nil
	}
	db, err := t.Driver.Open(ctx, driver.Params{Props: t.Props.Map(), Workers: 1, Logger: log})
	if err != nil {
		return nil, nil, t.wrap(err)
	}
	r, ok := db.(driver.MetricsReader)
	if !ok {
		driver.CloseWithin(db, CloseWait)
		return nil, nil, nil
	}
	return r, func() { driver.CloseWithin(db, CloseWait) }, nil
}
