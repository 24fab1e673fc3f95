package workload

import "github.com/dbarena/dbarena/record"

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
	// NumKinds is the number of operation kinds.
	NumKinds
)

// kindNames are YCSB's measurement names for each kind.
var kindNames = [NumKinds]string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "DELETE"}

// String returns YCSB's name of the kind ("READ", "READ-MODIFY-WRITE", ...).
func (k OpKind) String() string {
	if k < NumKinds {
		return kindNames[k]
	}
	return "UNKNOWN"
}

// KindNames returns the names of all kinds, indexed by OpKind.
func KindNames() []string { return append([]string(nil), kindNames[:]...) }

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
}
