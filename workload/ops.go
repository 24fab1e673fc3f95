package workload

import (
	"bytes"
	"strconv"

	"github.com/dbarena/dbarena/record"
)

// NextInsert returns the next load-phase insert, or nil when the worker's
// share of [insertstart, insertstart+insertcount) has been handed out. The
// key sequence is shared by all workers of the process, so together they
// insert every key exactly once.
func (wk *Worker) NextInsert() *Operation {
	c := &wk.w.cfg
	keynum := wk.w.loadSeq.Next(wk.r)
	if keynum >= c.InsertStart+c.EffectiveInsertCount() {
		return nil
	}
	wk.op.Kind = Insert
	if c.IsTPCC() {
		// A load unit: the item table (0) or a warehouse, which the
		// runner loads whole; no record of YCSB's.
		wk.op.KeyNum, wk.op.Key, wk.op.Fields, wk.op.Values = keynum, "", nil, nil
		return &wk.op
	}
	wk.setKey(keynum)
	wk.op.Fields = nil
	wk.op.Values = wk.buildValues(wk.op.Key, true)
	if c.IsLedger() {
		wk.setBalance(c.Ledger.Balance)
	}
	return &wk.op
}

// setBalance writes balance, in decimal, as the value of the first field
// of the values just built: the account's balance.
func (wk *Worker) setBalance(balance int64) {
	start := len(wk.valueBuf)
	wk.valueBuf = strconv.AppendInt(wk.valueBuf, balance, 10)
	wk.values[0].Value = wk.valueBuf[start:len(wk.valueBuf):len(wk.valueBuf)]
}

// NextTransaction returns the next run-phase operation, drawn from the
// operation mix.
func (wk *Worker) NextTransaction() *Operation {
	c := &wk.w.cfg
	kind := OpKind(wk.ops.Next(wk.r))
	op := &wk.op
	op.Kind = kind
	op.Fields = nil
	op.Values = nil
	switch kind {
	case Insert:
		wk.setKey(wk.w.insertSeq.Next(wk.r))
		op.Values = wk.buildValues(op.Key, true)
		return op
	case Scan:
		wk.setKey(wk.nextKeyNum())
		op.ScanCount = int(wk.scanLen.Next(wk.r))
		op.Fields = wk.readFields()
		return op
	case Delete:
		wk.setKey(wk.nextKeyNum())
		return op
	case Transfer:
		wk.nextTransfer()
		return op
	case NewOrder, Payment, OrderStatus, Delivery, StockLevel:
		// The terminal of the runner's worker draws its input.
		return op
	}
	wk.setKey(wk.nextKeyNum())
	if kind == Read || kind == ReadModifyWrite {
		op.Fields = wk.readFields()
	}
	if kind == Update || kind == ReadModifyWrite {
		op.Values = wk.buildValues(op.Key, c.WriteAllFields)
	}
	return op
}

// nextTransfer draws a transfer: both accounts from the request
// distribution, the receiving one redrawn until it differs from the
// paying one (then the next account, for a distribution that keeps
// drawing the same), and an amount uniform in [1, ledger.maxamount].
func (wk *Worker) nextTransfer() {
	from := wk.nextKeyNum()
	to := from
	for i := 0; i < wk.maxKeyTrys && to == from; i++ {
		to = wk.nextKeyNum()
	}
	if to == from {
		c := &wk.w.cfg
		to = c.InsertStart + (from-c.InsertStart+1)%c.EffectiveInsertCount()
	}
	wk.setKey(from)
	wk.setToKey(to)
	wk.op.Amount = 1 + wk.r.Int64N(wk.w.cfg.Ledger.MaxAmount)
}

// Done tells the workload that op has finished, successfully or not. A
// run-phase insert's key number is acknowledged either way, as YCSB does,
// so that the latest distribution does not stall behind a failed insert.
func (wk *Worker) Done(op *Operation) {
	if op.Kind == Insert && op.KeyNum >= wk.w.cfg.RecordCount {
		// An error here means the acknowledgement window overflowed: the
		// latest chooser then lags, which is not worth failing a run for.
		_ = wk.w.insertSeq.Acknowledge(op.KeyNum)
	}
}

// nextKeyNum draws an existing record's key number. Like YCSB it redraws
// values beyond the last acknowledged insert; unlike YCSB it gives up after
// a bounded number of tries and uses the last key, so a misconfigured key
// space cannot hang a worker.
func (wk *Worker) nextKeyNum() int64 {
	last := wk.w.insertSeq.Last()
	if wk.w.cfg.RequestDistribution == DistExponential {
		for i := 0; i < wk.maxKeyTrys; i++ {
			if k := last - wk.keys.Next(wk.r); k >= 0 {
				return k
			}
		}
		return last
	}
	for i := 0; i < wk.maxKeyTrys; i++ {
		if k := wk.keys.Next(wk.r); k <= last {
			return k
		}
	}
	return last
}

// readFields returns the fields a read asks for: nil (all) or one field
// chosen uniformly, as readallfields says.
func (wk *Worker) readFields() []string {
	if wk.w.cfg.ReadAllFields {
		return nil
	}
	wk.oneField[0] = wk.w.fieldNames[wk.r.IntN(len(wk.w.fieldNames))]
	return wk.oneField
}

// buildValues fills the worker's value buffer with every field, or with one
// field chosen uniformly.
func (wk *Worker) buildValues(key string, all bool) record.Record {
	wk.values = wk.values[:0]
	wk.valueBuf = wk.valueBuf[:0]
	if all {
		for _, name := range wk.w.fieldNames {
			wk.appendValue(key, name)
		}
	} else {
		wk.appendValue(key, wk.w.fieldNames[wk.r.IntN(len(wk.w.fieldNames))])
	}
	return wk.values
}

func (wk *Worker) appendValue(key, field string) {
	n := int(wk.fieldLen.Next(wk.r))
	start := len(wk.valueBuf)
	if wk.w.cfg.DataIntegrity {
		wk.valueBuf = appendDeterministicValue(wk.valueBuf, key, field, n)
	} else {
		wk.valueBuf = appendRandomValue(wk.valueBuf, wk.r, n)
	}
	wk.values = append(wk.values, record.Field{Name: field, Value: wk.valueBuf[start:len(wk.valueBuf):len(wk.valueBuf)]})
}

// Verify checks a record read back against the values YCSB's dataintegrity
// mode wrote for key: every returned field must hold its deterministic
// value. It reports the number of fields checked and whether all matched.
func (wk *Worker) Verify(key string, rec record.Record) (checked int, ok bool) {
	ok = true
	for _, f := range rec {
		wk.verifyBuf = appendDeterministicValue(wk.verifyBuf[:0], key, f.Name, int(wk.w.cfg.FieldLength))
		if !bytes.Equal(wk.verifyBuf, f.Value) {
			ok = false
		}
		checked++
	}
	return checked, ok
}

// NextKeyNum draws the key number of an existing record from the request
// distribution, exactly as reads and updates do. `dbarena keys` uses it to
// show how skewed a distribution is.
func (wk *Worker) NextKeyNum() int64 { return wk.nextKeyNum() }
