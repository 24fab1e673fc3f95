package results_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// TestAuditNote: the report and the verdict say that an audit passed as
// plainly as that it failed, and count the ledger's declined transfers.
func TestAuditNote(t *testing.T) {
	require.Empty(t, results.AuditNote(map[string]float64{"postgres.retries": 2}, 10), "a YCSB row has none")
	require.Equal(t, "TPC-C consistency: 11 of 11 conditions hold",
		results.AuditNote(map[string]float64{"tpcc.conditions_checked": 11, "tpcc.conditions_broken": 0}, 0))
	require.Contains(t, results.AuditNote(map[string]float64{"tpcc.conditions_checked": 11, "tpcc.conditions_broken": 1}, 0),
		"TPC-C consistency: 1 of 11 conditions BROKEN")

	held := map[string]float64{"ledger.accounts_read": 10, "ledger.total": 1000, "ledger.expected_total": 1000, results.CounterLedgerDeclined: 5}
	require.Equal(t, "ledger audit: invariants hold (total 1000 as loaded, no account below the floor); 5 transfers declined (2.5%: the payer at its floor), counted done",
		results.AuditNote(held, 200))
	held["ledger.total"] = 1001
	require.Contains(t, results.AuditNote(held, 200), "ledger audit: INVARIANTS BROKEN (total 1001, loaded 1000")
	held["ledger.total"], held["ledger.below_floor"] = 1000, 1
	require.Contains(t, results.AuditNote(held, 200), "INVARIANTS BROKEN")
	held["ledger.below_floor"], held["ledger.snapshots_broken"] = 0, 1
	require.Contains(t, results.AuditNote(held, 200), "INVARIANTS BROKEN", "a snapshot during the run broke them")
}

// TestBrokenLedgerSaysHow: a total that moved names no account, and the
// audit says so instead of pointing at rows it does not have; accounts
// below the floor are named, with how many there were.
func TestBrokenLedgerSaysHow(t *testing.T) {
	r := &results.LedgerReport{Accounts: 10, Read: 10, Total: 1007, Expected: 1000}
	require.Contains(t, r.String(), "INVARIANTS BROKEN (the total moved by +7 from what was loaded, which no single account shows)")
	r = &results.LedgerReport{Accounts: 10, Read: 10, Total: 1000, Expected: 1000, BelowFloor: 12, Evidence: []string{"user1: balance -5 below the floor 0"}}
	require.Contains(t, r.String(), "INVARIANTS BROKEN (the accounts (1 of 12 named): user1: balance -5 below the floor 0)")
	require.NotContains(t, r.String(), "total moved")
}

// TestTPCCShortAndRollbacks: the verdict's TPC-C line names the rate by
// its mode, New-Order's p90 against its limit (over it, said), and the
// New-Orders rolled back; the long line counts them too.
func TestTPCCShortAndRollbacks(t *testing.T) {
	ops := []results.Op{{Name: "NEW_ORDER", Operations: 600, Latency: results.Latency{P90: 12_100}},
		{Name: "STOCK_LEVEL", Operations: 50, Latency: results.Latency{P90: 21e6}}}
	c := map[string]float64{results.CounterTPCCWarehouses: 1, results.CounterTPCCRolledBack: 6}
	f := results.TPCCFiguresOf(c, time.Minute, 4, ops)
	require.Equal(t, "10.8 tx/s, 600.0 New-Orders a minute (unpaced, not tpmC), New-Order p90 12.1 ms (limit 5 s), STOCK_LEVEL p90 21000 ms OVER its 20 s, 1.0% rolled back", f.Short())
	require.Contains(t, f.String(), "6 New-Orders rolled back by their unused item (1.0%, the specification's 1%)")
	ops[0].Latency.P90 = 5_000_001
	require.Contains(t, results.TPCCFiguresOf(c, time.Minute, 4, ops).Short(), "New-Order p90 5000.0 ms (limit 5 s) OVER THE LIMIT")
	ops[0].Latency.P90 = 5_000_000
	require.NotContains(t, results.TPCCFiguresOf(c, time.Minute, 4, ops).Short(), "New-Order p90 5000.0 ms (limit 5 s) OVER")
	delete(c, results.CounterTPCCRolledBack)
	f = results.TPCCFiguresOf(c, time.Minute, 4, ops)
	require.NotContains(t, f.Short(), "rolled back", "a row from before the count says nothing of it")
	require.NotContains(t, f.String(), "rolled back")
}

// TestCounterSection: a TPC-C or ledger trial's own figures are the
// workload's sections of the YCSB text, the others the driver's.
func TestCounterSection(t *testing.T) {
	require.Equal(t, "TPCC", results.CounterSection(results.CounterTPCCWarehouses))
	require.Equal(t, "TPCC", results.CounterSection(results.CounterTPCCRolledBack))
	require.Equal(t, "LEDGER", results.CounterSection(results.CounterLedgerDeclined))
	require.Equal(t, "DRIVER", results.CounterSection("postgres.retries"))
}

// TestTPCCLoadOf: a TPC-C load's row is said in warehouses; any other
// row is not one.
func TestTPCCLoadOf(t *testing.T) {
	row := &results.Trial{Counters: map[string]float64{results.CounterTPCCLoaded: 2}, Duration: 4567 * time.Millisecond}
	what, ok := results.TPCCLoadOf(row)
	require.True(t, ok)
	require.Equal(t, "2 warehouses (and the items) in 4.6s", what)
	_, ok = results.TPCCLoadOf(&results.Trial{Counters: map[string]float64{results.CounterTPCCWarehouses: 1}})
	require.False(t, ok, "a TPC-C run is not a load")
}
