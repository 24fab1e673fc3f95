package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/dbarena/dbarena/driver"
)

var (
	_ driver.Transferer   = (*session)(nil)
	_ driver.LedgerSummer = (*DB)(nil)
)

// lockAccounts selects the balances of accounts $1 and $2 and locks their
// rows, in key order: two transfers between the same accounts lock them
// in the same order and cannot deadlock. PostgreSQL locks rows above the
// sort, so ORDER BY sets that order.
func (b sqlBuilder) lockAccounts(table, field string) string {
	return fmt.Sprintf("SELECT %s, %s FROM %s WHERE %s IN ($1, $2) ORDER BY %s FOR UPDATE",
		keyColumn, b.balance(field), tbl(table), keyColumn, keyColumn)
}

// balance is the expression of a field's value as text.
func (b sqlBuilder) balance(field string) string {
	if b.layout == LayoutJSONB {
		return fmt.Sprintf("%s->>'%s'", valueColumn, strings.ReplaceAll(field, "'", "''"))
	}
	return column(field)
}

// setBalance writes $2 (text) as account $1's balance.
func (b sqlBuilder) setBalance(table, field string) string {
	if b.layout == LayoutJSONB {
		return fmt.Sprintf("UPDATE %s SET %s = jsonb_set(%s, '{%s}', to_jsonb($2::text)) WHERE %s = $1",
			tbl(table), valueColumn, valueColumn, strings.ReplaceAll(strings.ReplaceAll(field, "'", "''"), `"`, `\"`), keyColumn)
	}
	return fmt.Sprintf("UPDATE %s SET %s = $2 WHERE %s = $1", tbl(table), column(field), keyColumn)
}

// Transfer implements driver.Transferer as one transaction: lock both
// accounts' rows (SELECT ... FOR UPDATE, in key order), check the payer's
// balance, write both, commit. At READ COMMITTED the lock makes the read
// balance the latest committed one, so no concurrent transfer is lost; a
// serialization failure (CockroachDB, SERIALIZABLE) retries the whole
// transaction as every statement here does (postgres.retries).
func (s *session) Transfer(ctx context.Context, table string, t driver.Transfer) error {
	if err := t.Valid(); err != nil {
		return err
	}
	lock := s.db.cfg.sql.lockAccounts(table, t.Field)
	set := s.db.cfg.sql.setBalance(table, t.Field)
	return s.inTx(ctx, func(tx pgx.Tx) error { return transfer(ctx, tx, lock, set, t) })
}

// transfer is Transfer's statements inside its transaction.
func transfer(ctx context.Context, tx pgx.Tx, lock, set string, t driver.Transfer) error {
	rows, err := tx.Query(ctx, lock, t.From, t.To)
	if err != nil {
		return err
	}
	var locked driver.Locked
	for rows.Next() {
		var key string
		var bal []byte
		if err := rows.Scan(&key, &bal); err != nil {
			rows.Close()
			return err
		}
		locked.Add(t, key, bal)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	f, g, err := locked.Apply(t)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	b.Queue(set, t.From, strconv.FormatInt(f, 10))
	b.Queue(set, t.To, strconv.FormatInt(g, 10))
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("write balances: %w", err)
	}
	return nil
}

// sumBalances reads a table's rows, the sum of their balances and how
// many are below $1, in one statement: one snapshot at any isolation.
func (b sqlBuilder) sumBalances(table, field string) string {
	bal := "CAST(" + b.balance(field) + " AS BIGINT)"
	return fmt.Sprintf("SELECT count(*), CAST(COALESCE(sum(%s), 0) AS BIGINT), CAST(COALESCE(sum(CASE WHEN %s < $1 THEN 1 ELSE 0 END), 0) AS BIGINT) FROM %s",
		bal, bal, tbl(table))
}

// SumBalances implements driver.LedgerSummer on a connection of its
// own to the first host, opened at the first call: the workers' sessions
// may hold every connection of the pool for the whole run.
func (db *DB) SumBalances(ctx context.Context, table, field string, floor int64) (driver.LedgerSum, error) {
	db.sumMu.Lock()
	defer db.sumMu.Unlock()
	if err := db.ready(); err != nil {
		return driver.LedgerSum{}, err
	}
	if db.sumConn == nil || db.sumConn.IsClosed() {
		c, err := pgx.ConnectConfig(ctx, db.pool.Config().ConnConfig.Copy())
		if err != nil {
			return driver.LedgerSum{}, classify(err)
		}
		db.sumConn = c
	}
	var sum driver.LedgerSum
	err := db.sumConn.QueryRow(ctx, db.cfg.sql.sumBalances(table, field), floor).Scan(&sum.Accounts, &sum.Total, &sum.BelowFloor)
	return sum, classify(err)
}
