package mysql_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
)

// TestTransactionsPrepareWhileEveryWorkerIsInOne: each of two workers
// (the pool's size) holds a transaction open when it first runs a
// statement, which is then prepared on the pool outside the
// transaction. With a pool of exactly the workers' connections they
// waited on each other for ever (a TPC-C run of 4 workers measured
// nothing in 60 s); both must finish.
func TestTransactionsPrepareWhileEveryWorkerIsInOne(t *testing.T) {
	db := open(t, props(t))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var inTx, wg sync.WaitGroup
	inTx.Add(2)
	errs := make(chan error, 2)
	for w := range 2 {
		sess, err := db.Session(ctx, w)
		require.NoError(t, err)
		t.Cleanup(func() { _ = sess.Close() })
		sx, ok := sess.(driver.SQLTransactor)
		require.True(t, ok)
		require.Equal(t, driver.DialectMySQL, sx.Dialect())
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- sx.Transact(ctx, func(tx driver.SQLTx) error {
				// A statement only this transaction starts the connection with.
				if _, err := tx.Exec(ctx, "SET @dbarena_worker = ?", w); err != nil {
					return err
				}
				inTx.Done()
				inTx.Wait() // both hold a connection in a transaction
				rows, err := tx.Query(ctx, "SELECT ? + 1", w)
				if err != nil {
					return err
				}
				defer rows.Close()
				var got int
				if rows.Next() {
					err = rows.Scan(&got)
				}
				if err == nil && got != w+1 {
					err = context.Canceled
				}
				return err
			})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err, "a worker waited for a connection while every one was in a transaction")
	}
}
