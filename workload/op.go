package workload

import (
	"github.com/dbarena/dbarena/record"
	"github.com/dbarena/dbarena/workload/tpcc"
)

// OpKind is a YCSB operation type.
type OpKind uint8

// Operation kinds, in the order measured series are numbered.
const (
	Read OpKind = iota
	Update
	Insert
	Scan
	ReadModifyWrite
	Delete
	// Transfer moves an amount from one account's balance to another's
	// (the ledger, transferproportion).
	Transfer
	// NewOrder to StockLevel are TPC-C's transactions (tpcc.warehouses),
	// in package tpcc's order.
	NewOrder
	Payment
	OrderStatus
	Delivery
	StockLevel
	// NumKinds is the number of operation kinds.
	NumKinds
)

// kindNames are YCSB's measurement names for its kinds, and dbarena's
// for the ledger's transfer; TPC-C's transactions are named by package
// tpcc.
var kindNames = [NewOrder]string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "DELETE", "TRANSFER"}

// TPCC returns the TPC-C transaction a kind is, and whether it is one.
func (k OpKind) TPCC() (tpcc.Kind, bool) {
	if k < NewOrder || k > StockLevel {
		return 0, false
	}
	return tpcc.Kind(k - NewOrder), true
}

// String returns YCSB's name of the kind ("READ", "READ-MODIFY-WRITE", ...).
func (k OpKind) String() string {
	if t, ok := k.TPCC(); ok {
		return t.Name()
	}
	if k >= 0 && k < NewOrder {
		return kindNames[k]
	}
	return "UNKNOWN"
}

// KindNames returns the names of all kinds, indexed by OpKind.
func KindNames() []string {
	out := make([]string, NumKinds)
	for k := range NumKinds {
		out[k] = k.String()
	}
	return out
}

// Operation is the next thing a worker should do. It is owned by the Worker
// that returned it and overwritten by the next call: Key, Fields and Values
// are views into the worker's buffers.
type Operation struct {
	Kind  OpKind
	Table string
	// KeyNum is the record number the key was built from.
	KeyNum int64
	Key    string
	// Fields lists the fields to read; nil means all of them.
	Fields []string
	// Values holds the fields to write (insert, update, read-modify-write).
	Values record.Record
	// ScanCount is the number of records a scan asks for.
	ScanCount int
	// ToKeyNum and ToKey are a transfer's receiving account (Key is the
	// paying one), Amount what it moves.
	ToKeyNum int64
	ToKey    string
	Amount   int64
}
