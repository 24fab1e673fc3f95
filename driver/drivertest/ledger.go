package drivertest

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/record"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/ledger"
)

// ledgerAccounts is how many accounts the ledger step loads: few, so
// that the workers' transfers collide on them.
const ledgerAccounts = 20

// testLedger checks a driver.Transferer: a transfer moves the amount, one
// that would take the payer below the floor is declined and changes
// nothing, one with a missing account is NOT_FOUND, and workers
// transferring at once between a few hot accounts keep the total and
// the floor (the audit), which an update behind the ledger's back
// breaks. A driver whose sessions cannot transfer is logged; one that
// refuses (a Redis cluster) must say why.
func (s *Suite) testLedger(t *testing.T) {
	sess := s.session(t, 0)
	tr, ok := sess.(driver.Transferer)
	if !ok {
		t.Log("the driver's sessions cannot transfer (driver.Transferer): no ledger on it")
		return
	}
	wcfg, wl := s.loadLedger(t)
	if !s.checkTransfers(t, sess, tr, wcfg) {
		return
	}
	// Its connection back to the pool before the workers take theirs:
	// a driver with a connection per worker has no spare.
	require.NoError(t, sess.Close())
	s.checkConcurrentTransfers(t, wcfg, wl)
}

// loadLedger creates and loads the ledger's table of ledgerAccounts
// accounts of 100 each, floor 10, dropped when the test ends.
func (s *Suite) loadLedger(t *testing.T) (workload.Config, *workload.Workload) {
	ctx := context.Background()
	table := s.o.Table + "_ledger"
	props := map[string]string{
		core.WorkloadKind: string(workload.KindLedger), core.Table: table, core.RecordCount: strconv.Itoa(ledgerAccounts), core.OperationCount: "1000",
		core.FieldCount: "2", core.FieldLength: "20", core.DataIntegrity: "false",
		core.ReadProportion: "0.1", core.UpdateProportion: "0", core.TransferProportion: "0.9",
		core.RequestDistribution: "zipfian", core.LedgerBalance: "100", core.LedgerFloor: "10", core.LedgerMaxAmount: "60",
	}
	wcfg := s.workloadConfig(t, props)
	wl, err := workload.New(wcfg)
	require.NoError(t, err)
	schema := driver.Schema{Table: table, Fields: wl.FieldNames(), FieldLength: 20}
	if sm, ok := s.db.(driver.SchemaManager); ok {
		require.NoError(t, sm.DropSchema(ctx, schema))
		require.NoError(t, sm.CreateSchema(ctx, schema))
		t.Cleanup(func() { _ = sm.DropSchema(context.Background(), schema) })
	}
	load, err := runner.Run(ctx, runner.Config{Phase: runner.Load, Threads: 4, Seed: 7}, wl, s.db)
	require.NoError(t, err)
	RequireNoErrors(t, load)
	return wcfg, wl
}

// checkTransfers checks single transfers: the amount moves, a transfer
// below the floor is declined, a missing account is NOT_FOUND, a transfer
// to itself BAD_REQUEST, and the balances end as loaded. It returns false
// when the driver refuses transfers here, saying what it refuses.
func (s *Suite) checkTransfers(t *testing.T, sess driver.Session, tr driver.Transferer, wcfg workload.Config) bool {
	ctx := context.Background()
	table := wcfg.Table
	hashed := wcfg.InsertOrder == workload.InsertHashed
	a, b := workload.KeyName(0, hashed, wcfg.ZeroPadding), workload.KeyName(1, hashed, wcfg.ZeroPadding)
	move := driver.Transfer{From: a, To: b, Field: wcfg.BalanceField(), Amount: 30, Floor: 10}
	err := tr.Transfer(ctx, table, move)
	if driver.Classify(err) == driver.ClassUnsupported {
		require.ErrorContains(t, err, "transfer", "a refusal says what it refuses")
		t.Logf("the driver refuses transfers here: %v", err)
		return false
	}
	require.NoError(t, err)
	requireBalances(t, sess, table, wcfg.BalanceField(), map[string]string{a: "70", b: "130"})
	move.Amount = 61 // 70 - 61 is below the floor of 10
	require.ErrorIs(t, tr.Transfer(ctx, table, move), driver.ErrDeclined)
	requireBalances(t, sess, table, wcfg.BalanceField(), map[string]string{a: "70", b: "130"})
	move.Amount, move.From = 1, "dbarena-no-such-account"
	require.Equal(t, driver.ClassNotFound, driver.Classify(tr.Transfer(ctx, table, move)))
	move.From, move.To = a, a // to itself: it would make money
	require.Equal(t, driver.ClassBadRequest, driver.Classify(tr.Transfer(ctx, table, move)))
	requireBalances(t, sess, table, wcfg.BalanceField(), map[string]string{a: "70"})
	move.To = b
	move.From, move.To, move.Amount = b, a, 30 // back as loaded
	require.NoError(t, tr.Transfer(ctx, table, move))
	return true
}

// checkConcurrentTransfers runs the driver's workers on transfers
// between a few hot accounts and audits: the total and the floor hold
// (or, for a driver whose transfers may be lost in flight, at most each
// failed transfer's amount is lost), and a write behind the ledger's
// back fails the audit, named.
func (s *Suite) checkConcurrentTransfers(t *testing.T, wcfg workload.Config, wl *workload.Workload) {
	ctx := context.Background()
	table := wcfg.Table
	summer, _ := s.db.(driver.LedgerSummer)
	snapshots := s.sumWhileRunning(t, summer, wcfg)
	res, err := runner.Run(ctx, runner.Config{Phase: runner.Transactions, Threads: s.o.Workers, Seed: 11,
		OperationCount: wcfg.OperationCount, MaxExecutionTime: time.Minute}, wl, s.db)
	sums := snapshots()
	require.NoError(t, err)
	if summer != nil {
		// Every snapshot taken while transfers ran saw the money whole.
		require.NotEmpty(t, sums)
		for _, sum := range sums {
			require.Equal(t, driver.LedgerSum{Accounts: ledgerAccounts, Total: ledgerAccounts * 100}, sum)
		}
		t.Logf("%d snapshot sums during %d transfers held", len(sums), series(res, "TRANSFER").Counted)
	}
	require.EqualValues(t, wcfg.OperationCount, res.MeasuredResults.TotalCounted(), "every transfer and read ran (%s)", res.StopReason)
	tr0 := series(res, "TRANSFER")
	require.Positive(t, tr0.OK())
	rep, err := ledger.Audit(ctx, 4, wcfg, s.db)
	require.NoError(t, err)
	failed := tr0.ErrorCount()
	if s.o.LossyTransfers && failed > 0 {
		// Each failed transfer may have debited without crediting: the
		// total falls by at most its amount, and never rises.
		t.Logf("%d of %d transfers failed (%v): %s", failed, tr0.Counted, tr0.Errors, rep)
		for class := range tr0.Errors {
			require.Contains(t, []string{string(driver.ClassTimeout), string(driver.ClassConflict)}, class)
		}
		require.LessOrEqual(t, rep.Total, rep.Expected, "no money is made")
		require.GreaterOrEqual(t, rep.Total, rep.Expected-failed*60, "at most each failed transfer's amount is lost")
		require.Zero(t, rep.BelowFloor+rep.Missing+rep.Unreadable+rep.Errors, "%s", rep)
	} else {
		RequireNoErrors(t, res)
		require.False(t, rep.Failed(), "%s", rep)
		require.EqualValues(t, ledgerAccounts*100, rep.Total)
	}

	// A write behind the ledger's back: the audit names it.
	a := workload.KeyName(0, wcfg.InsertOrder == workload.InsertHashed, wcfg.ZeroPadding)
	sess := s.session(t, 0)
	require.NoError(t, sess.Update(ctx, table, a, record.Record{{Name: wcfg.BalanceField(), Value: []byte("5")}}))
	rep, err = ledger.Audit(ctx, 4, wcfg, s.db)
	require.NoError(t, err)
	require.True(t, rep.Failed())
	require.EqualValues(t, 1, rep.BelowFloor)
	require.Contains(t, rep.Evidence, a+": balance 5 below the floor 10")
	if summer != nil {
		sum, err := summer.SumBalances(ctx, table, wcfg.BalanceField(), wcfg.Ledger.Floor)
		require.NoError(t, err)
		require.Equal(t, driver.LedgerSum{Accounts: ledgerAccounts, Total: rep.Total, BelowFloor: 1}, sum, "the snapshot sees the write too")
	}
}

// sumWhileRunning takes snapshot sums of the ledger until the returned
// function is called, which returns them (none for a driver that takes
// none, or whose transfers may lose money in flight).
func (s *Suite) sumWhileRunning(t *testing.T, summer driver.LedgerSummer, wcfg workload.Config) func() []driver.LedgerSum {
	if summer == nil || s.o.LossyTransfers {
		return func() []driver.LedgerSum { return nil }
	}
	ctx, cancel := context.WithCancel(context.Background())
	var sums []driver.LedgerSum
	var errs []error
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			sum, err := summer.SumBalances(ctx, wcfg.Table, wcfg.BalanceField(), wcfg.Ledger.Floor)
			switch {
			case ctx.Err() != nil:
			case err != nil:
				errs = append(errs, err)
			default:
				sums = append(sums, sum)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return func() []driver.LedgerSum {
		cancel()
		<-done
		require.Empty(t, errs)
		return sums
	}
}

// requireBalances reads accounts' balances and compares them.
func requireBalances(t *testing.T, sess driver.Session, table, field string, want map[string]string) {
	t.Helper()
	for key, w := range want {
		rec, err := sess.Read(context.Background(), table, key, []string{field}, nil)
		require.NoError(t, err)
		v, _ := rec.Get(field)
		require.Equal(t, w, string(v), "balance of %s", key)
	}
}
