package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbarena/dbarena/driver"
)

var (
	_ driver.SQLTransactor = (*session)(nil)
	_ driver.CounterSource = (*DB)(nil)
)

// Dialect implements driver.SQLTransactor.
func (s *session) Dialect() driver.Dialect { return driver.DialectMySQL }

// Transact implements driver.SQLTransactor: fn runs in one transaction
// at the server's default isolation (REPEATABLE READ for InnoDB). When
// InnoDB rolled it back to break a deadlock, or a lock wait timed out,
// it runs again whole, up to mysql.retries times, counted there.
func (s *session) Transact(ctx context.Context, fn func(tx driver.SQLTx) error) error {
	for attempt := 0; ; attempt++ {
		err := s.transactOnce(ctx, fn)
		if errors.Is(err, driver.ErrDeclined) {
			return driver.ErrDeclined // a decision, not a failure to classify
		}
		if n := errorNumber(err); (n == 1213 || n == 1205) && attempt < s.db.cfg.Retries && ctx.Err() == nil {
			s.db.retries.Add(1)
			continue
		}
		return classify(err)
	}
}

func (s *session) transactOnce(ctx context.Context, fn func(tx driver.SQLTx) error) error {
	pool, err := s.db.txPool(ctx)
	if err != nil {
		return err
	}
	tx, err := pool.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(sqlTx{tx: tx, db: s.db}); err != nil {
		// The error says what went wrong; database/sql discards a
		// connection whose rollback failed.
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// txPool returns the pool of Transact, opened at the first call, after
// creating the database when missing: unlike the key-value statements,
// which name the database, a workload written in SQL names tables alone.
func (db *DB) txPool(ctx context.Context) (*sql.DB, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.txSQL != nil {
		return db.txSQL, nil
	}
	if _, err := db.sql.ExecContext(ctx, db.b.createDatabase()); err != nil {
		return nil, err
	}
	dsn := db.cfg.DSN.Clone()
	dsn.DBName = db.cfg.Database
	dsn.Logger = mysqlLogger{db.log}
	conn, err := gomysql.NewConnector(dsn)
	if err != nil {
		return nil, fmt.Errorf("%s.url: %w", Prefix, err)
	}
	db.txSQL = sql.OpenDB(conn)
	db.txStmts = map[string]*sql.Stmt{}
	// One connection more than the workers: a statement is prepared on
	// the pool, outside the transaction that first runs it, while every
	// worker may hold a connection in a transaction (with Pool alone, 4
	// workers waited on each other for the whole run).
	db.txSQL.SetMaxOpenConns(db.cfg.Pool + 1)
	db.txSQL.SetMaxIdleConns(db.cfg.Pool + 1)
	return db.txSQL, nil
}

// Counters implements driver.CounterSource.
func (db *DB) Counters() []driver.Counter {
	return []driver.Counter{{Name: "mysql.retries", Value: float64(db.retries.Load()),
		Help: "transactions run again after a deadlock (1213) or a lock wait timeout (1205)"}}
}

// sqlTx is a database/sql transaction as a driver.SQLTx. Its statements
// run prepared: a statement with arguments that is not costs a prepare,
// an execute and a close, where a prepared one, once on each
// connection, costs the execute alone.
type sqlTx struct {
	tx *sql.Tx
	db *DB
}

func (t sqlTx) Query(ctx context.Context, query string, args ...any) (driver.SQLRows, error) {
	st, err := t.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

func (t sqlTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	st, err := t.stmt(ctx, query)
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// stmt is the transaction's use of the pool's prepared statement of
// query, prepared the first time any transaction runs it (database/sql
// then prepares it once on each connection).
func (t sqlTx) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	t.db.mu.Lock()
	st, ok := t.db.txStmts[query]
	t.db.mu.Unlock()
	if !ok {
		var err error
		if st, err = t.db.txSQL.PrepareContext(ctx, query); err != nil {
			return nil, err
		}
		t.db.mu.Lock()
		if prev, raced := t.db.txStmts[query]; raced {
			_ = st.Close() // another worker prepared it first
			st = prev
		} else {
			t.db.txStmts[query] = st
		}
		t.db.mu.Unlock()
	}
	return t.tx.StmtContext(ctx, st), nil
}

// sqlRows drops the error of Close: Err reports a failed read.
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { _ = r.Rows.Close() }
