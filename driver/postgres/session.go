package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/record"
)

// op names a statement kind in the session's statement cache.
type op uint8

const (
	opReadAll op = iota
	opReadFields
	opScan
	opInsert
	opUpdate
	opDelete
	opInsertRows
	opCopy
)

// stmtKey identifies one statement text: the operation, the table and the
// fields it names (joined with commas; empty for every field).
type stmtKey struct {
	op     op
	table  string
	fields string
	rows   int
}

// session is one worker's handle. It keeps its connection between
// operations when the pool has one per worker, and caches statement texts
// so that no SQL is built on the hot path.
type session struct {
	db *DB
	// pool is the session's host's (see Config.Hosts).
	pool   *pgxpool.Pool
	conn   *pgxpool.Conn
	stmts  map[stmtKey]string
	buf    []byte
	num    []byte
	names  []string
	vals   [][]byte
	params [][]byte
	// lastNames and lastKey remember the last multi-field cache key.
	lastNames []string
	lastKey   string
	// watched is the Done channel of the context whose end interrupts
	// watchedConn's I/O, and unwatch stops that (see watch).
	watched     <-chan struct{}
	watchedConn *pgx.Conn
	unwatch     func() bool
	fired       chan struct{}
}

var (
	_ driver.Session       = (*session)(nil)
	_ driver.BatchInserter = (*session)(nil)
)

func newSession(db *DB, pool *pgxpool.Pool) *session {
	return &session{db: db, pool: pool, stmts: make(map[stmtKey]string)}
}

// fieldsKey names a list of n field names for the statement cache. Every
// field, or one, needs no key to be built; a longer list reuses the key of
// the previous one when the names repeat (a load writes every field in the
// same order each time), so no string is built per operation.
func (s *session) fieldsKey(n int, name func(i int) string) string {
	switch n {
	case 0:
		return ""
	case 1:
		return name(0)
	}
	if n == len(s.lastNames) {
		same := true
		for i := 0; i < n && same; i++ {
			same = name(i) == s.lastNames[i]
		}
		if same {
			return s.lastKey
		}
	}
	s.lastNames = s.lastNames[:0]
	for i := 0; i < n; i++ {
		s.lastNames = append(s.lastNames, name(i))
	}
	s.lastKey = strings.Join(s.lastNames, ",")
	return s.lastKey
}

func valueNames(values record.Record) []string {
	names := make([]string, len(values))
	for i, f := range values {
		names[i] = f.Name
	}
	return names
}

// statement returns the cached SQL for an operation.
func (s *session) statement(o op, table string, fields []string, values record.Record, rows int) string {
	var fk string
	switch {
	case values == nil:
		fk = s.fieldsKey(len(fields), func(i int) string { return fields[i] })
	default:
		fk = s.fieldsKey(len(values), func(i int) string { return values[i].Name })
	}
	k := stmtKey{op: o, table: table, fields: fk, rows: rows}
	if q, ok := s.stmts[k]; ok {
		return q
	}
	b := s.db.cfg.sql
	var q string
	switch o {
	case opReadAll:
		q = b.readAll(table)
	case opReadFields:
		q = b.readFields(table, fields)
	case opScan:
		q = b.scan(table, fields)
	case opInsert:
		q = b.insert(table, valueNames(values))
	case opUpdate:
		q = b.update(table, valueNames(values))
	case opDelete:
		q = b.delete(table)
	case opInsertRows:
		q = b.insertRows(table, valueNames(values), rows)
	case opCopy:
		q = b.copyFrom(table, valueNames(values))
	}
	s.stmts[k] = q
	return q
}

// acquire returns the connection for one operation.
func (s *session) acquire(ctx context.Context) (*pgxpool.Conn, error) {
	if s.conn != nil {
		return s.conn, nil
	}
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if s.db.sticky {
		s.conn = c
	}
	return c, nil
}

// release gives the connection back after an operation; a connection that
// broke is dropped so that the next operation gets a fresh one.
func (s *session) release(c *pgxpool.Conn) {
	broken := c.Conn().IsClosed()
	if broken {
		s.db.reconnects.Add(1)
	}
	if s.conn == nil || broken {
		if s.conn == c {
			s.conn = nil
		}
		c.Release()
	}
}

// do runs fn on a connection, retrying serialization failures up to the
// configured limit, and returns a classified error.
func (s *session) do(ctx context.Context, fn func(c *pgx.Conn) error) error {
	for attempt := 0; ; attempt++ {
		c, err := s.acquire(ctx)
		if err != nil {
			return classify(err)
		}
		err = fn(c.Conn())
		s.release(c)
		if err != nil && attempt < s.db.cfg.MaxRetries && sqlState(err) == "40001" {
			s.db.retries.Add(1)
			continue
		}
		return classify(err)
	}
}

// Read implements driver.Session.
func (s *session) Read(ctx context.Context, table, key string, fields []string, dst record.Record) (record.Record, error) {
	dst = dst[:0]
	o := opReadFields
	if fields == nil {
		o = opReadAll
	}
	q := s.statement(o, table, fields, nil, 0)
	s.params = append(s.params[:0], text(key))
	found := false
	err := s.do(ctx, func(c *pgx.Conn) error {
		dst, found = dst[:0], false
		_, err := s.query(ctx, c, q, func(fds []pgconn.FieldDescription, raw [][]byte) error {
			if found {
				return nil
			}
			found = true
			var err error
			dst, err = s.appendValues(dst, fds, raw, fields)
			return err
		})
		if err == nil && !found {
			return driver.ErrNotFound
		}
		return err
	})
	return dst, err
}

// watch returns the context to hand pgx for an operation on c under ctx.
// pgx registers a callback on the context of every call, to interrupt the
// connection's I/O if the context ends; on the run's context, which every
// worker shares, that is a registration under one lock per operation
// (0.4 µs of client CPU per update at the median of paired rounds, and 3
// of an operation's 5 allocations). A session with a connection of its
// own registers once per context instead, with the same effect: when ctx
// ends, the connection's deadline passes and the operation in flight
// fails. A context with a deadline, and a connection borrowed for one
// operation, keep pgx's own watch.
func (s *session) watch(ctx context.Context, c *pgx.Conn) context.Context {
	done := ctx.Done()
	_, deadline := ctx.Deadline()
	if done == nil || deadline || s.conn == nil {
		s.stopWatch() // pgx's watch, on a connection with no deadline of ours
		return ctx
	}
	if done != s.watched || c != s.watchedConn {
		s.stopWatch()
		nc := c.PgConn().Conn()
		fired := make(chan struct{})
		s.unwatch = context.AfterFunc(ctx, func() {
			_ = nc.SetDeadline(time.Unix(1, 0))
			close(fired)
		})
		s.watched, s.watchedConn, s.fired = done, c, fired
	}
	return context.Background()
}

// stopWatch ends the registration watch made. If its callback has run (or
// is running: it is waited for), the connection's deadline is cleared, so
// that the connection serves the next context, or the pool, as any other.
func (s *session) stopWatch() {
	if s.unwatch == nil {
		return
	}
	if !s.unwatch() {
		<-s.fired
		_ = s.watchedConn.PgConn().Conn().SetDeadline(time.Time{})
	}
	s.watched, s.watchedConn, s.unwatch, s.fired = nil, nil, nil, nil
}

// query runs q with the session's parameters on c, calls row with each
// row's values as the server sent them, and returns the command tag.
//
// It goes below pgx's row and argument layers to the protocol: the
// statement is prepared once per connection, the parameters are sent as
// the text they are and the values arrive as raw bytes, so nothing is
// encoded, decoded or boxed. A URL that sets another
// default_query_exec_mode (simple_protocol behind PgBouncer) gets pgx's
// own path with that mode instead.
func (s *session) query(ctx context.Context, c *pgx.Conn, q string, row func([]pgconn.FieldDescription, [][]byte) error) (pgconn.CommandTag, error) {
	if err := ctx.Err(); err != nil {
		// Ended before it began: the connection is left untouched, as pgx
		// leaves it, rather than failing on the deadline watch set.
		return pgconn.CommandTag{}, fmt.Errorf("postgres: operation not started: %w", err)
	}
	tag, err := s.queryOn(s.watch(ctx, c), c, q, row)
	if err != nil && ctx.Err() != nil {
		// Interrupted by ctx's end, through the deadline or by pgx.
		return tag, fmt.Errorf("postgres: operation interrupted: %w (%v)", ctx.Err(), err)
	}
	return tag, err
}

// queryOn is query with the context pgx is given.
func (s *session) queryOn(ctx context.Context, c *pgx.Conn, q string, row func([]pgconn.FieldDescription, [][]byte) error) (pgconn.CommandTag, error) {
	if !s.db.prepared {
		return s.queryMode(ctx, c, q, row)
	}
	tag, err := s.queryPrepared(ctx, c, q, row)
	if sqlState(err) == "0A000" {
		// "cached plan must not change result type": the table was
		// recreated with other columns since the statement was prepared
		// on this connection. Prepare it again.
		if derr := c.Deallocate(ctx, q); derr != nil {
			return tag, derr
		}
		tag, err = s.queryPrepared(ctx, c, q, row)
	}
	return tag, err
}

// queryPrepared is query on a statement prepared on c.
func (s *session) queryPrepared(ctx context.Context, c *pgx.Conn, q string, row func([]pgconn.FieldDescription, [][]byte) error) (pgconn.CommandTag, error) {
	sd, err := c.Prepare(ctx, q, q)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	// ExecStatement sends no Describe for a statement that returns
	// columns: their description, kept from Prepare, serves every
	// execution. (A write returns none, and pgconn describes it each
	// time.)
	rr := c.PgConn().ExecStatement(ctx, sd, s.params, nil, nil)
	for err == nil && rr.NextRow() {
		err = row(rr.FieldDescriptions(), rr.Values())
	}
	tag, cerr := rr.Close()
	if cerr != nil {
		return tag, cerr
	}
	return tag, err
}

// queryMode is query through pgx's Query in the URL's exec mode, with
// the parameters passed as strings: as []byte pgx would send them as
// bytea.
func (s *session) queryMode(ctx context.Context, c *pgx.Conn, q string, row func([]pgconn.FieldDescription, [][]byte) error) (pgconn.CommandTag, error) {
	args := make([]any, len(s.params))
	for i, p := range s.params {
		if p != nil {
			args[i] = string(p)
		}
	}
	rows, err := c.Query(ctx, q, args...)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows.FieldDescriptions(), rows.RawValues()); err != nil {
			return pgconn.CommandTag{}, err
		}
	}
	rows.Close()
	return rows.CommandTag(), rows.Err()
}

// appendValues appends one row's fields to dst. Raw values are used as they
// arrive: a TEXT value's wire bytes are the value, so nothing is decoded or
// allocated once dst's buffers have grown.
func (s *session) appendValues(dst record.Record, fds []pgconn.FieldDescription, raw [][]byte, fields []string) (record.Record, error) {
	if s.db.cfg.Layout == LayoutJSONB && fields == nil {
		return appendJSONFields(dst, raw[0])
	}
	for i, fd := range fds {
		if raw[i] == nil || fd.Name == keyColumn {
			continue
		}
		name := fd.Name
		if fields != nil {
			name = fields[i]
		}
		dst = dst.Append(name, raw[i])
	}
	return dst, nil
}

// appendJSONFields appends the fields of a JSON document to dst.
func appendJSONFields(dst record.Record, doc []byte) (record.Record, error) {
	var m map[string]string
	if err := json.Unmarshal(doc, &m); err != nil {
		return dst, fmt.Errorf("decode %s: %w", valueColumn, err)
	}
	for k, v := range m {
		dst = dst.Append(k, []byte(v))
	}
	return dst, nil
}

// Scan implements driver.Session.
func (s *session) Scan(ctx context.Context, table, startKey string, count int, fields []string, dst []record.Record) ([]record.Record, error) {
	q := s.statement(opScan, table, fields, nil, 0)
	s.num = strconv.AppendInt(s.num[:0], int64(count), 10)
	s.params = append(s.params[:0], text(startKey), s.num)
	err := s.do(ctx, func(c *pgx.Conn) error {
		dst = dst[:0]
		_, err := s.query(ctx, c, q, func(fds []pgconn.FieldDescription, raw [][]byte) error {
			var r record.Record
			if n := len(dst); n < cap(dst) {
				r = dst[:n+1][n][:0]
			}
			r, err := s.appendValues(r, fds, raw, fields)
			if err == nil {
				dst = append(dst, r)
			}
			return err
		})
		return err
	})
	return dst, err
}

// text returns the bytes of a string without copying, for a parameter
// that is only read while its statement is sent. An empty string is an
// empty parameter, not a nil one, which would be NULL.
func text(s string) []byte {
	if s == "" {
		return []byte{}
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// setParams fills the session's statement parameters, all in the text
// format, which is how a record's bytes are stored: the key, then each
// value (a JSON document of them in the jsonb layout).
func (s *session) setParams(key string, values record.Record) {
	s.params = append(s.params[:0], text(key))
	if s.db.cfg.Layout == LayoutJSONB {
		s.buf = s.appendDoc(s.buf[:0], values)
		s.params = append(s.params, s.buf)
		return
	}
	for _, f := range values {
		s.params = append(s.params, f.Value)
	}
}

func (s *session) appendDoc(dst []byte, values record.Record) []byte {
	s.names, s.vals = s.names[:0], s.vals[:0]
	for _, f := range values {
		s.names = append(s.names, f.Name)
		s.vals = append(s.vals, f.Value)
	}
	return appendJSON(dst, s.names, s.vals)
}

// exec runs a write with the session's parameters and reports a record
// it did not find.
func (s *session) exec(ctx context.Context, q string, mustMatch bool) error {
	return s.do(ctx, func(c *pgx.Conn) error {
		tag, err := s.query(ctx, c, q, func([]pgconn.FieldDescription, [][]byte) error { return nil })
		if err != nil {
			return err
		}
		if mustMatch && tag.RowsAffected() == 0 {
			return driver.ErrNotFound
		}
		return nil
	})
}

// Update implements driver.Session.
func (s *session) Update(ctx context.Context, table, key string, values record.Record) error {
	q := s.statement(opUpdate, table, nil, values, 0)
	s.setParams(key, values)
	return s.exec(ctx, q, !s.db.cfg.sql.upsert)
}

// Insert implements driver.Session.
func (s *session) Insert(ctx context.Context, table, key string, values record.Record) error {
	q := s.statement(opInsert, table, nil, values, 0)
	s.setParams(key, values)
	return s.exec(ctx, q, false)
}

// Delete implements driver.Session.
func (s *session) Delete(ctx context.Context, table, key string) error {
	q := s.statement(opDelete, table, nil, nil, 0)
	s.params = append(s.params[:0], text(key))
	return s.exec(ctx, q, true)
}

// InsertBatch implements driver.BatchInserter with COPY or one multi-row
// INSERT, as postgres.load chooses. Either is all or nothing.
func (s *session) InsertBatch(ctx context.Context, table string, keys []string, values []record.Record) error {
	if len(keys) == 0 {
		return nil
	}
	if s.db.cfg.Load == "copy" {
		return s.copyBatch(ctx, table, keys, values)
	}
	// One statement per distinct batch size; the last batch of a load is
	// usually shorter.
	q := s.statement(opInsertRows, table, nil, values[0], len(keys))
	s.params = s.params[:0]
	for i, k := range keys {
		s.params = append(s.params, text(k))
		if s.db.cfg.Layout == LayoutJSONB {
			// Each document gets its own slice: the parameters are read
			// only when the statement is sent.
			s.params = append(s.params, s.appendDoc(nil, values[i]))
			continue
		}
		for _, f := range values[i] {
			s.params = append(s.params, f.Value)
		}
	}
	return s.exec(ctx, q, false)
}

func (s *session) copyBatch(ctx context.Context, table string, keys []string, values []record.Record) error {
	q := s.statement(opCopy, table, nil, values[0], 0)
	buf := s.buf[:0]
	for i, k := range keys {
		buf = appendCopyText(buf, []byte(k))
		if s.db.cfg.Layout == LayoutJSONB {
			buf = append(buf, '\t')
			buf = appendCopyText(buf, s.appendDoc(nil, values[i]))
		} else {
			for _, f := range values[i] {
				buf = append(buf, '\t')
				buf = appendCopyText(buf, f.Value)
			}
		}
		buf = append(buf, '\n')
	}
	s.buf = buf
	return s.do(ctx, func(c *pgx.Conn) error {
		_, err := c.PgConn().CopyFrom(ctx, bytes.NewReader(buf), q)
		return err
	})
}

// Close implements driver.Session.
func (s *session) Close() error {
	s.stopWatch()
	if s.conn != nil {
		s.conn.Release()
		s.conn = nil
	}
	return nil
}

// sqlState returns the SQLSTATE of a server error, or "".
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// classify maps an error to a driver error class. SQLSTATE classes are
// documented in PostgreSQL's errcodes appendix.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var de *driver.Error
	if errors.As(err, &de) {
		return err
	}
	code := sqlState(err)
	switch {
	case code == "23505":
		return &driver.Error{Class: driver.ClassConflict, Err: err}
	case code == "40001" || code == "40P01" || code == "55P03":
		return &driver.Error{Class: driver.ClassConflict, Err: err}
	case code == "57014":
		return &driver.Error{Class: driver.ClassTimeout, Err: err}
	case code == "53300" || code == "57P01" || code == "57P03" || strings.HasPrefix(code, "08"):
		return &driver.Error{Class: driver.ClassUnavailable, Err: err}
	case code == "53200" || code == "53100":
		return &driver.Error{Class: driver.ClassThrottled, Err: err}
	case strings.HasPrefix(code, "42") || strings.HasPrefix(code, "22"):
		return &driver.Error{Class: driver.ClassBadRequest, Err: err}
	case code != "":
		return &driver.Error{Class: driver.ClassError, Err: err}
	case pgconn.Timeout(err):
		return &driver.Error{Class: driver.ClassTimeout, Err: err}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	// Anything else without a SQLSTATE is the connection failing.
	return &driver.Error{Class: driver.ClassUnavailable, Err: err}
}
