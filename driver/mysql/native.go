package mysql

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/driver"
)

var _ driver.MetricsReader = (*DB)(nil)

// statusVariables are the SHOW GLOBAL STATUS figures read, with the
// metric and kind each becomes. Innodb_row_lock_time is milliseconds
// spent waiting for row locks, summed over sessions: its rate is
// milliseconds of waiting per second.
var statusVariables = map[string]struct {
	metric string
	kind   driver.MetricKind
}{
	"Innodb_buffer_pool_read_requests": {"mysql_buffer_pool_read_requests", driver.MetricCounter},
	"Innodb_buffer_pool_reads":         {"mysql_buffer_pool_disk_reads", driver.MetricCounter},
	"Innodb_buffer_pool_wait_free":     {"mysql_buffer_pool_wait_free", driver.MetricCounter},
	"Innodb_buffer_pool_pages_dirty":   {"mysql_buffer_pool_pages_dirty", driver.MetricGauge},
	"Innodb_data_reads":                {"mysql_data_reads", driver.MetricCounter},
	"Innodb_data_writes":               {"mysql_data_writes", driver.MetricCounter},
	"Innodb_row_lock_waits":            {"mysql_row_lock_waits", driver.MetricCounter},
	"Innodb_row_lock_time":             {"mysql_row_lock_wait_ms", driver.MetricCounter},
	"Innodb_row_lock_current_waits":    {"mysql_row_lock_current_waits", driver.MetricGauge},
	"Innodb_log_waits":                 {"mysql_log_waits", driver.MetricCounter},
	"Threads_running":                  {"mysql_threads_running", driver.MetricGauge},
	"Threads_connected":                {"mysql_threads_connected", driver.MetricGauge},
	"Queries":                          {"mysql_queries", driver.MetricCounter},
	"Com_commit":                       {"mysql_commits", driver.MetricCounter},
	"Com_rollback":                     {"mysql_rollbacks", driver.MetricCounter},
}

// statusQuery reads the variables above in one round trip.
var statusQuery = func() string {
	names := make([]string, 0, len(statusVariables))
	for name := range statusVariables {
		names = append(names, "'"+name+"'")
	}
	sort.Strings(names) // the same statement text in every process
	return "SHOW GLOBAL STATUS WHERE Variable_name IN (" + strings.Join(names, ",") + ")"
}()

// ReadMetrics implements driver.MetricsReader from SHOW GLOBAL STATUS:
// InnoDB's buffer pool requests and the reads that had to go to disk
// (their complement over requests is the buffer pool's hit ratio), row
// lock waits and the time spent in them, data reads and writes, threads
// running and connected, queries, commits and rollbacks. Every figure
// is the whole server's.
func (db *DB) ReadMetrics(ctx context.Context) ([]driver.Metric, error) {
	rows, err := db.sql.QueryContext(ctx, statusQuery)
	if err != nil {
		return nil, fmt.Errorf("mysql: SHOW GLOBAL STATUS: %w", err)
	}
	defer rows.Close()
	var out []driver.Metric
	values := map[string]float64{}
	var name, text string
	for rows.Next() {
		if err := rows.Scan(&name, &text); err != nil {
			return nil, fmt.Errorf("mysql: SHOW GLOBAL STATUS: %w", err)
		}
		v, err := strconv.ParseFloat(text, 64)
		sv, ok := statusVariables[name]
		if err != nil || !ok {
			continue
		}
		values[sv.metric] = v
		out = append(out, driver.Metric{Name: sv.metric, Kind: sv.kind, Value: v})
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("mysql: SHOW GLOBAL STATUS: %w", err)
	}
	requests, ok1 := values["mysql_buffer_pool_read_requests"]
	reads, ok2 := values["mysql_buffer_pool_disk_reads"]
	if ok1 && ok2 {
		out = append(out,
			driver.Metric{Name: "mysql_buffer_pool_hits", Kind: driver.MetricCounter, Value: requests - reads},
			driver.Metric{Name: "mysql_buffer_pool_hit_ratio", Kind: driver.MetricRatio,
				Part: "mysql_buffer_pool_hits", Whole: "mysql_buffer_pool_read_requests"})
	}
	return out, nil
}
