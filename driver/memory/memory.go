// Package memory is an in-process key-value store with the semantics of a
// real database for every YCSB operation: inserts of an existing key fail,
// reads, updates and deletes of a missing key return driver.ErrNotFound,
// updates merge fields, and scans return records in key order.
//
// It lets every layer above the driver be tested for real without a server,
// and stands in for a database in the README's first command.
package memory

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/google/btree"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/record"
	"github.com/dbarena/dbarena/workload"
)

// btreeDegree is the node fan-out; 32 is google/btree's suggested value for
// in-memory trees of small items.
const btreeDegree = 32

type item struct {
	key string
	rec record.Record
}

func less(a, b *item) bool { return a.key < b.key }

type table struct {
	mu   sync.RWMutex
	tree *btree.BTreeG[*item]
}

// DB is an in-memory database, safe for concurrent use.
type DB struct {
	mu     sync.Mutex
	tables map[string]*table
}

var (
	_ driver.DB            = (*DB)(nil)
	_ driver.Session       = (*session)(nil)
	_ driver.BatchInserter = (*session)(nil)
	_ driver.InProcess     = (*DB)(nil)
)

// New returns an empty database.
func New() *DB { return &DB{tables: make(map[string]*table)} }

// Open is the driver.Opener: each call returns a new, empty database. It
// refuses a recordcount whose records would not fit in memory.maxbytes,
// rather than loading until the process runs out of memory.
func Open(_ context.Context, p driver.Params) (driver.DB, error) {
	if err := checkCapacity(driver.NewProps("memory", p.Props)); err != nil {
		return nil, err
	}
	return New(), nil
}

// Check is the driver's [driver.Checker]: memory.maxbytes and whether
// recordcount's records fit in it.
func Check(props map[string]string, _ int) error {
	return checkCapacity(driver.NewProps("memory", props))
}

// defaultMaxBytes is memory.maxbytes' default. The memory driver serves
// tests and first runs; 8 GiB of records (about 5 million of YCSB's
// default 1 KB) keeps a loader within a 16 GiB machine once the garbage
// collector's headroom is counted.
const defaultMaxBytes = 8 << 30

// recordBytes estimates the memory a stored record takes: its values, its
// field names (each record holds its own copies) and key, each rounded up
// to the allocator's size class, plus the tree item and field headers.
// Loading 1,000,000 records of 10 x 100 bytes took 1.8 GB of RSS, about
// 1.8 KB of live data a record (estimated: 1,775 bytes).
func recordBytes(fieldCount, fieldLength, nameBytes, keyBytes int64) int64 {
	return 128 + allocBytes(keyBytes) + nameBytes + fieldCount*(allocBytes(fieldLength)+40)
}

// allocBytes bounds what an allocation of n bytes takes: Go's size
// classes leave at most an eighth of a class unused (past the smallest
// classes), so a class is at most 8/7 of what it holds.
func allocBytes(n int64) int64 { return n + (n+6)/7 }

// nameBytes is what a record's field names take: the prefix and the
// field's number, for each field.
func nameBytes(prefix string, fieldCount int64) int64 {
	var n int64
	for i := int64(0); i < fieldCount; i++ {
		n += allocBytes(int64(len(prefix) + len(strconv.FormatInt(i, 10))))
	}
	return n
}

// checkCapacity compares the records a load would store with
// memory.maxbytes.
func checkCapacity(p driver.Props) error {
	limit, err := p.Int("maxbytes", defaultMaxBytes, 1)
	if err == nil {
		err = p.Unknown("maxbytes")
	}
	if err != nil {
		return driver.BadConfig(err)
	}
	number := func(key string, def int64) int64 {
		n, err := strconv.ParseInt(strings.TrimSpace(p.Core(key, "")), 10, 64)
		if err != nil || n < 0 {
			return def // the workload reports bad values
		}
		return n
	}
	d := workload.DefaultConfig()
	records := number(core.RecordCount, 0)
	fields := min(number(core.FieldCount, int64(d.FieldCount)), workload.MaxFieldCount) // the workload refuses more
	// A key is "user" and at most 19 digits, or zeropadding's.
	key := 4 + max(19, min(number(core.ZeroPadding, int64(d.ZeroPadding)), workload.MaxZeroPadding))
	per := recordBytes(fields, number(core.FieldLength, d.FieldLength), nameBytes(p.Core(core.FieldNamePrefix, d.FieldNamePrefix), fields), key)
	if need := float64(records) * float64(per); need > float64(limit) {
		return driver.BadConfig(fmt.Errorf("recordcount %d at about %d bytes a record needs %.3g bytes: more than %s=%d; lower recordcount or raise %s",
			records, per, need, p.Key("maxbytes"), limit, p.Key("maxbytes")))
	}
	return nil
}

// Session implements driver.DB.
func (d *DB) Session(context.Context, int) (driver.Session, error) {
	return &session{db: d}, nil
}

// Close implements driver.DB. The data is dropped with the DB.
func (d *DB) Close() error { return nil }

// Len implements driver.InProcess: the number of records in a table.
func (d *DB) Len(name string) int {
	t := d.table(name)
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.tree.Len()
}

func (d *DB) table(name string) *table {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := d.tables[name]
	if !ok {
		t = &table{tree: btree.NewG(btreeDegree, less)}
		d.tables[name] = t
	}
	return t
}

type session struct {
	db *DB
	// last caches the most recent table so the hot path skips the map lock.
	last     *table
	lastName string
	probe    item
}

func (s *session) table(name string) *table {
	if s.last == nil || s.lastName != name {
		s.last = s.db.table(name)
		s.lastName = strings.Clone(name)
	}
	return s.last
}

// Close implements driver.Session.
func (s *session) Close() error { return nil }

// appendFields copies the wanted fields of rec into dst.
func appendFields(dst, rec record.Record, fields []string) record.Record {
	dst = dst[:0]
	if fields == nil {
		for _, f := range rec {
			dst = dst.Append(f.Name, f.Value)
		}
		return dst
	}
	for _, name := range fields {
		if v, ok := rec.Get(name); ok {
			dst = dst.Append(name, v)
		}
	}
	return dst
}

// Read implements driver.Session.
func (s *session) Read(_ context.Context, tbl, key string, fields []string, dst record.Record) (record.Record, error) {
	t := s.table(tbl)
	s.probe.key = key
	t.mu.RLock()
	it, ok := t.tree.Get(&s.probe)
	if ok {
		dst = appendFields(dst, it.rec, fields)
	}
	t.mu.RUnlock()
	if !ok {
		return dst[:0], driver.ErrNotFound
	}
	return dst, nil
}

// Scan implements driver.Session.
func (s *session) Scan(_ context.Context, tbl, startKey string, count int, fields []string, dst []record.Record) ([]record.Record, error) {
	t := s.table(tbl)
	s.probe.key = startKey
	dst = dst[:0]
	t.mu.RLock()
	t.tree.AscendGreaterOrEqual(&s.probe, func(it *item) bool {
		if len(dst) >= count {
			return false
		}
		n := len(dst)
		if n < cap(dst) {
			dst = dst[:n+1]
		} else {
			dst = append(dst, nil)
		}
		dst[n] = appendFields(dst[n], it.rec, fields)
		return true
	})
	t.mu.RUnlock()
	return dst, nil
}

// Update implements driver.Session: the given fields replace the stored ones.
func (s *session) Update(_ context.Context, tbl, key string, values record.Record) error {
	t := s.table(tbl)
	s.probe.key = key
	t.mu.Lock()
	defer t.mu.Unlock()
	it, ok := t.tree.Get(&s.probe)
	if !ok {
		return driver.ErrNotFound
	}
	for _, f := range values {
		replaced := false
		for i := range it.rec {
			if it.rec[i].Name == f.Name {
				it.rec[i].Value = append(it.rec[i].Value[:0], f.Value...)
				replaced = true
				break
			}
		}
		if !replaced {
			it.rec = append(it.rec, record.Field{Name: strings.Clone(f.Name), Value: append([]byte(nil), f.Value...)})
		}
	}
	return nil
}

// Insert implements driver.Session. Inserting an existing key is a
// ClassConflict error, as a primary-key violation is in SQL databases: it
// exposes key-sequence collisions that an upsert would hide.
func (s *session) Insert(_ context.Context, tbl, key string, values record.Record) error {
	t := s.table(tbl)
	it := &item{key: strings.Clone(key), rec: cloneRecord(values)}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tree.Has(it) {
		return driver.Errorf(driver.ClassConflict, "memory: insert %s/%s: key exists", tbl, key)
	}
	t.tree.ReplaceOrInsert(it)
	return nil
}

// InsertBatch implements driver.BatchInserter. It is all or nothing.
func (s *session) InsertBatch(_ context.Context, tbl string, keys []string, values []record.Record) error {
	t := s.table(tbl)
	items := make([]*item, len(keys))
	for i, k := range keys {
		items[i] = &item{key: strings.Clone(k), rec: cloneRecord(values[i])}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, it := range items {
		if t.tree.Has(it) {
			return driver.Errorf(driver.ClassConflict, "memory: insert %s/%s: key exists", tbl, it.key)
		}
	}
	for _, it := range items {
		t.tree.ReplaceOrInsert(it)
	}
	return nil
}

// Delete implements driver.Session.
func (s *session) Delete(_ context.Context, tbl, key string) error {
	t := s.table(tbl)
	s.probe.key = key
	t.mu.Lock()
	_, ok := t.tree.Delete(&s.probe)
	t.mu.Unlock()
	if !ok {
		return driver.ErrNotFound
	}
	return nil
}

func cloneRecord(r record.Record) record.Record {
	out := r.Clone()
	for i := range out {
		out[i].Name = strings.Clone(out[i].Name)
	}
	return out
}
