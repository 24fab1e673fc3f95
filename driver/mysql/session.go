package mysql

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/record"
)

// op names a statement kind in the session's statement cache.
type op uint8

const (
	opRead op = iota
	opScan
	opInsert
	opInsertRows
	opUpdate
	opDelete
)

// stmtKey identifies one statement: the operation, the table and the
// fields it names (see fieldsKey and rowsKey).
type stmtKey struct {
	op     op
	table  string
	fields string
}

// session is one worker's handle: a lock-free copy of the statements it has
// used, and buffers reused from operation to operation.
type session struct {
	db    *DB
	stmts map[stmtKey]*sql.Stmt
	// fields caches DB.tableFields for the last table read in full.
	table  string
	fields []string
	args   []any
	raw    []sql.RawBytes
	dest   []any
}

var (
	_ driver.Session       = (*session)(nil)
	_ driver.BatchInserter = (*session)(nil)
)

func newSession(db *DB) *session {
	return &session{db: db, stmts: make(map[stmtKey]*sql.Stmt)}
}

// statement returns the prepared statement for an operation, building its
// text only the first time this session needs it.
func (s *session) statement(ctx context.Context, o op, table string, fields []string, rows int) (*sql.Stmt, error) {
	fk := fieldsKey(fields)
	if o == opInsertRows {
		fk = rowsKey(fields, rows)
	}
	k := stmtKey{op: o, table: table, fields: fk}
	if st, ok := s.stmts[k]; ok {
		return st, nil
	}
	b := s.db.b
	var q string
	switch o {
	case opRead:
		q = b.read(table, fields)
	case opScan:
		q = b.scan(table, fields)
	case opInsert:
		q = b.insert(table, fields)
	case opInsertRows:
		q = b.insertRows(table, fields, rows)
	case opUpdate:
		q = b.update(table, fields)
	case opDelete:
		q = b.delete(table)
	}
	st, err := s.db.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	s.stmts[k] = st
	return st, nil
}

// allFields returns the field columns of a table, for reads of every field.
func (s *session) allFields(ctx context.Context, table string) ([]string, error) {
	if s.fields != nil && s.table == table {
		return s.fields, nil
	}
	f, err := s.db.tableFields(ctx, table)
	if err != nil {
		return nil, err
	}
	s.table, s.fields = table, f
	return f, nil
}

// scanDest returns n scan destinations backed by the session's raw buffers.
func (s *session) scanDest(n int) []any {
	for len(s.raw) < n {
		s.raw = append(s.raw, nil)
	}
	s.dest = s.dest[:0]
	for i := 0; i < n; i++ {
		s.dest = append(s.dest, &s.raw[i])
	}
	return s.dest
}

// appendRow appends the current row's fields to dst; NULL columns, which
// YCSB never writes, are left out.
func (s *session) appendRow(dst record.Record, rows *sql.Rows, fields []string) (record.Record, error) {
	if err := rows.Scan(s.scanDest(len(fields))...); err != nil {
		return dst, err
	}
	for i, f := range fields {
		if s.raw[i] != nil {
			dst = dst.Append(f, s.raw[i])
		}
	}
	return dst, nil
}

// Read implements driver.Session.
func (s *session) Read(ctx context.Context, table, key string, fields []string, dst record.Record) (record.Record, error) {
	dst = dst[:0]
	if fields == nil {
		var err error
		if fields, err = s.allFields(ctx, table); err != nil {
			return dst, err
		}
	}
	st, err := s.statement(ctx, opRead, table, fields, 0)
	if err != nil {
		return dst, err
	}
	rows, err := st.QueryContext(ctx, key)
	if err != nil {
		return dst, classify(err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return dst, classify(err)
		}
		return dst, driver.ErrNotFound
	}
	if dst, err = s.appendRow(dst, rows, fields); err != nil {
		return dst, classify(err)
	}
	return dst, classify(rows.Close())
}

// Scan implements driver.Session: count records in key order from
// startKey.
func (s *session) Scan(ctx context.Context, table, startKey string, count int, fields []string, dst []record.Record) ([]record.Record, error) {
	dst = dst[:0]
	if fields == nil {
		var err error
		if fields, err = s.allFields(ctx, table); err != nil {
			return dst, err
		}
	}
	st, err := s.statement(ctx, opScan, table, fields, 0)
	if err != nil {
		return dst, err
	}
	rows, err := st.QueryContext(ctx, startKey, count)
	if err != nil {
		return dst, classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		var r record.Record
		if n := len(dst); n < cap(dst) {
			r = dst[:n+1][n][:0]
		}
		if r, err = s.appendRow(r, rows, fields); err != nil {
			return dst, classify(err)
		}
		dst = append(dst, r)
	}
	return dst, classify(rows.Err())
}

// valueNames returns the field names of a record.
func valueNames(values record.Record) []string {
	names := make([]string, len(values))
	for i, f := range values {
		names[i] = f.Name
	}
	return names
}

// writeStatement returns the statement of a write naming values' fields,
// listing the names only when the statement is not cached yet.
func (s *session) writeStatement(ctx context.Context, o op, table string, values record.Record, rows int) (*sql.Stmt, error) {
	if len(values) == 1 && o != opInsertRows {
		// The common update of one field: its name is the cache key.
		if st, ok := s.stmts[stmtKey{op: o, table: table, fields: values[0].Name}]; ok {
			return st, nil
		}
	}
	return s.statement(ctx, o, table, valueNames(values), rows)
}

// exec runs a write; mustMatch reports a record it did not find.
func (s *session) exec(ctx context.Context, st *sql.Stmt, args []any, mustMatch bool) error {
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return classify(err)
	}
	if !mustMatch {
		return nil
	}
	n, err := res.RowsAffected()
	if err != nil {
		return classify(err)
	}
	if n == 0 {
		return driver.ErrNotFound
	}
	return nil
}

// Update implements driver.Session. The connection reports matched rows
// (CLIENT_FOUND_ROWS), so an update that rewrites the same values still
// counts its record.
func (s *session) Update(ctx context.Context, table, key string, values record.Record) error {
	st, err := s.writeStatement(ctx, opUpdate, table, values, 0)
	if err != nil {
		return err
	}
	s.args = s.args[:0]
	for _, f := range values {
		s.args = append(s.args, f.Value)
	}
	s.args = append(s.args, key)
	return s.exec(ctx, st, s.args, true)
}

// Insert implements driver.Session. An existing key is CONFLICT (error
// 1062).
func (s *session) Insert(ctx context.Context, table, key string, values record.Record) error {
	st, err := s.writeStatement(ctx, opInsert, table, values, 1)
	if err != nil {
		return err
	}
	s.args = append(s.args[:0], key)
	for _, f := range values {
		s.args = append(s.args, f.Value)
	}
	return s.exec(ctx, st, s.args, false)
}

// Delete implements driver.Session.
func (s *session) Delete(ctx context.Context, table, key string) error {
	st, err := s.statement(ctx, opDelete, table, nil, 0)
	if err != nil {
		return err
	}
	s.args = append(s.args[:0], key)
	return s.exec(ctx, st, s.args, true)
}

// InsertBatch implements driver.BatchInserter with multi-row INSERTs of at
// most mysql.batch.rows rows. A batch of several statements runs in one
// transaction, so it is all or nothing like a batch of one.
func (s *session) InsertBatch(ctx context.Context, table string, keys []string, values []record.Record) error {
	if len(keys) == 0 {
		return nil
	}
	per := s.db.cfg.BatchRows
	if len(keys) <= per {
		st, err := s.writeStatement(ctx, opInsertRows, table, values[0], len(keys))
		if err != nil {
			return err
		}
		return s.insertRows(ctx, st, table, keys, values)
	}
	// Both statements are prepared before the transaction takes its
	// connection: preparing needs a connection of its own, and with every
	// connection held by a transaction waiting to prepare, none would
	// ever be free.
	full, err := s.writeStatement(ctx, opInsertRows, table, values[0], per)
	if err != nil {
		return err
	}
	var last *sql.Stmt
	if rest := len(keys) % per; rest > 0 {
		if last, err = s.writeStatement(ctx, opInsertRows, table, values[0], rest); err != nil {
			return err
		}
	}
	tx, err := s.db.sql.BeginTx(ctx, nil)
	if err != nil {
		return classify(err)
	}
	for i := 0; i < len(keys); i += per {
		j := min(i+per, len(keys))
		st := full
		if j-i < per {
			st = last
		}
		txst := tx.StmtContext(ctx, st)
		err := s.insertRows(ctx, txst, table, keys[i:j], values[i:j])
		_ = txst.Close()
		if err != nil {
			_ = tx.Rollback()
			return err
		}
	}
	return classify(tx.Commit())
}

// insertRows sends one multi-row INSERT of as many rows as keys.
func (s *session) insertRows(ctx context.Context, st *sql.Stmt, table string, keys []string, values []record.Record) error {
	width := len(values[0])
	s.args = s.args[:0]
	for i, k := range keys {
		if len(values[i]) != width {
			return driver.Errorf(driver.ClassBadRequest, "insert batch into %s: record %s has %d fields, the first has %d", table, k, len(values[i]), width)
		}
		s.args = append(s.args, k)
		for _, f := range values[i] {
			s.args = append(s.args, f.Value)
		}
	}
	if _, err := st.ExecContext(ctx, s.args...); err != nil {
		return classify(fmt.Errorf("insert %d rows into %s: %w", len(keys), table, err))
	}
	return nil
}

// Close implements driver.Session. Statements belong to the DB.
func (s *session) Close() error { return nil }
