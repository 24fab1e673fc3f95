package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/dbarena/dbarena/driver"
)

var _ driver.MetricsReader = (*DB)(nil)

// databaseStats reads the benchmark database's counters from
// pg_stat_database and the checkpointer's and background writer's from
// the view the server has them in: pg_stat_bgwriter until PostgreSQL 16,
// pg_stat_checkpointer from 17, which moved the checkpoint columns there.
const (
	databaseStats = `SELECT xact_commit, xact_rollback, blks_hit, blks_read, tup_returned, tup_fetched,
	tup_inserted, tup_updated, tup_deleted, temp_bytes, deadlocks
FROM pg_stat_database WHERE datname = current_database()`
	writerStats16 = `SELECT checkpoints_timed + checkpoints_req, buffers_checkpoint, buffers_clean, buffers_backend FROM pg_stat_bgwriter`
	writerStats17 = `SELECT c.num_timed + c.num_requested, c.buffers_written, b.buffers_clean, 0::bigint
FROM pg_stat_checkpointer c, pg_stat_bgwriter b`
	// sessionStats counts the benchmark database's client sessions by
	// what they wait on: "CPU" is a statement running with no wait (on
	// the CPU, or about to be), "Idle" a session with no statement
	// running (waiting for its client, or idle in a transaction).
	sessionStats = `SELECT CASE WHEN state = 'active' THEN coalesce(wait_event_type, 'CPU') ELSE 'Idle' END,
	CASE WHEN state = 'active' THEN coalesce(wait_event, '') ELSE '' END, count(*) FROM pg_stat_activity
WHERE backend_type = 'client backend' AND datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1, 2`
)

// ReadMetrics implements driver.MetricsReader from pg_stat_database,
// the checkpointer's view and pg_stat_activity, in one round trip:
// commits and rollbacks, blocks found in shared_buffers and read (the
// OS page cache may have served a "read": it is a miss of PostgreSQL's
// own cache, not necessarily a disk read), tuples, temporary-file
// bytes, deadlocks, checkpoints and buffers written, and the client
// sessions running a statement by what they wait on. CockroachDB and
// YugabyteDB have other views and report nothing here, as does a
// database that does not exist yet.
func (db *DB) ReadMetrics(ctx context.Context) ([]driver.Metric, error) {
	if db.cfg.Dialect != DialectPostgres {
		return nil, nil
	}
	if db.missingDB {
		// Opened before the load created the database: it may be there
		// now.
		if err := db.connect(ctx); err != nil {
			return nil, nil
		}
		db.missingDB = false
	}
	if db.writerStats == "" {
		var version int
		if err := db.pool.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
			return nil, fmt.Errorf("postgres: server version: %w", err)
		}
		db.writerStats = writerStats16
		if version >= 170000 {
			db.writerStats = writerStats17
		}
	}
	b := &pgx.Batch{}
	var out []driver.Metric
	counter := func(name string, v int64) {
		out = append(out, driver.Metric{Name: name, Kind: driver.MetricCounter, Value: float64(v)})
	}
	b.Queue(databaseStats).QueryRow(func(row pgx.Row) error {
		var v [11]int64
		if err := row.Scan(&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10]); err != nil {
			return fmt.Errorf("pg_stat_database: %w", err)
		}
		for i, name := range []string{"pg_commits", "pg_rollbacks", "pg_blocks_hit", "pg_blocks_read", "pg_tuples_returned",
			"pg_tuples_fetched", "pg_tuples_inserted", "pg_tuples_updated", "pg_tuples_deleted", "pg_temp_bytes", "pg_deadlocks"} {
			counter(name, v[i])
		}
		counter("pg_blocks_requested", v[2]+v[3])
		out = append(out, driver.Metric{Name: "pg_cache_hit_ratio", Kind: driver.MetricRatio, Part: "pg_blocks_hit", Whole: "pg_blocks_requested"})
		return nil
	})
	b.Queue(db.writerStats).QueryRow(func(row pgx.Row) error {
		var checkpoints, byCheckpoint, byWriter, byBackend int64
		if err := row.Scan(&checkpoints, &byCheckpoint, &byWriter, &byBackend); err != nil {
			return fmt.Errorf("checkpointer statistics: %w", err)
		}
		counter("pg_checkpoints", checkpoints)
		counter("pg_buffers_written_checkpoint", byCheckpoint)
		counter("pg_buffers_written_bgwriter", byWriter)
		counter("pg_buffers_written_backend", byBackend)
		return nil
	})
	b.Queue(sessionStats).Query(func(rows pgx.Rows) error {
		return db.sessionMetrics(rows, &out)
	})
	if err := db.pool.SendBatch(ctx, b).Close(); err != nil {
		return out, fmt.Errorf("postgres: %w", err)
	}
	return out, nil
}

// sessionMetrics turns pg_stat_activity's count of client sessions by
// wait event into gauges: per wait event type (pg_sessions_lock, ...),
// per class of wait the bottleneck verdict reads (see waits.go), and per
// event of those classes; and each class's and event's share of the
// client sessions into ratios.
func (db *DB) sessionMetrics(rows pgx.Rows, out *[]driver.Metric) error {
	var w waitCounts
	var typ, event string
	var n int64
	if _, err := pgx.ForEachRow(rows, []any{&typ, &event, &n}, func() error {
		w.add(typ, event, n)
		return nil
	}); err != nil {
		return fmt.Errorf("pg_stat_activity: %w", err)
	}
	*out = append(*out, w.metrics(&db.waitsSeen)...)
	return nil
}
