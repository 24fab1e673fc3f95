package runner

import (
	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/tpcc"
)

// tpccWorker is a TPC-C worker's terminal and transactions.
type tpccWorker struct {
	sess driver.SQLTransactor
	term *tpcc.Terminal
	tx   *tpcc.Tx
	// pace is the terminal's keying and think times in spec mode (nil
	// unpaced).
	pace *tpcc.Pacing
}

// newTPCCKindWorker makes a TPC-C worker's part: none to verify a
// load (it reads no YCSB records), else the terminal of worker id.
func newTPCCKindWorker(sess driver.Session, c workload.Config, phase Phase, id int, seed uint64) (kindWorker, error) {
	if phase == Verify {
		return nil, nil
	}
	return newTPCCWorker(sess, c, id, seed)
}

// newTPCCWorker makes the terminal of the trial's worker id.
func newTPCCWorker(sess driver.Session, c workload.Config, id int, seed uint64) (*tpccWorker, error) {
	sx, ok := sess.(driver.SQLTransactor)
	if !ok {
		return nil, KindUnsupported(c)
	}
	warehouses := int(c.TPCC.Warehouses)
	w, d := terminalHome(id, warehouses)
	tw := &tpccWorker{sess: sx, tx: tpcc.NewTx(sx),
		term: tpcc.NewTerminal(w, d, warehouses, seed+uint64(id)*104729, tpcc.RunConstants(seed))}
	if c.TPCC.Mode == tpcc.Spec {
		tw.pace = tpcc.NewPacing(c.TPCC.TimeScale, seed+uint64(id)*7919)
	}
	return tw, nil
}

// terminalHome is the warehouse and district of the trial's worker id:
// workers are spread over the warehouses first, then over the districts
// of each (Stock-Level's), so that 10 workers a warehouse are the
// specification's 10 terminals.
func terminalHome(id, warehouses int) (w, d int) {
	return id%warehouses + 1, id/warehouses%tpcc.DistrictsPerWarehouse + 1
}

// exec runs op when it is TPC-C's: a load unit (an insert) or one of
// the five transactions.
func (t *tpccWorker) exec(w *workerState, op *workload.Operation, h measure.Handle, intended, start int64) bool {
	if op.Kind == workload.Insert {
		t.load(w, op, h, intended, start)
		return true
	}
	if _, ok := op.Kind.TPCC(); ok {
		t.transaction(w, op, h, intended, start)
		return true
	}
	return false
}

// transaction runs one TPC-C transaction of op's kind with an input
// its terminal draws. A New-Order that rolled back by its unused item
// decided, as the specification requires: done, not an error. Spec
// pacing waits the keying time first, and its response time starts when
// the input is submitted (clause 5.3.1), then waits the think time; a
// run that ends in either wait has no transaction to count.
func (t *tpccWorker) transaction(w *workerState, op *workload.Operation, h measure.Handle, intended, start int64) {
	kind, _ := op.Kind.TPCC()
	series := int(op.Kind)
	clk, pace := w.s.cfg.Clock, t.pace
	if pace != nil {
		if w.timer.SleepUntil(clk.Now() + int64(pace.Keying(kind))) {
			return
		}
		intended = clk.Now()
		start = intended
		// A transaction the stop leaves behind is cut off at its
		// latency so far, which starts here, not before the keying.
		w.s.inFlight[w.id].since.Store(intended)
	}
	in := t.term.Input(kind)
	w.begin(series)
	out, err := t.tx.Run(w.s.opsCtx, in)
	w.end()
	if out.RolledBack && !w.warming {
		w.s.rolledBack.Add(1)
	}
	end := clk.Now()
	w.record(h, series, err, intended, start, end, 0)
	if pace != nil {
		w.timer.SleepUntil(end + int64(pace.Think(kind)))
	}
}

// load loads one TPC-C load unit: the item table (key 0) or a
// warehouse, recorded as one INSERT whose latency is its whole load.
func (t *tpccWorker) load(w *workerState, op *workload.Operation, h measure.Handle, intended, start int64) {
	defer w.wk.Done(op)
	ctx, seed := w.s.opsCtx, w.s.cfg.Seed
	series := int(workload.Insert)
	w.begin(series)
	var err error
	if op.KeyNum == 0 {
		_, err = tpcc.LoadItems(ctx, t.sess, seed)
	} else {
		_, err = tpcc.LoadWarehouse(ctx, t.sess, int(op.KeyNum), seed)
	}
	w.end()
	w.record(h, series, err, intended, start, w.s.cfg.Clock.Now(), 0)
}
