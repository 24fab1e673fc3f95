package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// TestDatabaseMetricsEverySecond runs PostgreSQL, Redis and MariaDB
// through an experiment: dbmetrics.csv holds each database's own figures
// second by second, labelled with the trial, the counters as rates that
// moved while the workload ran; each trial's row has its cache hit ratio
// over the measured window; the manifest has the ratio over the target's
// life.
func TestDatabaseMetricsEverySecond(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "dbm.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: dbm
properties: {recordcount: 2000, table: dbm_usertable}
`+testServerTargets(t, 9)+`workloads: [c]
load: {drop: true}
run: {duration: 4s, threads: 2}
`), 0o644))
	res := filepath.Join(dir, "r")
	code, out, errs := run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)

	d, err := results.Read(res)
	require.NoError(t, err)
	moved := map[string]bool{} // metric -> a positive value during a run trial
	seconds := map[string]map[string]bool{}
	for _, m := range d.DB {
		require.NotEmpty(t, m.Host)
		if m.Trial == "" {
			continue
		}
		if seconds[m.Trial] == nil {
			seconds[m.Trial] = map[string]bool{}
		}
		seconds[m.Trial][m.Time.Format("15:04:05")] = true
		if m.Value > 0 {
			moved[m.Database+" "+m.Metric] = true
		}
	}
	for _, want := range []string{"postgres pg_commits_per_s", "postgres pg_tuples_returned_per_s", "postgres pg_cache_hit_ratio",
		"redis redis_commands_per_s", "redis redis_keyspace_hits_per_s", "redis redis_used_memory_bytes",
		"mysql mysql_queries_per_s", "mysql mysql_buffer_pool_read_requests_per_s", "mysql mysql_threads_connected"} {
		require.True(t, moved[want], "%s moved during the trials", want)
	}
	for _, trial := range []string{"pg.c", "rd.c", "my.c"} {
		require.GreaterOrEqual(t, len(seconds[trial]), 3, "%s: rows in at least 3 of its 4 seconds", trial)
	}

	rows := rowsByID(d)
	for id, ratio := range map[string]string{"pg.c": "pg_cache_hit_ratio", "rd.c": "redis_keyspace_hit_ratio", "my.c": "mysql_buffer_pool_hit_ratio"} {
		v, ok := rows[id].DBFigures[ratio]
		require.True(t, ok, "%s: %s in its row: %v", id, ratio, rows[id].DBFigures)
		require.True(t, v > 0.5 && v <= 1, "%s: %s = %v (the data fits in memory)", id, ratio, v)
	}
	require.Contains(t, d.Manifest.Targets[0].Native, "pg_cache_hit_ratio")
	require.Contains(t, d.Manifest.Targets[1].Native, "redis_keyspace_hit_ratio")
}
