package postgres

import (
	"context"
	"fmt"

	"github.com/dbarena/dbarena/driver"
)

var _ driver.NativeStatser = (*DB)(nil)

// NativeStats implements driver.NativeStatser: the buffer-cache hit ratio
// of the benchmark's database from pg_stat_database (blocks found in
// shared_buffers over blocks asked for; reads that the OS page cache
// served still count as misses). CockroachDB and YugabyteDB have no such
// view and report nothing.
func (db *DB) NativeStats(ctx context.Context) (map[string]float64, error) {
	if db.cfg.Dialect != DialectPostgres || db.missingDB {
		return nil, nil
	}
	var hit, read int64
	err := db.pool.QueryRow(ctx, "SELECT coalesce(blks_hit, 0), coalesce(blks_read, 0) FROM pg_stat_database WHERE datname = current_database()").Scan(&hit, &read)
	if err != nil {
		return nil, fmt.Errorf("postgres: pg_stat_database: %w", err)
	}
	out := map[string]float64{"pg_blocks_hit": float64(hit), "pg_blocks_read": float64(read)}
	if hit+read > 0 {
		out["pg_buffer_hit_ratio"] = float64(hit) / float64(hit+read)
	}
	return out, nil
}
