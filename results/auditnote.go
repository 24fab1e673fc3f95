package results

import (
	"fmt"
	"strings"
)

// AuditNote says in a few words what a row's counters hold of its
// workload's invariants and decisions: TPC-C's consistency result, a
// ledger's audit and its declined transfers ("" for a row without).
// The report shows it beside the row, so that an audit that passed is
// said as plainly as one that failed.
func AuditNote(counters map[string]float64, operations int64) string {
	var parts []string
	if n, ok := counters[CounterTPCCConditions]; ok {
		broken := counters[CounterTPCCConditionsBroken]
		if broken == 0 {
			parts = append(parts, fmt.Sprintf("TPC-C consistency: %.0f of %.0f conditions hold", n, n))
		} else {
			parts = append(parts, fmt.Sprintf("TPC-C consistency: %.0f of %.0f conditions BROKEN (the trial's status names the rows)", broken, n))
		}
	}
	if _, ok := counters[CounterLedgerAccountsRead]; ok {
		total, loaded := counters[CounterLedgerTotal], counters[CounterLedgerExpectedTotal]
		below, unchecked := counters[CounterLedgerBelowFloor], counters[CounterLedgerUnchecked]
		switch {
		case total == loaded && below == 0 && unchecked == 0 && counters[CounterLedgerSnapshotsBroken] == 0:
			parts = append(parts, fmt.Sprintf("ledger audit: invariants hold (total %.0f as loaded, no account below the floor)", total))
		default:
			parts = append(parts, fmt.Sprintf("ledger audit: INVARIANTS BROKEN (total %.0f, loaded %.0f; %.0f below the floor, %.0f not checked; the trial's status names the accounts)",
				total, loaded, below, unchecked))
		}
	}
	if d, ok := counters[CounterLedgerDeclined]; ok {
		s := fmt.Sprintf("%.0f transfers declined (the payer at its floor), counted done", d)
		if operations > 0 {
			s = fmt.Sprintf("%.0f transfers declined (%.1f%%: the payer at its floor), counted done", d, 100*d/float64(operations))
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
