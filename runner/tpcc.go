package runner

import (
	"fmt"

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

// newTPCCWorker makes the terminal of the trial's worker id.
func newTPCCWorker(sess driver.Session, c workload.Config, id int, seed uint64) (*tpccWorker, error) {
	sx, ok := sess.(driver.SQLTransactor)
	if !ok {
		return nil, &driver.Error{Class: driver.ClassUnsupported,
			Err: fmt.Errorf("tpcc.warehouses %d: this driver's sessions cannot run SQL transactions (driver.SQLTransactor): no TPC-C on it", c.TPCC.Warehouses)}
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

// tpccTransaction runs one TPC-C transaction of op's kind with an input
// its terminal draws. A New-Order that rolled back by its unused item
// decided, as the specification requires: done, not an error. Spec
// pacing waits the keying time first, and its response time starts when
// the input is submitted (clause 5.3.1), then waits the think time; a
// run that ends in either wait has no transaction to count.
func (w *workerState) tpccTransaction(op *workload.Operation, h measure.Handle, intended, start int64) {
	kind, _ := op.Kind.TPCC()
	series := int(op.Kind)
	clk, pace := w.s.cfg.Clock, w.tpcc.pace
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
	in := w.tpcc.term.Input(kind)
	w.begin(series)
	out, err := w.tpcc.tx.Run(w.s.opsCtx, in)
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

// tpccLoad loads one TPC-C load unit: the item table (key 0) or a
// warehouse, recorded as one INSERT whose latency is its whole load.
func (w *workerState) tpccLoad(op *workload.Operation, h measure.Handle, intended, start int64) {
	defer w.wk.Done(op)
	ctx, seed := w.s.opsCtx, w.s.cfg.Seed
	series := int(workload.Insert)
	w.begin(series)
	var err error
	if op.KeyNum == 0 {
		_, err = tpcc.LoadItems(ctx, w.tpcc.sess, seed)
	} else {
		_, err = tpcc.LoadWarehouse(ctx, w.tpcc.sess, int(op.KeyNum), seed)
	}
	w.end()
	w.record(h, series, err, intended, start, w.s.cfg.Clock.Now(), 0)
}
