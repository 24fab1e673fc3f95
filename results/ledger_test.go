package results_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// TestLedgerSnapshots: a ledger whose end state holds fails when a
// snapshot during its run broke an invariant, and says when; snapshots
// that could not be taken, or a table that cannot be judged, fail
// nothing; the row's counters count them.
func TestLedgerSnapshots(t *testing.T) {
	whole := func() *results.LedgerReport {
		return &results.LedgerReport{Accounts: 10, Read: 10, Total: 1000, Expected: 1000}
	}
	r := whole()
	require.False(t, r.Failed())
	r.During = &results.LedgerSnapshots{Taken: 30, Failed: 2}
	require.False(t, r.Failed())
	require.Contains(t, r.String(), "during the run 30 snapshot sums (2 more could not be taken): invariants hold")
	require.EqualValues(t, 30, r.Counters()["ledger.snapshots"])
	require.Zero(t, r.Counters()["ledger.snapshots_broken"])

	r.During = &results.LedgerSnapshots{Taken: 30, Broken: 4, First: "at 1.2s: total 1007 (loaded 1000, difference +7), 0 below the floor 0"}
	require.True(t, r.Failed(), "the end state holds, a snapshot did not")
	require.Contains(t, r.String(), "4 BROKEN, the first at 1.2s: total 1007")
	require.Contains(t, r.String(), "INVARIANTS BROKEN")
	require.EqualValues(t, 4, r.Counters()["ledger.snapshots_broken"])

	r.During = &results.LedgerSnapshots{Taken: 0, NotJudged: "the table holds 12 rows and the ledger 10 accounts"}
	require.False(t, r.Failed())
	require.Contains(t, r.String(), "; no snapshot sums during the run: the table holds 12 rows")
	r.During = &results.LedgerSnapshots{Taken: 3, NotJudged: "the table holds 12 rows and the ledger 10 accounts"}
	require.Contains(t, r.String(), "during the run 3 snapshot sums (then stopped: the table holds 12 rows")

	// A run shorter than the interval took none: nothing said.
	r.During = &results.LedgerSnapshots{}
	require.NotContains(t, r.String(), "snapshot")
	require.Contains(t, r.String(), ": invariants hold")
}
