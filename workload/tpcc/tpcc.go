// Package tpcc is the TPC-C workload (TPC Benchmark C, revision 5.11)
// written once in SQL for every database whose driver runs transactions
// of several statements (driver.SQLTransactor): its nine tables, their
// population with warehouses as the scale (clause 4.3), the five
// transactions with their inputs (clauses 2.4 to 2.8), the mix, and the
// consistency conditions checked after a run (clause 3.3.2).
//
// What of the specification is and is not implemented is in
// docs/guide/tpcc.md; in short: the transactions' database work is the
// specification's, the terminals' screens, the Delivery transaction's
// queue (it runs at once) and the durability and ACID tests are not.
package tpcc

// The population's fixed cardinalities (clause 1.2 and 4.3.3.1).
const (
	Items                 = 100_000
	StockPerWarehouse     = Items
	DistrictsPerWarehouse = 10
	CustomersPerDistrict  = 3_000
	OrdersPerDistrict     = 3_000
	// NewOrdersPerDistrict are the last 900 loaded orders, undelivered.
	NewOrdersPerDistrict = 900
	// FirstUndelivered is the first loaded order without a carrier.
	FirstUndelivered = OrdersPerDistrict - NewOrdersPerDistrict + 1
)

// Kind is one of the five transactions.
type Kind int

// The transactions, in the specification's order.
const (
	NewOrder Kind = iota
	Payment
	OrderStatus
	Delivery
	StockLevel
	NumKinds
)

// Name is the transaction's name as results name it ("NEW_ORDER").
func (k Kind) Name() string {
	return [...]string{"NEW_ORDER", "PAYMENT", "ORDER_STATUS", "DELIVERY", "STOCK_LEVEL"}[k]
}

// Mix is the share of each transaction, in percent: the specification's
// minimums for Payment (43), Order-Status, Delivery and Stock-Level (4
// each), New-Order the rest (clause 5.2.3).
type Mix [NumKinds]float64

// DefaultMix is the usual deck: 45, 43, 4, 4, 4.
var DefaultMix = Mix{45, 43, 4, 4, 4}

// P90Limit is each transaction's 90th-percentile response-time limit in
// seconds (clause 5.2.5.4): 5 s for all but Stock-Level's 20 s; Delivery's
// 5 s is for its queueing (clause 2.7.2.2), which this implementation
// does not have: its whole run is held to it.
var P90Limit = [NumKinds]float64{5, 5, 5, 5, 20}
