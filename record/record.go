// Package record holds the data types that workloads produce and drivers
// consume: a record is an ordered list of named fields with byte values.
//
// It is a leaf package so that workload and driver, which must not know of
// each other, can share one representation without copying on the hot path.
package record

import "bytes"

// Field is one named column of a record. Value is only valid for the duration
// of the call it is passed to: callers reuse the backing arrays between
// operations, so a driver that keeps a value must copy it.
type Field struct {
	Name  string
	Value []byte
}

// Record is an ordered list of fields.
type Record []Field

// Append appends a field to r, reusing the value buffer of the slot it
// overwrites when r has spare capacity. It lets drivers fill a caller-owned
// result without allocating once the buffers have grown to size.
func (r Record) Append(name string, value []byte) Record {
	n := len(r)
	if n < cap(r) {
		r = r[:n+1]
		r[n].Name = name
		r[n].Value = append(r[n].Value[:0], value...)
		return r
	}
	return append(r, Field{Name: name, Value: append([]byte(nil), value...)})
}

// Get returns the value of the named field and whether it is present.
func (r Record) Get(name string) ([]byte, bool) {
	for i := range r {
		if r[i].Name == name {
			return r[i].Value, true
		}
	}
	return nil, false
}

// Equal reports whether a and b hold the same fields with the same values,
// in any order. Duplicate names are not expected.
func Equal(a, b Record) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		v, ok := b.Get(a[i].Name)
		if !ok || !bytes.Equal(v, a[i].Value) {
			return false
		}
	}
	return true
}

// Clone returns a deep copy of r that shares no memory with it.
func (r Record) Clone() Record {
	out := make(Record, len(r))
	for i, f := range r {
		out[i] = Field{Name: f.Name, Value: append([]byte(nil), f.Value...)}
	}
	return out
}
