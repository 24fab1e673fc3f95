package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/dbarena/dbarena/driver"
)

var _ driver.SQLTransactor = (*session)(nil)

// Dialect implements driver.SQLTransactor.
func (s *session) Dialect() driver.Dialect { return driver.DialectPostgres }

// Transact implements driver.SQLTransactor: fn runs in one transaction
// at the server's default isolation (READ COMMITTED on PostgreSQL and
// YugabyteDB unless configured, SERIALIZABLE on CockroachDB) on the
// session's connection. A serialization failure (40001) runs it again
// whole, up to postgres.retries times, counted there, as every statement
// of this driver does.
func (s *session) Transact(ctx context.Context, fn func(tx driver.SQLTx) error) error {
	return s.inTx(ctx, func(tx pgx.Tx) error { return fn(pgTx{tx}) })
}

// inTx runs fn in one transaction on the session's connection, again
// whole after a serialization failure (do), and commits when it returns
// nil. ErrDeclined, a transaction that decided to roll back, is
// returned unclassified.
func (s *session) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	err := s.do(ctx, func(c *pgx.Conn) error {
		tx, err := c.Begin(ctx)
		if err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			// The error says what went wrong; a failed rollback leaves
			// the connection to pgx, which closes a broken one.
			_ = tx.Rollback(ctx)
			return err
		}
		return tx.Commit(ctx)
	})
	if errors.Is(err, driver.ErrDeclined) {
		return driver.ErrDeclined // a decision, not a failure to classify
	}
	return err
}

// pgTx is a pgx transaction as a driver.SQLTx; pgx's rows are already
// driver.SQLRows.
type pgTx struct{ tx pgx.Tx }

func (t pgTx) Query(ctx context.Context, query string, args ...any) (driver.SQLRows, error) {
	rows, err := t.tx.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

func (t pgTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := t.tx.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}
