package trial

import (
	"context"

	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// kindPart is a workload kind's part in a trial, beside the generic
// path: Parse, Ready, Run, Audit and Counters call it and name no kind.
// Core YCSB has none of its own (corePart); each other kind's part is
// in its own file (ledger.go, tpcc.go), and partOf is their table.
type kindPart interface {
	// check refuses settings the kind cannot run a phase with.
	check(pl *Plan, phase runner.Phase) error
	// ready readies the kind's own tables, and says whether it did:
	// false leaves YCSB's table to the generic path.
	ready(ctx context.Context, t *Trial, load bool) (bool, error)
	// watch starts what the kind watches while its run phase runs; the
	// function it returns stops it, and the one that returns adds what
	// was watched to the outcome once audited.
	watch(ctx context.Context, t *Trial) func() func(*Outcome)
	// afterLoad is what follows a load that ended on its own and within
	// the error policy, written into o; false leaves it to the generic
	// read-back (load.verify).
	afterLoad(ctx context.Context, t *Trial, o *Outcome) bool
	// transactional says the kind's run leaves workers inside
	// transactions at a frozen database's end, which the audit must
	// wait out.
	transactional() bool
	// audit checks the kind's invariants after its run phase, with
	// threads readers where it reads record by record (nil: none).
	audit(ctx context.Context, t *Trial, threads int) (results.Audit, error)
	// counters are the kind's own figures of the trial's phase, and
	// resultCounters those of a run phase's result.
	counters(t *Trial) []results.Counter
	resultCounters(res *runner.Result) []results.Counter
}

// partOf is the kind table of the trial: each kind's part.
func partOf(k workload.Kind) kindPart {
	switch k {
	case workload.KindLedger:
		return ledgerPart{}
	case workload.KindTPCC:
		return tpccPart{}
	}
	return corePart{}
}

// corePart is YCSB's: nothing of its own. The other parts embed it for
// what they add nothing to.
type corePart struct{}

func (corePart) check(*Plan, runner.Phase) error                           { return nil }
func (corePart) ready(context.Context, *Trial, bool) (bool, error)         { return false, nil }
func (corePart) watch(context.Context, *Trial) func() func(*Outcome)       { return stopNothing }
func (corePart) afterLoad(context.Context, *Trial, *Outcome) bool          { return false }
func (corePart) transactional() bool                                       { return false }
func (corePart) audit(context.Context, *Trial, int) (results.Audit, error) { return nil, nil }
func (corePart) counters(*Trial) []results.Counter                         { return nil }
func (corePart) resultCounters(*runner.Result) []results.Counter           { return nil }

// stopNothing is the watch of a kind that watches nothing.
func stopNothing() func(*Outcome) { return func(*Outcome) {} }
