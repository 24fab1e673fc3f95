package mysql

import (
	"context"
	"database/sql"
	"errors"
	"strconv"

	"github.com/dbarena/dbarena/driver"
)

var (
	_ driver.Transferer   = (*session)(nil)
	_ driver.LedgerSummer = (*DB)(nil)
)

// lockAccounts selects the balances of two accounts and locks their rows
// in key order, so that transfers between the same accounts cannot
// deadlock each other.
func (b sqlBuilder) lockAccounts(table, field string) string {
	return "SELECT " + keyColumn + ", " + ident(field) + " FROM " + b.table(table) + " WHERE " + keyColumn +
		" IN (?, ?) ORDER BY " + keyColumn + " FOR UPDATE"
}

// setBalance writes one account's balance.
func (b sqlBuilder) setBalance(table, field string) string {
	return "UPDATE " + b.table(table) + " SET " + ident(field) + " = ? WHERE " + keyColumn + " = ?"
}

// Transfer implements driver.Transferer as one InnoDB transaction: lock
// both accounts' rows (SELECT ... FOR UPDATE, in key order), check the
// payer's balance, write both, commit. A locking read reads the latest
// committed balance whatever the isolation level, so no concurrent
// transfer is lost. A deadlock or lock wait timeout is a CONFLICT error,
// the transaction rolled back whole.
func (s *session) Transfer(ctx context.Context, table string, t driver.Transfer) error {
	if err := t.Valid(); err != nil {
		return err
	}
	b := s.db.b
	tx, err := s.db.sql.BeginTx(ctx, nil)
	if err != nil {
		return classify(err)
	}
	if err := transfer(ctx, tx, b.lockAccounts(table, t.Field), b.setBalance(table, t.Field), t); err != nil {
		// The error says what went wrong; database/sql discards a
		// connection whose rollback failed.
		_ = tx.Rollback()
		if errors.Is(err, driver.ErrDeclined) {
			return driver.ErrDeclined // a decision, not a failure to classify
		}
		return classify(err)
	}
	return classify(tx.Commit())
}

// transfer is Transfer's statements inside its transaction.
func transfer(ctx context.Context, tx *sql.Tx, lock, set string, t driver.Transfer) error {
	rows, err := tx.QueryContext(ctx, lock, t.From, t.To)
	if err != nil {
		return err
	}
	var locked driver.Locked
	for rows.Next() {
		var key string
		var bal []byte
		if err := rows.Scan(&key, &bal); err != nil {
			_ = rows.Close() // the scan error is the one to report
			return err
		}
		locked.Add(t, key, bal)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	f, g, err := locked.Apply(t)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, set, strconv.FormatInt(f, 10), t.From); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, set, strconv.FormatInt(g, 10), t.To)
	return err
}

// sumBalances reads a table's rows, the sum of their balances and how
// many are below the floor, in one statement: an InnoDB consistent read,
// one snapshot.
func (b sqlBuilder) sumBalances(table, field string) string {
	bal := "CAST(" + ident(field) + " AS SIGNED)"
	return "SELECT COUNT(*), CAST(COALESCE(SUM(" + bal + "), 0) AS SIGNED), CAST(COALESCE(SUM(CASE WHEN " + bal +
		" < ? THEN 1 ELSE 0 END), 0) AS SIGNED) FROM " + b.table(table)
}

// SumBalances implements driver.LedgerSummer on the pool of SQL
// transactions (one connection more than the workers), so that it never
// waits for a worker's.
func (db *DB) SumBalances(ctx context.Context, table, field string, floor int64) (driver.LedgerSum, error) {
	pool, err := db.txPool(ctx)
	if err != nil {
		return driver.LedgerSum{}, classify(err)
	}
	var sum driver.LedgerSum
	err = pool.QueryRowContext(ctx, db.b.sumBalances(table, field), floor).Scan(&sum.Accounts, &sum.Total, &sum.BelowFloor)
	return sum, classify(err)
}
