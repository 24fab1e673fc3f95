package cql

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/exposition"
)

var _ driver.MetricsReader = (*DB)(nil)

// pools are the thread pools whose queues say where a Cassandra node
// waits: client requests, reads, writes, flushes and compactions.
var pools = map[string]bool{"Native-Transport-Requests": true, "ReadStage": true, "MutationStage": true,
	"MemtableFlushWriter": true, "CompactionExecutor": true}

// ReadMetrics implements driver.MetricsReader. Cassandra 4.0 and later
// answer from their virtual tables (system_views), node by node: the
// caches' hits and requests, the queues of the thread pools that serve
// requests, flushes and compactions, the local read and write counts and
// their p99 over the benchmark keyspace's tables, and the compactions
// running. ScyllaDB has no system_views: its figures come from its
// Prometheus page on cql.metrics.port (row cache hits and misses, reads,
// writes, the reactor's utilization). Cassandra 5.0's system_views have
// no SSTables-per-read table; it is left out.
func (db *DB) ReadMetrics(ctx context.Context) ([]driver.Metric, error) {
	if !db.scylla.Load() {
		out, err := db.cassandraMetrics(ctx)
		if !errors.Is(err, errNoVirtualTables) {
			return out, err
		}
		db.scylla.Store(true)
	}
	if db.cfg.MetricsPort == 0 {
		return nil, nil
	}
	return db.scyllaMetrics(ctx)
}

// errNoVirtualTables is a server without system_views (ScyllaDB, YCQL,
// Cassandra before 4.0).
var errNoVirtualTables = errors.New("no system_views")

// noVirtualTables reports whether err, as the server sent it, says the
// server has no system_views: an invalid-query error naming the keyspace
// or the table. A timeout or an unavailable node is not that.
func noVirtualTables(err error) bool {
	var re gocql.RequestError
	if !errors.As(err, &re) || re.Code() != gocql.ErrCodeInvalid {
		return false
	}
	msg := strings.ToLower(re.Message())
	return strings.Contains(msg, "system_views") || strings.Contains(msg, "unconfigured table")
}

// cassandraMetrics reads every node's virtual tables; a cluster's figures
// carry the node's address as their Host.
func (db *DB) cassandraMetrics(ctx context.Context) ([]driver.Metric, error) {
	hosts := db.session.GetHosts()
	var out []driver.Metric
	var errs []error
	for _, h := range hosts {
		label := ""
		if len(hosts) > 1 {
			label = h.ConnectAddress().String()
		}
		ms, err := db.nodeMetrics(ctx, h.HostID(), label)
		out = append(out, ms...)
		if errors.Is(err, errNoVirtualTables) {
			return nil, err
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("node %s: %w", h.ConnectAddress(), err))
		}
	}
	return out, errors.Join(errs...)
}

// nodeMetrics reads one node's virtual tables.
func (db *DB) nodeMetrics(ctx context.Context, hostID, label string) ([]driver.Metric, error) {
	var out []driver.Metric
	add := func(name string, kind driver.MetricKind, v float64) {
		out = append(out, driver.Metric{Name: name, Kind: kind, Value: v, Host: label})
	}
	query := func(stmt string) *gocql.Iter {
		return db.session.Query(stmt).SetHostID(hostID).WithContext(ctx).Iter()
	}

	iter := query("SELECT name, capacity_bytes, size_bytes, hit_count, request_count FROM system_views.caches")
	var name string
	var capacity, size, hits, requests int64
	for iter.Scan(&name, &capacity, &size, &hits, &requests) {
		if capacity == 0 {
			continue // disabled (the row cache, by default)
		}
		base := "cassandra_cache_" + snake(name)
		add(base+"_hits", driver.MetricCounter, float64(hits))
		add(base+"_requests", driver.MetricCounter, float64(requests))
		add(base+"_size_bytes", driver.MetricGauge, float64(size))
		out = append(out, driver.Metric{Name: base + "_hit_ratio", Kind: driver.MetricRatio, Host: label,
			Part: base + "_hits", Whole: base + "_requests"})
	}
	if err := iter.Close(); err != nil {
		if noVirtualTables(err) {
			return nil, errNoVirtualTables
		}
		return nil, fmt.Errorf("cql: system_views.caches: %w", err)
	}

	iter = query("SELECT name, active_tasks, pending_tasks, blocked_tasks, completed_tasks FROM system_views.thread_pools")
	var active, pending int
	var blocked, completed int64
	for iter.Scan(&name, &active, &pending, &blocked, &completed) {
		if !pools[name] {
			continue
		}
		base := "cassandra_pool_" + snake(name)
		add(base+"_active", driver.MetricGauge, float64(active))
		add(base+"_pending", driver.MetricGauge, float64(pending))
		add(base+"_blocked", driver.MetricGauge, float64(blocked))
		add(base+"_completed", driver.MetricCounter, float64(completed))
	}
	if err := iter.Close(); err != nil {
		return out, fmt.Errorf("cql: system_views.thread_pools: %w", err)
	}

	for _, what := range []string{"read", "write"} {
		iter = query("SELECT keyspace_name, count, p99th_ms FROM system_views.local_" + what + "_latency")
		var ks string
		var count, total int64
		var p99, worst float64
		for iter.Scan(&ks, &count, &p99) {
			if ks == db.cfg.Keyspace {
				total += count
				worst = max(worst, p99)
			}
		}
		if err := iter.Close(); err != nil {
			return out, fmt.Errorf("cql: system_views.local_%s_latency: %w", what, err)
		}
		add("cassandra_local_"+what+"s", driver.MetricCounter, float64(total))
		add("cassandra_local_"+what+"_p99_ms", driver.MetricGauge, worst)
	}

	iter = query("SELECT kind FROM system_views.sstable_tasks")
	var kind string
	compactions := 0
	for iter.Scan(&kind) {
		if strings.Contains(strings.ToLower(kind), "compaction") {
			compactions++
		}
	}
	if err := iter.Close(); err != nil {
		return out, fmt.Errorf("cql: system_views.sstable_tasks: %w", err)
	}
	add("cassandra_compactions_running", driver.MetricGauge, float64(compactions))
	return out, nil
}

// snake turns a Cassandra name ("Native-Transport-Requests",
// "ReadStage", "chunks") into a metric name part
// ("native_transport_requests", "read_stage", "chunks").
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '-' || r == ' ' || r == '.':
			b.WriteByte('_')
		case unicode.IsUpper(r):
			if i > 0 && s[i-1] != '-' && s[i-1] != ' ' && s[i-1] != '.' {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// scyllaScrapeTimeout bounds one node's Prometheus page: a node that does
// not answer must not hold the sampler's round for long.
const scyllaScrapeTimeout = 2 * time.Second

// scyllaMetrics reads every node's Prometheus page, all at once: a page
// is a few MB on a node of many cores, and the sampler's round is a
// second.
func (db *DB) scyllaMetrics(ctx context.Context) ([]driver.Metric, error) {
	hosts := db.session.GetHosts()
	figures := make([][]driver.Metric, len(hosts))
	errs := make([]error, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		label := ""
		if len(hosts) > 1 {
			label = h.ConnectAddress().String()
		}
		url := "http://" + net.JoinHostPort(h.ConnectAddress().String(), strconv.Itoa(db.cfg.MetricsPort)) + "/metrics"
		wg.Add(1)
		go func() {
			defer wg.Done()
			sctx, cancel := context.WithTimeout(ctx, scyllaScrapeTimeout)
			defer cancel()
			page, _, err := exposition.Fetch(sctx, db.httpClient(), url)
			if err != nil {
				errs[i] = fmt.Errorf("cql: no system_views here (ScyllaDB?) and no metrics at %s (set %s.metrics.port, 0 for none): %w", url, Prefix, err)
				return
			}
			figures[i] = scyllaFigures(page, label)
		}()
	}
	wg.Wait()
	var out []driver.Metric
	for _, f := range figures {
		out = append(out, f...)
	}
	return out, errors.Join(errs...)
}

// httpClient is the client of the Prometheus pages: plain HTTP, with
// connections kept between rounds.
func (db *DB) httpClient() *http.Client {
	db.httpOnce.Do(func() { db.http = &http.Client{} })
	return db.http
}

// scyllaCounters are the ScyllaDB families read, summed over shards,
// with the metric each becomes.
var scyllaCounters = map[string]string{
	"scylla_cache_row_hits":                           "scylla_cache_row_hits",
	"scylla_cache_row_misses":                         "scylla_cache_row_misses",
	"scylla_cache_partition_hits":                     "scylla_cache_partition_hits",
	"scylla_cache_partition_misses":                   "scylla_cache_partition_misses",
	"scylla_database_total_reads":                     "scylla_reads",
	"scylla_database_total_writes":                    "scylla_writes",
	"scylla_storage_proxy_coordinator_read_timeouts":  "scylla_coordinator_read_timeouts",
	"scylla_storage_proxy_coordinator_write_timeouts": "scylla_coordinator_write_timeouts",
}

// scyllaFigures turns one node's page into metrics: counters summed over
// its shards, the cache in use summed, the reactor's utilization (percent
// of each shard's time it ran tasks) averaged over shards, and the
// compactions running summed.
func scyllaFigures(page []exposition.Metric, label string) []driver.Metric {
	sums := map[string]float64{}
	var util float64
	shards := 0
	var cacheBytes, compactions float64
	seen := map[string]bool{}
	for _, m := range page {
		if name, ok := scyllaCounters[m.Name]; ok {
			sums[name] += m.Value
			seen[name] = true
			continue
		}
		switch m.Name {
		case "scylla_reactor_utilization":
			util += m.Value
			shards++
		case "scylla_cache_bytes_used":
			cacheBytes += m.Value
			seen[m.Name] = true
		case "scylla_compaction_manager_compactions":
			compactions += m.Value
			seen[m.Name] = true
		}
	}
	var out []driver.Metric
	add := func(name string, kind driver.MetricKind, v float64) {
		out = append(out, driver.Metric{Name: name, Kind: kind, Value: v, Host: label})
	}
	for _, name := range []string{"scylla_cache_row_hits", "scylla_cache_row_misses", "scylla_cache_partition_hits",
		"scylla_cache_partition_misses", "scylla_reads", "scylla_writes", "scylla_coordinator_read_timeouts",
		"scylla_coordinator_write_timeouts"} {
		if seen[name] {
			add(name, driver.MetricCounter, sums[name])
		}
	}
	if seen["scylla_cache_row_hits"] && seen["scylla_cache_row_misses"] {
		add("scylla_cache_row_requests", driver.MetricCounter, sums["scylla_cache_row_hits"]+sums["scylla_cache_row_misses"])
		out = append(out, driver.Metric{Name: "scylla_cache_hit_ratio", Kind: driver.MetricRatio, Host: label,
			Part: "scylla_cache_row_hits", Whole: "scylla_cache_row_requests"})
	}
	if shards > 0 {
		add("scylla_reactor_utilization_percent", driver.MetricGauge, util/float64(shards))
	}
	if seen["scylla_cache_bytes_used"] {
		add("scylla_cache_used_bytes", driver.MetricGauge, cacheBytes)
	}
	if seen["scylla_compaction_manager_compactions"] {
		add("scylla_compactions_running", driver.MetricGauge, compactions)
	}
	return out
}
