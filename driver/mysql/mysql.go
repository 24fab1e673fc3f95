// Package mysql is the dbarena driver for MySQL and the databases that
// speak its protocol: MariaDB and TiDB. It uses database/sql with
// go-sql-driver/mysql.
//
// The table is YCSB's JDBC table (usertable, YCSB_KEY VARCHAR(255) primary
// key, one TEXT column per field, named as the fields), so data loaded by
// either tool reads in the other. Statements are prepared on the server
// once per distinct text and connection, reads scan into raw bytes, the
// pool holds a connection per worker, and the load sends multi-row INSERTs.
// Connections have no default database: every statement names it, so the
// load can create it.
package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbarena/dbarena/driver"
)

// DB is an opened MySQL-protocol database, safe for concurrent use.
type DB struct {
	cfg     Config
	retries atomic.Int64
	log     *slog.Logger
	sql     *sql.DB
	addr    string
	b       sqlBuilder

	mu sync.Mutex
	// stmts holds every prepared statement by its text; database/sql
	// prepares each on a connection the first time it runs there.
	stmts map[string]*sql.Stmt
	// fields holds each table's field columns, learnt from CreateSchema or
	// CheckSchema or, failing those, from information_schema: a read of
	// every field names them instead of SELECT *, so that the record's
	// field names are the workload's whatever case the columns have.
	fields map[string][]string
	// txSQL is the pool of transactions of several statements
	// (Transact), whose connections use the database: their statements
	// name tables alone. Opened at the first.
	txSQL *sql.DB
	// txStmts are txSQL's prepared statements by their text.
	txStmts map[string]*sql.Stmt
}

var (
	_ driver.DB            = (*DB)(nil)
	_ driver.SchemaManager = (*DB)(nil)
)

// Open is the driver.Opener. It connects within mysql.connect.timeout and
// fails with driver.Unreachable naming host:port when no server answers.
func Open(ctx context.Context, p driver.Params) (driver.DB, error) {
	cfg, err := ParseConfig(p.Props, p.Workers)
	if err != nil {
		return nil, driver.BadConfig(err)
	}
	log := p.Log()
	// The client library prints its critical errors to stderr in a
	// voice of its own; they go to the run's logger instead.
	dsn := cfg.DSN.Clone()
	dsn.Logger = mysqlLogger{log}
	conn, err := gomysql.NewConnector(dsn)
	if err != nil {
		return nil, fmt.Errorf("%s.url: %w", Prefix, err)
	}
	db := &DB{
		cfg: cfg, log: log, sql: sql.OpenDB(conn), addr: addr(cfg.DSN),
		b:     sqlBuilder{database: cfg.Database, dialect: cfg.Dialect, engine: cfg.Engine},
		stmts: make(map[string]*sql.Stmt), fields: make(map[string][]string),
	}
	db.sql.SetMaxOpenConns(cfg.Pool)
	db.sql.SetMaxIdleConns(cfg.Pool)
	if err := db.ping(ctx); err != nil {
		_ = db.sql.Close()
		return nil, err
	}
	return db, nil
}

// ping checks that the server answers within the connect timeout and
// turns a failure into a message that says what to fix.
func (db *DB) ping(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, db.cfg.ConnectTimeout)
	defer cancel()
	err := db.sql.PingContext(pctx)
	if err == nil {
		return nil
	}
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		if me.Number == 1045 || me.Number == 1698 {
			return fmt.Errorf("%s at %s refused the login of user %q (check the user and password in mysql.url): %w",
				db.cfg.Dialect, db.addr, db.cfg.DSN.User, err)
		}
		return fmt.Errorf("%s at %s: %w", db.cfg.Dialect, db.addr, err)
	}
	return driver.Unreachable(string(db.cfg.Dialect), db.addr, db.cfg.ConnectTimeout, err)
}

// stmt returns the prepared statement for a text, preparing it once. The
// lock is not held while preparing, which takes a round trip and may wait
// for a free connection.
func (db *DB) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	db.mu.Lock()
	st, ok := db.stmts[q]
	db.mu.Unlock()
	if ok {
		return st, nil
	}
	st, err := db.sql.PrepareContext(ctx, q)
	if err != nil {
		return nil, classify(fmt.Errorf("prepare %q: %w", q, err))
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if prev, ok := db.stmts[q]; ok {
		// Another session prepared it meanwhile.
		_ = st.Close()
		return prev, nil
	}
	db.stmts[q] = st
	return st, nil
}

// setFields records a table's field columns.
func (db *DB) setFields(table string, fields []string) {
	db.mu.Lock()
	db.fields[table] = append([]string(nil), fields...)
	db.mu.Unlock()
}

// tableFields returns a table's field columns, reading them from
// information_schema the first time when no schema call named them.
func (db *DB) tableFields(ctx context.Context, table string) ([]string, error) {
	db.mu.Lock()
	f, ok := db.fields[table]
	db.mu.Unlock()
	if ok {
		return f, nil
	}
	cols, err := db.columns(ctx, table)
	if err != nil {
		return nil, classify(fmt.Errorf("list the columns of %s.%s: %w", db.cfg.Database, table, err))
	}
	if len(cols) == 0 {
		return nil, driver.Errorf(driver.ClassBadRequest, "table %s.%s does not exist at %s", db.cfg.Database, table, db.addr)
	}
	f = f[:0]
	for _, c := range cols {
		if !strings.EqualFold(c, keyColumn) {
			f = append(f, c)
		}
	}
	db.setFields(table, f)
	return f, nil
}

// columns lists a table's columns; none when it does not exist.
func (db *DB) columns(ctx context.Context, table string) ([]string, error) {
	rows, err := db.sql.QueryContext(ctx, columnsQuery, db.cfg.Database, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

// Session implements driver.DB.
func (db *DB) Session(context.Context, int) (driver.Session, error) {
	return newSession(db), nil
}

// Close implements driver.DB.
func (db *DB) Close() error {
	db.mu.Lock()
	for _, st := range db.stmts {
		_ = st.Close()
	}
	db.stmts = map[string]*sql.Stmt{}
	txSQL := db.txSQL
	for _, st := range db.txStmts {
		_ = st.Close()
	}
	db.txSQL, db.txStmts = nil, nil
	db.mu.Unlock()
	if txSQL != nil {
		_ = txSQL.Close() // its connections are the same server's; the error below says more
	}
	if err := db.sql.Close(); err != nil {
		return fmt.Errorf("close %s pool for %s: %w", db.cfg.Dialect, db.addr, err)
	}
	return nil
}

// mysqlLogger forwards the client library's critical errors (a broken
// connection, a bad packet) to the run's logger as warnings.
type mysqlLogger struct{ log *slog.Logger }

// Print implements gomysql.Logger.
func (l mysqlLogger) Print(v ...any) { l.log.Warn("mysql: " + strings.TrimSpace(fmt.Sprint(v...))) }
