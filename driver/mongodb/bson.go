package mongodb

import (
	"encoding/binary"
	"errors"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/dbarena/dbarena/record"
)

// binaryGeneric is BSON binary subtype 0, what YCSB's binding stores: the
// Java driver encodes a byte[] field value as Binary(0x00, bytes).
const binaryGeneric byte = 0x00

// idKey is the field holding the YCSB key.
const idKey = "_id"

// The builders below write BSON by hand into caller-owned buffers: the
// documents are tiny and fixed in shape, and building them without the
// reflection encoder keeps the client's CPU per operation down. A
// document's end cannot fail once its start was written in the same
// buffer, so AppendDocumentEnd's error is not checked.

// appendKeyFilter appends {_id: key}.
func appendKeyFilter(dst []byte, key string) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	dst = bsoncore.AppendStringElement(dst, idKey, key)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// appendRangeFilter appends {_id: {$gte: key}}.
func appendRangeFilter(dst []byte, key string) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	sub, dst := bsoncore.AppendDocumentElementStart(dst, idKey)
	dst = bsoncore.AppendStringElement(dst, "$gte", key)
	dst, _ = bsoncore.AppendDocumentEnd(dst, sub)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// appendFieldValues appends one binary element per field.
func appendFieldValues(dst []byte, values record.Record) []byte {
	for _, f := range values {
		dst = bsoncore.AppendBinaryElement(dst, f.Name, binaryGeneric, f.Value)
	}
	return dst
}

// appendRecord appends {_id: key, field0: Binary(v0), ...}, YCSB's
// document for a record.
func appendRecord(dst []byte, key string, values record.Record) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	dst = bsoncore.AppendStringElement(dst, idKey, key)
	dst = appendFieldValues(dst, values)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// appendSet appends {$set: {field: Binary(v), ...}}.
func appendSet(dst []byte, values record.Record) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	sub, dst := bsoncore.AppendDocumentElementStart(dst, "$set")
	dst = appendFieldValues(dst, values)
	dst, _ = bsoncore.AppendDocumentEnd(dst, sub)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// appendProjection appends {f1: 1, ..., _id: 0}: only the fields asked
// for, without the key the caller already has.
func appendProjection(dst []byte, fields []string) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	for _, f := range fields {
		dst = bsoncore.AppendInt32Element(dst, f, 1)
	}
	dst = bsoncore.AppendInt32Element(dst, idKey, 0)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// errMalformed is returned for a document whose bytes do not parse.
var errMalformed = errors.New("malformed BSON document in reply")

// appendFields appends the fields of a returned document to dst: binary
// values (YCSB's layout) and strings (documents written by other tools)
// are copied; _id and values of other types are skipped, as YCSB's binding
// skips them. name gives the string a key is reported under.
func appendFields(dst record.Record, doc []byte, fields []string, name func([]byte, []string) string) (record.Record, error) {
	if len(doc) < 5 || int(binary.LittleEndian.Uint32(doc)) != len(doc) {
		return dst, errMalformed
	}
	rem := doc[4 : len(doc)-1]
	for len(rem) > 0 {
		el, rest, ok := bsoncore.ReadElement(rem)
		if !ok {
			return dst, errMalformed
		}
		rem = rest
		key := el.KeyBytes()
		if string(key) == idKey {
			continue
		}
		v, ok := valueBytes(el.Value())
		if !ok {
			continue
		}
		dst = dst.Append(name(key, fields), v)
	}
	return dst, nil
}

// valueBytes returns the bytes of a binary or string value without
// copying them.
func valueBytes(v bsoncore.Value) ([]byte, bool) {
	switch v.Type {
	case bsoncore.TypeBinary:
		_, data, ok := v.BinaryOK()
		return data, ok
	case bsoncore.TypeString:
		// int32 length including the terminating NUL, bytes, NUL.
		if len(v.Data) < 5 {
			return nil, false
		}
		n := int(binary.LittleEndian.Uint32(v.Data))
		if n < 1 || n != len(v.Data)-4 {
			return nil, false
		}
		return v.Data[4 : 4+n-1], true
	}
	return nil, false
}
