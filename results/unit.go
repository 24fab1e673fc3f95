package results

// Unit is what a throughput counts: operations, or a TPC-C run's
// transactions (each of several statements), which a reader must not
// take for the other.
type Unit string

// The units of a throughput.
const (
	UnitOperations   Unit = "ops"
	UnitTransactions Unit = "tx"
)

// UnitOf is what a trial's throughput counts: transactions for a TPC-C
// trial (its row carries TPC-C's scale among its counters), operations
// otherwise.
func UnitOf(t *Trial) Unit {
	if _, ok := t.Counters[CounterTPCCWarehouses]; ok {
		return UnitTransactions
	}
	return UnitOperations
}

// Rate is the unit of a rate: "ops/s", "tx/s".
func (u Unit) Rate() string { return u.Short() + "/s" }

// Plural names the unit in words: "operations", "transactions".
func (u Unit) Plural() string {
	if u == UnitTransactions {
		return "transactions"
	}
	return "operations"
}

// Short is the unit's abbreviation: "ops", "tx". The zero Unit is
// operations.
func (u Unit) Short() string {
	if u == "" {
		return string(UnitOperations)
	}
	return string(u)
}
