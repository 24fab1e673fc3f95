package cql

import (
	"context"
	"encoding/binary"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/record"
)

// session is one worker's handle. It keeps a statement per operation kind,
// table and field set, each holding its *gocql.Query and argument slots, so
// that an operation copies its key, points at its values and executes.
type session struct {
	db *DB
	// stmts holds the statements of each kind, searched in order: a
	// session has a handful (workload A: one read, ten one-field updates),
	// and comparing them costs about 150 ns, a map look-up as much.
	stmts [numOps][]*stmt
	// last is the most recently used statement of each kind: workloads
	// mostly repeat one field set (read all, insert all).
	last [numOps]*stmt
	load *loader
}

var (
	_ driver.Session       = (*session)(nil)
	_ driver.BatchInserter = (*session)(nil)
)

func newSession(db *DB) *session { return &session{db: db} }

// Close implements driver.Session. The statements belong to the shared
// gocql session, which the DB closes.
func (s *session) Close() error { return nil }

// lookup returns the statement for a kind, table and field list (all
// fields when all is set), creating it on first use.
func (s *session) lookup(kind opKind, table string, names []string, all bool) *stmt {
	if st := s.last[kind]; st != nil && st.matches(table, names, all) {
		return st
	}
	for _, st := range s.stmts[kind] {
		if st.matches(table, names, all) {
			s.last[kind] = st
			return st
		}
	}
	var owned []string
	if !all {
		owned = make([]string, len(names))
		for i, n := range names {
			owned[i] = strings.Clone(n)
		}
	}
	st := s.newStmt(kind, strings.Clone(table), owned)
	s.stmts[kind] = append(s.stmts[kind], st)
	s.last[kind] = st
	return st
}

// lookupValues is lookup for the field names of a record, without
// collecting them into a slice first.
func (s *session) lookupValues(kind opKind, table string, values record.Record) *stmt {
	if st := s.last[kind]; st != nil && st.matchesRecord(table, values) {
		return st
	}
	for _, st := range s.stmts[kind] {
		if st.matchesRecord(table, values) {
			s.last[kind] = st
			return st
		}
	}
	names := make([]string, len(values))
	for i, f := range values {
		names[i] = f.Name
	}
	return s.lookup(kind, table, names, false)
}

func (s *stmt) matchesRecord(table string, values record.Record) bool {
	if s.table != table || s.names == nil || len(s.names) != len(values) {
		return false
	}
	for i := range values {
		if s.names[i] != values[i].Name {
			return false
		}
	}
	return true
}

// newStmt builds a statement's text and query once.
func (s *session) newStmt(kind opKind, table string, names []string) *stmt {
	cfg := &s.db.cfg
	ks := cfg.Keyspace
	st := &stmt{kind: kind, table: table, names: names, keyCol: -1}
	var text string
	nargs := 1
	switch kind {
	case opRead:
		text = selectText(ks, table, names, false)
	case opScan:
		text, nargs = selectText(ks, table, names, true), 2
	case opInsert:
		text, nargs = insertText(ks, table, names, cfg.LWT), 1+len(names)
	case opUpdate:
		text, nargs = updateText(ks, table, names, cfg.LWT), len(names)+1
	case opDelete:
		text = deleteText(ks, table, cfg.LWT)
	}
	st.args = make([]arg, nargs)
	st.argv = make([]any, nargs)
	for i := range st.args {
		st.argv[i] = &st.args[i]
	}
	q := s.db.session.Query(text, st.argv...)
	if kind == opRead || kind == opScan {
		q.Consistency(cfg.Read).Idempotent(true)
	} else {
		// Plain writes carry a client timestamp, so sending one twice
		// leaves the same row: they may be retried. LWTs may not.
		q.Consistency(cfg.Write).Idempotent(!cfg.LWT).SerialConsistency(cfg.Serial)
	}
	if s.db.tracer != nil {
		q.Trace(s.db.tracer)
	}
	st.q = q
	return st
}

// run executes a statement and counts the retries gocql made.
func (s *session) run(ctx context.Context, st *stmt) *gocql.Iter {
	iter := st.q.IterContext(ctx)
	if n := iter.Attempts(); n > 1 {
		s.db.retries.Add(int64(n - 1))
	}
	return iter
}

// setKey copies the key into the statement's key slot; the key string
// is only valid during the call, and the copy is 20-odd bytes.
func setKey(a *arg, key string) { a.b = append(a.b[:0], key...) }

// Read implements driver.Session. A missing key is driver.ErrNotFound.
func (s *session) Read(ctx context.Context, table, key string, fields []string, dst record.Record) (record.Record, error) {
	st := s.lookup(opRead, table, fields, len(fields) == 0)
	setKey(&st.args[0], key)
	iter := s.run(ctx, st)
	found := false
	if cols := iter.Columns(); len(cols) > 0 && iter.Scan(st.bindDest(cols)...) {
		dst = st.appendRow(dst)
		found = true
	}
	if err := iter.Close(); err != nil {
		return dst[:0], opError(ctx, "read", table, key, err)
	}
	if !found {
		return dst[:0], driver.ErrNotFound
	}
	return dst, nil
}

// Scan implements driver.Session: up to count rows from the start key's
// token on, in token order.
func (s *session) Scan(ctx context.Context, table, startKey string, count int, fields []string, dst []record.Record) ([]record.Record, error) {
	st := s.lookup(opScan, table, fields, len(fields) == 0)
	setKey(&st.args[0], startKey)
	st.args[1].b = binary.BigEndian.AppendUint32(st.args[1].b[:0], uint32(count))
	iter := s.run(ctx, st)
	dst = dst[:0]
	if cols := iter.Columns(); len(cols) > 0 {
		dest := st.bindDest(cols)
		for iter.Scan(dest...) {
			n := len(dst)
			if n < cap(dst) {
				dst = dst[:n+1]
			} else {
				dst = append(dst, nil)
			}
			dst[n] = st.appendRow(dst[n])
		}
	}
	if err := iter.Close(); err != nil {
		return dst[:0], opError(ctx, "scan", table, startKey, err)
	}
	return dst, nil
}

// Update implements driver.Session. Without LWT a CQL UPDATE is an upsert:
// updating a missing key creates a row with only the given fields. With
// cql.lwt it is UPDATE ... IF EXISTS and a missing key is
// driver.ErrNotFound.
func (s *session) Update(ctx context.Context, table, key string, values record.Record) error {
	st := s.lookupValues(opUpdate, table, values)
	for i := range values {
		st.args[i].b = values[i].Value
	}
	setKey(&st.args[len(values)], key)
	ok, err := s.write(ctx, st)
	if err != nil {
		return opError(ctx, "update", table, key, err)
	}
	if !ok {
		return driver.ErrNotFound
	}
	return nil
}

// Insert implements driver.Session. Without LWT an INSERT overwrites an
// existing row; with cql.lwt it is INSERT ... IF NOT EXISTS and an
// existing key is a CONFLICT.
func (s *session) Insert(ctx context.Context, table, key string, values record.Record) error {
	st := s.lookupValues(opInsert, table, values)
	setKey(&st.args[0], key)
	for i := range values {
		st.args[i+1].b = values[i].Value
	}
	ok, err := s.write(ctx, st)
	if err != nil {
		return opError(ctx, "insert", table, key, err)
	}
	if !ok {
		return driver.Errorf(driver.ClassConflict, "cql insert %s %q: key exists (IF NOT EXISTS not applied)", table, key)
	}
	return nil
}

// Delete implements driver.Session. Without LWT deleting a missing key
// succeeds (a tombstone is written); with cql.lwt it is driver.ErrNotFound.
func (s *session) Delete(ctx context.Context, table, key string) error {
	st := s.lookup(opDelete, table, nil, true)
	setKey(&st.args[0], key)
	ok, err := s.write(ctx, st)
	if err != nil {
		return opError(ctx, "delete", table, key, err)
	}
	if !ok {
		return driver.ErrNotFound
	}
	return nil
}

// write executes an insert, update or delete and reports whether it was
// applied: always for plain writes, the [applied] column for LWTs.
func (s *session) write(ctx context.Context, st *stmt) (bool, error) {
	iter := s.run(ctx, st)
	ok := true
	if s.db.cfg.LWT {
		st.cas.ok = false
		if cols := iter.Columns(); len(cols) > 0 {
			iter.Scan(st.casDestFor(len(cols))...)
		}
		ok = st.cas.ok
	}
	if err := iter.Close(); err != nil {
		return false, err
	}
	if !ok {
		s.db.notApplied.Add(1)
	}
	return ok, nil
}
