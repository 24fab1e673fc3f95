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

import "time"

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

// transaction is what the specification says of one transaction: its
// name as results give it, its share of the usual deck, its minimum
// keying time (clause 5.2.5.2), its mean think time (clause 5.2.5.4)
// and its 90th-percentile response-time limit (clause 5.2.5.4).
type transaction struct {
	name              string
	share             float64
	keying, meanThink time.Duration
	p90Limit          time.Duration
}

// transactions is the one table of the five transactions' facts, in
// Kind's order. Delivery's 5 s limit is for its queueing (clause
// 2.7.2.2), which this implementation does not have: its whole run is
// held to it.
var transactions = [NumKinds]transaction{
	NewOrder:    {"NEW_ORDER", 45, 18 * time.Second, 12 * time.Second, 5 * time.Second},
	Payment:     {"PAYMENT", 43, 3 * time.Second, 12 * time.Second, 5 * time.Second},
	OrderStatus: {"ORDER_STATUS", 4, 2 * time.Second, 10 * time.Second, 5 * time.Second},
	Delivery:    {"DELIVERY", 4, 2 * time.Second, 5 * time.Second, 5 * time.Second},
	StockLevel:  {"STOCK_LEVEL", 4, 2 * time.Second, 5 * time.Second, 20 * time.Second},
}

// Kinds are the five transactions, in the specification's order.
func Kinds() []Kind { return []Kind{NewOrder, Payment, OrderStatus, Delivery, StockLevel} }

// Name is the transaction's name as results name it ("NEW_ORDER").
func (k Kind) Name() string { return transactions[k].name }

// Keying is the transaction's minimum keying time, at the
// specification's times.
func (k Kind) Keying() time.Duration { return transactions[k].keying }

// MeanThink is the mean of the think time after the transaction, at
// the specification's times; a think time is drawn from the negative
// exponential distribution with this mean, truncated at 10 times it
// (clause 5.2.5.7).
func (k Kind) MeanThink() time.Duration { return transactions[k].meanThink }

// P90Limit is the transaction's 90th-percentile response-time limit.
func (k Kind) P90Limit() time.Duration { return transactions[k].p90Limit }

// Mix is the share of each transaction, in percent: the specification's
// minimums for Payment (43), Order-Status, Delivery and Stock-Level (4
// each), New-Order the rest (clause 5.2.3).
type Mix [NumKinds]float64

// DefaultMix is the usual deck: 45, 43, 4, 4, 4.
func DefaultMix() Mix {
	var m Mix
	for k, t := range transactions {
		m[k] = t.share
	}
	return m
}
