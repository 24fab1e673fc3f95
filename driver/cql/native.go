package cql

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/driver"
)

var _ driver.NativeStatser = (*DB)(nil)

// NativeStats implements driver.NativeStatser from the node's cache
// virtual table (system_views.caches, Cassandra 4.0 and later): hit ratios
// of the key, row and chunk caches of the coordinator the query reached.
// Databases without the table (ScyllaDB, YCQL, older Cassandra) report
// nothing rather than fail.
func (db *DB) NativeStats(ctx context.Context) (map[string]float64, error) {
	iter := db.session.Query("SELECT name, hit_ratio, request_count FROM system_views.caches").WithContext(ctx).Iter()
	out := map[string]float64{}
	var name string
	var ratio float64
	var requests int64
	for iter.Scan(&name, &ratio, &requests) {
		if requests > 0 {
			out["cassandra_"+strings.ReplaceAll(strings.ToLower(name), " ", "_")+"_hit_ratio"] = ratio
		}
	}
	if err := iter.Close(); err != nil {
		if strings.Contains(err.Error(), "system_views") || strings.Contains(err.Error(), "unconfigured") {
			return nil, nil
		}
		return nil, fmt.Errorf("cql: system_views.caches: %w", err)
	}
	return out, nil
}
