package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/ledger"
)

// ledgerProps is a small ledger on hot accounts: 50 accounts of 100, a
// floor of 50 and transfers of up to 40, so that payers hit the floor
// and transfers are declined.
var ledgerProps = []string{
	"recordcount", "50", "fieldcount", "2", "fieldlength", "10",
	"workload.kind", "ledger", "readproportion", "0.1", "updateproportion", "0", "transferproportion", "0.9",
	"requestdistribution", "zipfian", "ledger.balance", "100", "ledger.floor", "50", "ledger.maxamount", "40",
}

// TestLedgerKeepsItsInvariants runs transfers from 8 workers on the
// memory driver and audits the accounts: the money is all there, none
// below the floor, every transfer counted once whether it moved money or
// was declined.
func TestLedgerKeepsItsInvariants(t *testing.T) {
	db := loaded(t, ledgerProps...)
	wl := newWorkload(t, ledgerProps...)
	res, err := runner.Run(context.Background(), runner.Config{Phase: runner.Transactions, Threads: 8, OperationCount: 20000, Seed: 5}, wl, db)
	require.NoError(t, err)
	tr := opSummary(t, res.Measured, "TRANSFER")
	require.Empty(t, tr.Errors, "a declined transfer is a transaction that decided, not an error")
	require.InDelta(t, 18000, tr.OK, 600)
	require.InDelta(t, 2000, opSummary(t, res.Measured, "READ").OK, 600)

	rep, err := ledger.Audit(context.Background(), 4, wl.Config(), db)
	require.NoError(t, err)
	require.False(t, rep.Failed(), rep.String())
	require.Equal(t, int64(50), rep.Read)
	require.Equal(t, int64(5000), rep.Total)
	require.Equal(t, int64(5000), rep.Expected)
	require.Contains(t, rep.String(), "invariants hold")
	_, err = ledger.Audit(context.Background(), 4, newWorkload(t, "recordcount", "50").Config(), db)
	require.ErrorContains(t, err, "ledger audit: the workload's kind is core, not ledger")

	// Some account moved, and some sits within one transfer of the
	// floor: the declines were exercised.
	sess, err := db.Session(context.Background(), 0)
	require.NoError(t, err)
	var moved, low bool
	for k := int64(0); k < 50; k++ {
		r, err := sess.Read(context.Background(), "usertable", workload.KeyName(k, true, 1), []string{"field0"}, nil)
		require.NoError(t, err)
		v, _ := r.Get("field0")
		moved = moved || string(v) != "100"
		low = low || string(v) < "90" && len(v) == 2
	}
	require.True(t, moved, "transfers moved money")
	require.True(t, low, "some account was drawn near its floor")
}

// TestLedgerAuditFindsABrokenInvariant changes balances behind the
// workload's back, as a lost or doubled write would, and sees the audit
// fail, naming the accounts.
func TestLedgerAuditFindsABrokenInvariant(t *testing.T) {
	db := loaded(t, ledgerProps...)
	wl := newWorkload(t, ledgerProps...)
	sess, err := db.Session(context.Background(), 0)
	require.NoError(t, err)
	k3, k7 := workload.KeyName(3, true, 1), workload.KeyName(7, true, 1)
	require.NoError(t, sess.Update(context.Background(), "usertable", k3, recordOf("field0", "49")))
	require.NoError(t, sess.Update(context.Background(), "usertable", k7, recordOf("field0", "ten")))

	rep, err := ledger.Audit(context.Background(), 4, wl.Config(), db)
	require.NoError(t, err)
	require.True(t, rep.Failed())
	require.Equal(t, int64(49), rep.Read)
	require.Equal(t, int64(48*100+49), rep.Total)
	require.Equal(t, int64(1), rep.BelowFloor)
	require.Equal(t, int64(1), rep.Unreadable)
	require.ElementsMatch(t, []string{k3 + ": balance 49 below the floor 50", k7 + `: balance "ten" is not an integer`}, rep.Evidence)
	require.Contains(t, rep.String(), "INVARIANTS BROKEN")

	// A missing account fails it too; a whole total alone does not hide it.
	require.NoError(t, sess.Update(context.Background(), "usertable", k3, recordOf("field0", "100")))
	require.NoError(t, sess.Update(context.Background(), "usertable", k7, recordOf("field0", "100")))
	require.NoError(t, sess.Delete(context.Background(), "usertable", workload.KeyName(9, true, 1)))
	rep, err = ledger.Audit(context.Background(), 2, wl.Config(), db)
	require.NoError(t, err)
	require.True(t, rep.Failed())
	require.Equal(t, int64(1), rep.Missing)
}

// TestLedgerNeedsATransferer refuses a ledger run on a driver whose
// sessions cannot transfer, before any operation runs.
func TestLedgerNeedsATransferer(t *testing.T) {
	wl := newWorkload(t, ledgerProps...)
	db := &stallDB{}
	_, err := runner.Run(context.Background(), runner.Config{Phase: runner.Transactions, Threads: 2, MaxExecutionTime: time.Second, Seed: 1}, wl, db)
	require.ErrorContains(t, err, "workload.kind ledger needs transfers between accounts (driver.Transferer), which this driver's sessions do not offer")
	require.Equal(t, driver.ClassUnsupported, driver.Classify(err))
}
