package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/postgres"
	"github.com/dbarena/dbarena/internal/testenv"
)

// TestMetricsSeeALockWait holds a row lock in one transaction and lets a
// second one wait for it: the reading counts one session waiting on a
// Lock, and a lock-wait share above zero, where a reading before had
// none.
func TestMetricsSeeALockWait(t *testing.T) {
	ctx := context.Background()
	// A database of its own: the reading counts the sessions of one
	// database, and the conformance suite's ledger and TPC-C, run at the
	// same time by another package's test, wait on locks in theirs.
	url := withDatabase(t, testenv.Addr(t, envAddr), "dbarena_lockwait")
	db, err := postgres.Open(ctx, driver.Params{Props: map[string]string{"postgres.url": url}, Workers: 1})
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.(driver.SchemaManager).CreateSchema(ctx, driver.Schema{Table: "lock_probe", Fields: []string{"field0"}}))
	mr := db.(driver.MetricsReader)

	holder, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer holder.Close(ctx)
	waiter, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer waiter.Close(ctx)
	_, err = holder.Exec(ctx, "CREATE TABLE IF NOT EXISTS lock_wait (id int PRIMARY KEY, v int); INSERT INTO lock_wait VALUES (1, 0) ON CONFLICT DO NOTHING")
	require.NoError(t, err)

	gauge := func(name string) float64 {
		ms, err := mr.ReadMetrics(ctx)
		require.NoError(t, err)
		for _, m := range ms {
			if m.Name == name {
				return m.Value
			}
		}
		t.Fatalf("no %s in %v", name, ms)
		return 0
	}
	require.Zero(t, gauge("pg_sessions_lock"))

	tx, err := holder.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	_, err = tx.Exec(ctx, "UPDATE lock_wait SET v = v + 1 WHERE id = 1")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := waiter.Exec(ctx, "UPDATE lock_wait SET v = v + 1 WHERE id = 1")
		done <- err
	}()
	require.Eventually(t, func() bool { return gauge("pg_sessions_lock") == 1 }, 5*time.Second, 50*time.Millisecond)
	// A row lock, in its class and by its event, and no WAL flush.
	require.Equal(t, 1.0, gauge("pg_waiting_row_lock"))
	require.Equal(t, 1.0, gauge("pg_waiting_row_lock_Lock_transactionid"))
	require.Zero(t, gauge("pg_waiting_wal_flush"))
	require.Zero(t, gauge("pg_waiting_lwlock"))
	require.NoError(t, tx.Rollback(ctx))
	require.NoError(t, <-done)
}
