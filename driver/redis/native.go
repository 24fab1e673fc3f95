package redis

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/driver"
)

var _ driver.MetricsReader = (*DB)(nil)

// infoFields are the INFO fields read, with the metric and kind each
// becomes. used_cpu_sys and used_cpu_user are seconds of CPU the server
// used: their rate is the cores it kept busy.
var infoFields = map[string]struct {
	metric string
	kind   driver.MetricKind
}{
	"keyspace_hits":            {"redis_keyspace_hits", driver.MetricCounter},
	"keyspace_misses":          {"redis_keyspace_misses", driver.MetricCounter},
	"total_commands_processed": {"redis_commands", driver.MetricCounter},
	"evicted_keys":             {"redis_evicted_keys", driver.MetricCounter},
	"expired_keys":             {"redis_expired_keys", driver.MetricCounter},
	"rejected_connections":     {"redis_rejected_connections", driver.MetricCounter},
	"used_cpu_sys":             {"redis_cpu_system_seconds", driver.MetricCounter},
	"used_cpu_user":            {"redis_cpu_user_seconds", driver.MetricCounter},
	"used_memory":              {"redis_used_memory_bytes", driver.MetricGauge},
	"connected_clients":        {"redis_connected_clients", driver.MetricGauge},
	"blocked_clients":          {"redis_blocked_clients", driver.MetricGauge},
}

// ReadMetrics implements driver.MetricsReader from INFO (one command, its
// default sections):
// keyspace hits and misses (their ratio is the share of lookups that
// found their key), commands processed, evictions, expirations, memory in
// use, clients, and the server's own CPU time. A cluster's figures are
// read from every master and carry its address as their Host.
func (db *DB) ReadMetrics(ctx context.Context) ([]driver.Metric, error) {
	// INFO's default sections hold stats, memory, clients, cpu and the
	// replication role; naming several sections needs Redis 7.
	if !db.cfg.Cluster {
		text, err := db.client.Do(ctx, db.client.B().Info().Build()).ToString()
		if err != nil {
			return nil, fmt.Errorf("redis: INFO: %w", err)
		}
		return infoMetrics(text, ""), nil
	}
	// A node that does not answer is reported; the others' figures are
	// kept.
	var out []driver.Metric
	var errs []error
	for addr, c := range db.client.Nodes() {
		text, err := c.Do(ctx, c.B().Info().Build()).ToString()
		if err != nil {
			errs = append(errs, fmt.Errorf("redis: INFO on %s: %w", addr, err))
			continue
		}
		if isMaster(text) {
			out = append(out, infoMetrics(text, addr)...)
		}
	}
	return out, errors.Join(errs...)
}

// isMaster reports whether an INFO reply holding the replication
// section is a master's.
func isMaster(info string) bool { return strings.Contains(info, "\nrole:master") }

// infoMetrics reads INFO's "field:value" lines.
func infoMetrics(text, host string) []driver.Metric {
	var out []driver.Metric
	var hits, misses float64
	found := 0
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":")
		f, known := infoFields[k]
		if !ok || !known {
			continue
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			continue
		}
		switch k {
		case "keyspace_hits":
			hits = x
			found++
		case "keyspace_misses":
			misses = x
			found++
		}
		out = append(out, driver.Metric{Name: f.metric, Kind: f.kind, Value: x, Host: host})
	}
	if found == 2 {
		out = append(out,
			driver.Metric{Name: "redis_keyspace_lookups", Kind: driver.MetricCounter, Value: hits + misses, Host: host},
			driver.Metric{Name: "redis_keyspace_hit_ratio", Kind: driver.MetricRatio, Host: host,
				Part: "redis_keyspace_hits", Whole: "redis_keyspace_lookups"})
	}
	return out
}
