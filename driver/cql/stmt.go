package cql

import (
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/dbarena/dbarena/record"
)

// opKind names a statement kind in a session's statement cache.
type opKind uint8

const (
	opRead opKind = iota
	opScan
	opInsert
	opUpdate
	opDelete
	numOps
)

// arg is one bound value. The statement's argument list holds pointers to
// its args, so binding an operation's key and values stores slices and
// boxes nothing: a []byte or string in an interface would cost an
// allocation per value per operation.
type arg struct{ b []byte }

// MarshalCQL implements gocql.Marshaler: the bytes go out as they are,
// which is the encoding of text, varchar, ascii and blob alike, so a table
// created with blob fields (as some YCSB set-ups do) works unchanged.
func (a *arg) MarshalCQL(gocql.TypeInfo) ([]byte, error) {
	if a.b == nil {
		// gocql sends a nil slice as NULL; an empty field must read back
		// as empty, not missing. (A zero-length literal does not allocate.)
		return []byte{}, nil
	}
	return a.b, nil
}

// cell receives one column of a result row without copying it; the caller
// copies it into the result record before the iterator is closed.
type cell struct {
	b    []byte
	null bool
}

// UnmarshalCQL implements gocql.Unmarshaler.
func (c *cell) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	c.b, c.null = data, data == nil
	return nil
}

// applied receives the [applied] column of a lightweight transaction.
type applied struct{ ok bool }

// UnmarshalCQL implements gocql.Unmarshaler.
func (a *applied) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	a.ok = len(data) == 1 && data[0] != 0
	return nil
}

// stmt is one prepared statement of a session with its bound arguments and
// the destinations of its result columns. gocql prepares a statement text
// once per host and caches it; the session keeps the *gocql.Query itself so
// that an operation sets its arguments and executes, building nothing.
type stmt struct {
	kind  opKind
	table string
	// names are the fields the statement names, nil for every column.
	names []string
	q     *gocql.Query
	// args are bound in the statement's order; argv points at them.
	args []arg
	argv []any
	// cols is the result metadata the destinations were built for; a new
	// slice (the table changed) rebuilds them.
	cols  []gocql.ColumnInfo
	cells []cell
	dest  []any
	// keyCol is the index of y_id in the result (SELECT *), or -1.
	keyCol int
	// cas receives an LWT result: [applied], then columns ignored.
	cas     applied
	casDest []any
}

// matches reports whether the statement is for table and names, compared
// element by element so that a lookup allocates nothing.
func (s *stmt) matches(table string, names []string, all bool) bool {
	if s.table != table || (s.names == nil) != all || len(s.names) != len(names) {
		return false
	}
	for i := range names {
		if s.names[i] != names[i] {
			return false
		}
	}
	return true
}

// bindDest returns the scan destinations for the iterator's columns,
// rebuilding them when the result metadata changed.
func (s *stmt) bindDest(cols []gocql.ColumnInfo) []any {
	if sameColumns(cols, s.cols) {
		return s.dest
	}
	s.cols = cols
	s.cells = make([]cell, len(cols))
	s.dest = make([]any, len(cols))
	s.keyCol = -1
	for i := range cols {
		if s.names == nil && cols[i].Name == KeyColumn {
			s.keyCol = i
			continue // a nil destination skips the column
		}
		s.dest[i] = &s.cells[i]
	}
	return s.dest
}

// sameColumns compares result metadata by name: gocql hands out the
// prepared statement's metadata for every result, so this is a few string
// comparisons of equal pointers.
func sameColumns(a, b []gocql.ColumnInfo) bool {
	if len(a) != len(b) || b == nil {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name {
			return false
		}
	}
	return true
}

// appendRow appends the scanned row to dst[:0], skipping the key and NULL
// columns (a field never written is absent, as in YCSB's result map).
func (s *stmt) appendRow(dst record.Record) record.Record {
	dst = dst[:0]
	for i := range s.cells {
		if i == s.keyCol || s.cells[i].null {
			continue
		}
		dst = dst.Append(s.cols[i].Name, s.cells[i].b)
	}
	return dst
}

// casDestFor returns destinations for an LWT result: [applied] first, the
// previous values (returned when the condition failed) skipped.
func (s *stmt) casDestFor(n int) []any {
	if cap(s.casDest) < n {
		s.casDest = make([]any, n)
	}
	d := s.casDest[:n]
	clear(d)
	if n > 0 {
		d[0] = &s.cas
	}
	return d
}

// statement texts. Names are unquoted, as in YCSB's statements, so they
// fold to lower case and name the same columns YCSB created.

func selectText(ks, table string, names []string, scan bool) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	if names == nil {
		b.WriteString("*")
	} else {
		b.WriteString(strings.Join(names, ", "))
	}
	b.WriteString(" FROM " + ks + "." + table + " WHERE ")
	if scan {
		// Scans follow YCSB's binding: token order from the start key's
		// token. Rows come in partitioner order, not key order.
		b.WriteString("token(" + KeyColumn + ") >= token(?) LIMIT ?")
	} else {
		b.WriteString(KeyColumn + " = ?")
	}
	return b.String()
}

func insertText(ks, table string, names []string, lwt bool) string {
	q := "INSERT INTO " + ks + "." + table + " (" + KeyColumn + ", " + strings.Join(names, ", ") +
		") VALUES (?" + strings.Repeat(", ?", len(names)) + ")"
	if lwt {
		q += " IF NOT EXISTS"
	}
	return q
}

func updateText(ks, table string, names []string, lwt bool) string {
	q := "UPDATE " + ks + "." + table + " SET " + strings.Join(names, " = ?, ") + " = ? WHERE " + KeyColumn + " = ?"
	if lwt {
		q += " IF EXISTS"
	}
	return q
}

func deleteText(ks, table string, lwt bool) string {
	q := "DELETE FROM " + ks + "." + table + " WHERE " + KeyColumn + " = ?"
	if lwt {
		q += " IF EXISTS"
	}
	return q
}
