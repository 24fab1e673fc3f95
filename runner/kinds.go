package runner

// Each workload kind's part of a worker, behind one table: the generic
// loop asks the worker's part to run an operation first, and runs core
// YCSB's operations on the session when the part does not take it. The
// loop names no kind.

import (
	"errors"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/workload"
)

// kindWorker is a workload kind's part of one worker.
type kindWorker interface {
	// exec runs op when it is the kind's own and reports whether it
	// was; the worker runs core YCSB's operations otherwise.
	exec(w *workerState, op *workload.Operation, h measure.Handle, intended, start int64) bool
}

// newKindWorker makes the part worker id of a run of phase needs for
// c's kind, on its session (nil: core YCSB's, which needs none). A
// session that cannot run the kind's operations is refused with a
// driver.ClassUnsupported error that says what it lacks.
type newKindWorker func(sess driver.Session, c workload.Config, phase Phase, id int, seed uint64) (kindWorker, error)

// kindWorkers is the table: one entry per workload kind with operations
// of its own.
var kindWorkers = map[workload.Kind]newKindWorker{
	workload.KindLedger: newLedgerWorker,
	workload.KindTPCC:   newTPCCKindWorker,
}

// kindWorkerOf makes worker id's part for c's kind, nil for a kind
// without one.
func kindWorkerOf(sess driver.Session, c workload.Config, phase Phase, id int, seed uint64) (kindWorker, error) {
	mk, ok := kindWorkers[c.Kind]
	if !ok {
		return nil, nil
	}
	return mk(sess, c, phase, id, seed)
}

// KindUnsupported is the error for a driver whose sessions cannot run
// c's kind (driver.ClassUnsupported, saying what they lack).
func KindUnsupported(c workload.Config) error {
	return &driver.Error{Class: driver.ClassUnsupported, Err: errors.New(c.Kind.Info().Lacking("this driver's"))}
}

// ledgerWorker moves money between two accounts: a ledger's transfers.
type ledgerWorker struct {
	tx driver.Transferer
	// t holds the balance's field and floor; each transfer fills in its
	// accounts and amount.
	t driver.Transfer
}

// newLedgerWorker makes a ledger worker's part. Its load and its audit
// read and write records as core YCSB's do; only the measured
// transfers need a driver.Transferer.
func newLedgerWorker(sess driver.Session, c workload.Config, phase Phase, _ int, _ uint64) (kindWorker, error) {
	tx, ok := sess.(driver.Transferer)
	if !ok {
		if phase != Transactions {
			return nil, nil
		}
		return nil, KindUnsupported(c)
	}
	return &ledgerWorker{tx: tx, t: driver.Transfer{Field: c.BalanceField(), Floor: c.Ledger.Floor}}, nil
}

// exec runs a transfer. A declined transfer (its payer would go below
// the floor) is a transaction that ran and decided: it counts as done,
// not as an error.
func (l *ledgerWorker) exec(w *workerState, op *workload.Operation, h measure.Handle, intended, start int64) bool {
	if op.Kind != workload.Transfer {
		return false
	}
	series := int(workload.Transfer)
	t := l.t
	t.From, t.To, t.Amount = op.Key, op.ToKey, op.Amount
	w.begin(series)
	err := l.tx.Transfer(w.s.opsCtx, op.Table, t)
	w.end()
	if errors.Is(err, driver.ErrDeclined) {
		err = nil
		if !w.warming {
			w.s.declined.Add(1)
		}
	}
	w.record(h, series, err, intended, start, w.s.cfg.Clock.Now(), 0)
	return true
}
