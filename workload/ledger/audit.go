// Package ledger is the ledger workload kind's audit: after transfers
// between accounts, every balance is read back and the ledger's
// invariants checked (the sum the load put in, no balance below the
// floor). The kind's settings are workload.Config's; its transfers run
// in the runner through a driver.Transferer.
package ledger

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/record"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/workload"
)

// maxAuditors bounds the sessions an audit reads with: it reads once
// per account, after the measured phase, and needs no more.
const maxAuditors = 16

// Audit reads back every account of a ledger workload
// ([insertstart, insertstart+insertcount)) with up to threads sessions
// and checks its invariants: the balances sum to what the load put in
// and none is below the floor. A driver whose ordinary reads may be
// stale reads with its driver.BalanceReader. Run it when no transfer is running: the
// reads are not one snapshot, and a transfer between two of them would
// move money the sum counts twice or not at all. The error is why it
// could not read at all (no session); accounts it could not read are
// counted in the report, which then fails.
func Audit(ctx context.Context, threads int, wcfg workload.Config, db driver.DB) (*results.LedgerReport, error) {
	if wcfg.Kind != workload.KindLedger {
		return nil, fmt.Errorf("ledger audit: the workload's kind is %s, not %s", wcfg.Kind, workload.KindLedger)
	}
	first, n := wcfg.InsertStart, wcfg.EffectiveInsertCount()
	rep := &results.LedgerReport{Accounts: n, Expected: n * wcfg.Ledger.Balance, Floor: wcfg.Ledger.Floor}
	threads = max(1, min(threads, maxAuditors, int(min(n, maxAuditors))))
	sessions := make([]driver.Session, 0, threads)
	defer func() {
		for _, s := range sessions {
			_ = s.Close() // nothing to do with a close error after the audit
		}
	}()
	for i := range threads {
		s, err := db.Session(ctx, i)
		if err != nil {
			return nil, fmt.Errorf("ledger audit: open session %d: %w", i, err)
		}
		sessions = append(sessions, s)
	}
	a := &audit{cfg: wcfg, rep: rep, field: []string{wcfg.BalanceField()}}
	a.next.Store(first)
	start := time.Now()
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.read(ctx, s, first+n)
		}()
	}
	wg.Wait()
	rep.Seconds = time.Since(start).Seconds()
	rep.Read, rep.Total = a.read0.Load(), a.total.Load()
	rep.BelowFloor, rep.Missing, rep.Unreadable, rep.Errors = a.below.Load(), a.missing.Load(), a.unreadable.Load(), a.errs.Load()
	if err := ctx.Err(); err != nil && rep.Read < n {
		return rep, fmt.Errorf("ledger audit: stopped after %d of %d accounts: %w", rep.Read, n, err)
	}
	return rep, nil
}

// audit is the state the audit's readers share.
type audit struct {
	cfg   workload.Config
	rep   *results.LedgerReport
	field []string
	next  atomic.Int64
	// The counts; read0 is the accounts read with a balance.
	read0, total, below, missing, unreadable, errs atomic.Int64
	mu                                             sync.Mutex
}

// read takes account numbers until last and checks each.
func (a *audit) read(ctx context.Context, s driver.Session, last int64) {
	hashed := a.cfg.InsertOrder != workload.InsertOrdered
	var buf record.Record
	for ctx.Err() == nil {
		k := a.next.Add(1) - 1
		if k >= last {
			return
		}
		key := workload.KeyName(k, hashed, a.cfg.ZeroPadding)
		var err error
		if br, ok := s.(driver.BalanceReader); ok {
			var v []byte
			v, err = br.Balance(ctx, a.cfg.Table, key, a.field[0])
			buf = buf[:0]
			if err == nil {
				buf = buf.Append(a.field[0], v)
			}
		} else {
			buf, err = s.Read(ctx, a.cfg.Table, key, a.field, buf)
		}
		switch {
		case errors.Is(err, driver.ErrNotFound):
			a.missing.Add(1)
			a.evidence(fmt.Sprintf("%s: missing", key))
			continue
		case err != nil:
			a.errs.Add(1)
			a.evidence(fmt.Sprintf("%s: %s", key, driver.Classify(err)))
			continue
		}
		v, ok := buf.Get(a.cfg.BalanceField())
		balance, perr := strconv.ParseInt(string(v), 10, 64)
		if !ok || perr != nil {
			a.unreadable.Add(1)
			a.evidence(fmt.Sprintf("%s: balance %.20q is not an integer", key, v))
			continue
		}
		a.read0.Add(1)
		a.total.Add(balance)
		if balance < a.cfg.Ledger.Floor {
			a.below.Add(1)
			a.evidence(fmt.Sprintf("%s: balance %d below the floor %d", key, balance, a.cfg.Ledger.Floor))
		}
	}
}

// evidence keeps the first results.MaxEvidence broken accounts.
func (a *audit) evidence(s string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.rep.Evidence) < results.MaxEvidence {
		a.rep.Evidence = append(a.rep.Evidence, s)
	}
}
