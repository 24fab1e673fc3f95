package driver

import (
	"context"
	"strconv"
	"strings"
)

// Dialect names the SQL a database speaks, for workloads written in SQL
// (TPC-C) that must say a few things differently on each.
type Dialect string

// The dialects of the SQL drivers.
const (
	// DialectPostgres is PostgreSQL's, CockroachDB's and YugabyteDB
	// YSQL's: $1 placeholders.
	DialectPostgres Dialect = "postgres"
	// DialectMySQL is MySQL's and MariaDB's: ? placeholders.
	DialectMySQL Dialect = "mysql"
)

// Placeholders rewrites a statement written with ? placeholders into the
// dialect's ($1, $2... for PostgreSQL's). A ? inside a quoted string is
// left alone.
func (d Dialect) Placeholders(query string) string {
	if d != DialectPostgres || !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n, quoted := 0, false
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case c == '\'':
			quoted = !quoted
		case c == '?' && !quoted:
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// SQLTransactor is implemented by sessions of SQL databases that run
// transactions of several statements, what a transactional workload
// (TPC-C) is written against: the driver owns the connection, the
// transaction's start and end, and its retries.
type SQLTransactor interface {
	// Dialect is the SQL the database speaks.
	Dialect() Dialect
	// Transact runs fn in one transaction and commits when fn returns
	// nil; otherwise it rolls back and returns fn's error (ErrDeclined,
	// a transaction that decided to roll back, unclassified). A
	// serialization failure or a deadlock the database broke is retried
	// whole, as the driver's documentation says, and counted in its
	// metrics: fn must do nothing outside tx that it cannot do twice.
	// Statements are in the dialect's own placeholders (a workload
	// converts its text once with Dialect.Placeholders).
	Transact(ctx context.Context, fn func(tx SQLTx) error) error
}

// SQLTx is one transaction of an SQLTransactor.
type SQLTx interface {
	// Query runs a statement that returns rows; the caller closes them.
	Query(ctx context.Context, query string, args ...any) (SQLRows, error)
	// Exec runs a statement and returns the rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
}

// SQLRows are a query's rows, read as database/sql's are.
type SQLRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}
