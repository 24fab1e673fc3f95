package mongodb

import (
	"context"
	"fmt"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/dbarena/dbarena/driver"
)

var _ driver.MetricsReader = (*DB)(nil)

// serverStatusFields are the serverStatus figures read: the path to
// each, and the metric and kind it becomes.
var serverStatusFields = []struct {
	path   []string
	metric string
	kind   driver.MetricKind
}{
	// metrics.commands rather than opcounters: FerretDB has only the
	// former, MongoDB both.
	{[]string{"metrics", "commands", "insert", "total"}, "mongodb_inserts", driver.MetricCounter},
	{[]string{"metrics", "commands", "find", "total"}, "mongodb_finds", driver.MetricCounter},
	{[]string{"metrics", "commands", "update", "total"}, "mongodb_updates", driver.MetricCounter},
	{[]string{"metrics", "commands", "delete", "total"}, "mongodb_deletes", driver.MetricCounter},
	{[]string{"metrics", "commands", "getMore", "total"}, "mongodb_getmores", driver.MetricCounter},
	{[]string{"metrics", "commands", "insert", "failed"}, "mongodb_inserts_failed", driver.MetricCounter},
	{[]string{"metrics", "commands", "update", "failed"}, "mongodb_updates_failed", driver.MetricCounter},
	{[]string{"connections", "current"}, "mongodb_connections", driver.MetricGauge},
	{[]string{"globalLock", "currentQueue", "total"}, "mongodb_lock_queue", driver.MetricGauge},
	{[]string{"wiredTiger", "cache", "bytes currently in the cache"}, "mongodb_cache_bytes", driver.MetricGauge},
	{[]string{"wiredTiger", "cache", "pages requested from the cache"}, "mongodb_cache_pages_requested", driver.MetricCounter},
	{[]string{"wiredTiger", "cache", "pages read into cache"}, "mongodb_cache_pages_read", driver.MetricCounter},
	{[]string{"mem", "resident"}, "mongodb_resident_mebibytes", driver.MetricGauge},
}

// ReadMetrics implements driver.MetricsReader from serverStatus (one
// command): commands run and failed by kind, connections, the global lock's queue and
// WiredTiger's cache (pages requested, pages that had to be read in, and
// from those the cache's hit ratio). A figure the server does not report
// is left out: FerretDB 1.24 answers serverStatus with its command
// counts only (no connections, globalLock, wiredTiger or mem).
func (db *DB) ReadMetrics(ctx context.Context) ([]driver.Metric, error) {
	var status bson.M
	if err := db.client.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Decode(&status); err != nil {
		return nil, fmt.Errorf("mongodb: serverStatus: %w", err)
	}
	var out []driver.Metric
	values := map[string]float64{}
	for _, f := range serverStatusFields {
		v, ok := lookup(status, f.path)
		if !ok {
			continue
		}
		values[f.metric] = v
		out = append(out, driver.Metric{Name: f.metric, Kind: f.kind, Value: v})
	}
	requested, ok1 := values["mongodb_cache_pages_requested"]
	read, ok2 := values["mongodb_cache_pages_read"]
	if ok1 && ok2 {
		out = append(out,
			driver.Metric{Name: "mongodb_cache_pages_hit", Kind: driver.MetricCounter, Value: requested - read},
			driver.Metric{Name: "mongodb_cache_hit_ratio", Kind: driver.MetricRatio,
				Part: "mongodb_cache_pages_hit", Whole: "mongodb_cache_pages_requested"})
	}
	return out, nil
}

// lookup follows path through nested documents to a number.
func lookup(doc bson.M, path []string) (float64, bool) {
	var cur any = doc
	for _, k := range path {
		var found bool
		switch d := cur.(type) {
		case bson.M:
			cur, found = d[k]
		case bson.D: // nested documents decode as bson.D
			for _, e := range d {
				if e.Key == k {
					cur, found = e.Value, true
					break
				}
			}
		}
		if !found {
			return 0, false
		}
	}
	switch v := cur.(type) {
	case int32:
		return float64(v), true
	case int64:
		return float64(v), true
	case float64:
		return v, true
	case bson.Decimal128:
		f, err := strconv.ParseFloat(v.String(), 64)
		return f, err == nil
	}
	return 0, false
}
