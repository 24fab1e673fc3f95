// Package loader is the protocol of a trial split over several load
// generator processes: each process's slot ("I/N"), its share of the
// trial (operations, rate, key range, seed, the numbers of its
// workers), the command line that starts it, a loader reached through
// a command prefix (Remote), the settings of the whole trial its merged
// result is recorded with, and the merged result and time series. The
// process side (`dbarena ycsb --loader`) and the experiment side use
// these, and nothing else spells them.
package loader

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
)

// Slot places one process among the trial's loaders: Index of Count,
// from 0. The zero Slot is a process that runs the trial alone.
type Slot struct{ Index, Count int }

// Alone says the process runs the whole trial.
func (s Slot) Alone() bool { return s.Count == 0 }

// String writes the slot as "I/N", as the --loader flag and the
// summary's loader_index take it.
func (s Slot) String() string { return results.LoaderIndex(s.Index, s.Count) }

// ParseSlot reads "I/N".
func ParseSlot(v string) (Slot, error) {
	i, n, err := results.ParseLoaderIndex(v)
	return Slot{Index: i, Count: n}, err
}

// Share is this slot's part of total items: contiguous ranges, the
// first total%n one longer, so that the loaders' parts add up to total
// with none twice.
func (s Slot) Share(total int64) (offset, size int64) {
	if s.Alone() {
		return 0, total
	}
	q, r := total/int64(s.Count), total%int64(s.Count)
	size = q
	if int64(s.Index) < r {
		size++
	}
	return int64(s.Index)*q + min(int64(s.Index), r), size
}

// FirstWorker is the trial's number of this slot's first worker, each
// loader running threads workers (driver.Params.FirstWorker).
func (s Slot) FirstWorker(threads int) int { return s.Index * threads }

// Apply gives this slot its share of the trial's properties: its range
// of the keys to insert or verify, or its part of the operations, rate,
// stages' rates and seed of a run. Each loader runs the trial's threads.
func (s Slot) Apply(p *properties.Set, phase runner.Phase) error {
	if s.Alone() {
		return nil
	}
	src := properties.Source{File: "--" + results.FlagLoader + " " + s.String()}
	// A throttled load or run shares its rate.
	target, err := p.Float(core.Target, 0)
	if err != nil {
		return err
	}
	if target > 0 {
		p.Set(core.Target, strconv.FormatFloat(target/float64(s.Count), 'f', -1, 64), src)
	}
	if phase == runner.Transactions {
		return s.applyRun(p, src)
	}
	start, err := p.Int64(core.InsertStart, 0)
	if err != nil {
		return err
	}
	count, err := p.Int64(core.InsertCount, 0)
	if err != nil {
		return err
	}
	if count == 0 {
		records, err := p.Int64(core.RecordCount, 0)
		if err != nil {
			return err
		}
		count = records - start
	}
	off, n := s.Share(count)
	p.Set(core.InsertStart, strconv.FormatInt(start+off, 10), src)
	p.Set(core.InsertCount, strconv.FormatInt(n, 10), src)
	return nil
}

// applyRun shares a run's operations, stages' rates and seed.
func (s Slot) applyRun(p *properties.Set, src properties.Source) error {
	ops, err := p.Int64(core.OperationCount, 0)
	if err != nil {
		return err
	}
	if ops > 0 {
		_, n := s.Share(ops)
		p.Set(core.OperationCount, strconv.FormatInt(n, 10), src)
	}
	if v, _, ok := p.Lookup(core.Stages); ok && strings.TrimSpace(v) != "" {
		// Each loader runs every stage with its threads and its share
		// of the stage's rate.
		stages, err := runner.ParseStages(v)
		if err != nil {
			return fmt.Errorf("property %s: %w", core.Stages, err)
		}
		for i := range stages {
			stages[i].Target /= float64(s.Count)
		}
		p.Set(core.Stages, runner.FormatStages(stages), src)
	}
	if v, _, ok := p.Lookup(core.Seed); ok {
		seed, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%s=%q: want an integer >= 0", core.Seed, v)
		}
		// The loaders must not all draw the same operations.
		p.Set(core.Seed, strconv.FormatUint(seed+uint64(s.Index)<<32, 10), src)
	}
	return nil
}

// Whole is the settings of the trial that n loaders of cfg ran: every
// loader's workers counted, in each stage too (the rate and operations
// were shared, the threads were each loader's).
func Whole(cfg runner.Config, n int) runner.Config {
	cfg.Threads *= n
	stages := append([]runner.Stage(nil), cfg.Stages...)
	for i := range stages {
		stages[i].Threads *= n
	}
	cfg.Stages = stages
	return cfg
}

// Run is one loader process's part of a trial: what an experiment
// asks of `dbarena ycsb load|run` on a load machine.
type Run struct {
	// Verb is "load" or "run".
	Verb   string
	Driver string
	// Properties is the property file with the trial's settings.
	Properties string
	Slot       Slot
	RunID      string
	// StartAt is the common start of every loader.
	StartAt time.Time
	// HdrLog and JSON are where the loader writes its HdrHistogram log
	// and its summary.
	HdrLog, JSON string
}

// Args is the loader's command line after the binary's name. The loader
// stops, keeping what it measured, when its standard input closes.
func (l Run) Args() []string {
	return []string{"ycsb", l.Verb, l.Driver, "--" + results.FlagWorkloadFile, l.Properties, "--" + results.FlagQuiet,
		"--" + results.FlagLoader, l.Slot.String(), "--" + results.FlagRunID, l.RunID,
		"--" + results.FlagStartAt, l.StartAt.UTC().Format(time.RFC3339Nano),
		"--" + results.FlagHdrLog, l.HdrLog, "--" + results.FlagJSON, l.JSON, "--" + results.FlagStopOnStdinClose}
}
