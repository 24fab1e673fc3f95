package runner

import (
	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/record"
	"github.com/dbarena/dbarena/workload"
)

// batch holds copies of the load inserts not yet sent. The workload reuses
// its operation buffers, so every key and value is copied in; the copies'
// buffers are reused from one batch to the next.
type batch struct {
	ins   driver.BatchInserter
	size  int
	keys  []string
	recs  []record.Record
	bufs  [][]byte
	table string
}

func newBatch(ins driver.BatchInserter, size int) *batch {
	return &batch{ins: ins, size: size, recs: make([]record.Record, size), bufs: make([][]byte, size)}
}

func (b *batch) add(op *workload.Operation) {
	i := len(b.keys)
	buf := b.bufs[i][:0]
	rec := b.recs[i][:0]
	buf = append(buf, op.Key...)
	key := string(buf) // one allocation per key: drivers may keep keys
	for _, f := range op.Values {
		start := len(buf)
		buf = append(buf, f.Value...)
		rec = append(rec, record.Field{Name: f.Name, Value: buf[start:len(buf):len(buf)]})
	}
	b.bufs[i], b.recs[i] = buf, rec
	b.keys = append(b.keys, key)
	b.table = op.Table
}

// addToBatch queues a load insert and sends the batch when it is full.
func (w *workerState) addToBatch(op *workload.Operation, h measure.Handle) {
	w.batch.add(op)
	w.wk.Done(op)
	if len(w.batch.keys) >= w.batch.size {
		w.flushBatch(h)
	}
}

// flushBatch sends the queued inserts in one call, retrying a failed batch
// as a failed single insert would be retried, and records every record of
// the batch with the batch's latency, counted by the last attempt. A batch
// still queued when the run stops is sent all the same (its records were
// taken from the workload before the stop, and the load's key range would
// otherwise have a hole); a retry the stop cuts short aborts its records.
func (w *workerState) flushBatch(h measure.Handle) {
	b := w.batch
	n := len(b.keys)
	if n == 0 {
		return
	}
	defer func() { b.keys = b.keys[:0] }()
	clk := w.s.cfg.Clock
	for attempt := 0; ; attempt++ {
		start := clk.Now()
		w.begin(int(workload.Insert))
		err := b.ins.InsertBatch(w.s.opsCtx, b.table, b.keys, b.recs[:n])
		w.end()
		end := clk.Now()
		last := err == nil || attempt >= w.s.cfg.InsertRetryLimit || w.s.stop.Load()
		f := measure.Sub
		if last {
			f = 0
		}
		for i := 0; i < n; i++ {
			w.record(h, int(workload.Insert), err, start, start, end, f)
		}
		if last {
			return
		}
		wait := float64(w.s.cfg.InsertRetryInterval) * (0.8 + 0.4*w.retryRand.Float64())
		if w.timer.SleepUntil(clk.Now() + int64(wait)) {
			for i := 0; i < n; i++ {
				h.RecordAborted(int(workload.Insert))
			}
			return
		}
	}
}
