package drivertest_test

import (
	"context"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/internal/testenv"
)

// target says how the conformance test reaches one registered driver's
// server, and what the suite may expect of that database.
type target struct {
	// env names the variable that holds the test server's address
	// (scripts/servers exports it); empty for in-process drivers.
	env string
	// noCI, when set, says why no server can run on the CI machines: the
	// suite then skips when env is unset even under CI=true, while the
	// checks that need no server still run.
	noCI string
	// addr writes host:port in the form env holds, so that the unreachable
	// checks address a dead port as a user would a live server.
	addr func(hostPort string) string
	// props maps the address to the driver's properties.
	props func(addr string) map[string]string
	// defaultAddr is where the driver connects when no property names a
	// server: what its documentation promises. Empty for a default on the
	// internet.
	defaultAddr string
	// suites are the runs of the conformance suite, the first with the
	// driver's defaults; their props are added to props(addr).
	suites []suite
	// noSuite, when set, says why the suite does not apply.
	noSuite string
	// metrics are figures a driver.MetricsReader must read from the
	// server after a workload, and grows a counter the workload must
	// move; nil for a driver that reads none.
	metrics []string
	grows   string
	// clusters are the suites run again against a cluster of the
	// database's, when its variable is set (scripts/servers starts them).
	clusters []cluster
}

// cluster is a topology of several servers the suites run against: env
// names the variable with its nodes' addresses, props maps them to the
// driver's properties.
type cluster struct {
	env    string
	props  func(addrs string) map[string]string
	suites []suite
}

// suite is one run of drivertest.Run; Open, Prefix and Props come from
// the target.
type suite struct {
	name  string
	props map[string]string
	// adjust, when set, changes the merged properties where a fixed
	// value cannot (a query parameter of the server's URL).
	adjust func(props map[string]string)
	opts   drivertest.Options
}

// targets holds an entry for every registered driver: a driver added to
// the table in drivers.go without one fails TestConformance.
var targets = map[string]target{
	"aerospike": {
		env:  "DBARENA_TEST_AEROSPIKE",
		noCI: "no Aerospike server can be installed on the CI machines (no package in a reachable registry, no container engine)",
		addr: func(hp string) string { return hp },
		props: func(addr string) map[string]string {
			// The default configuration's namespace, or the server's own.
			ns := os.Getenv("DBARENA_TEST_AEROSPIKE_NAMESPACE")
			if ns == "" {
				ns = "test"
			}
			return map[string]string{"aerospike.host": addr, "aerospike.namespace": ns}
		},
		defaultAddr: "localhost:3000",
		suites:      []suite{{name: "default", opts: drivertest.Options{NoScan: true, StrictInsert: true}}},
	},
	"basic": {
		noSuite: "basic stores nothing: it measures the harness, and its reads return no record",
	},
	"cql": {
		env:  "DBARENA_TEST_CASSANDRA",
		addr: func(hp string) string { return hp },
		props: func(addr string) map[string]string {
			return map[string]string{"cql.hosts": addr, "cql.keyspace": "dbarena_test"}
		},
		defaultAddr: "127.0.0.1:9042",
		metrics: []string{"cassandra_cache_keys_hit_ratio", "cassandra_cache_keys_requests", "cassandra_pool_read_stage_pending",
			"cassandra_pool_native_transport_requests_active", "cassandra_local_reads", "cassandra_local_write_p99_ms",
			"cassandra_compactions_running"},
		grows: "cassandra_local_writes",
		suites: []suite{
			// Token order, and an INSERT of an existing key overwrites it.
			{name: "default", opts: drivertest.Options{ScanOrdered: false, StrictInsert: false, LossyTransfers: true}},
			// With lightweight transactions an insert of an existing key is
			// not applied and reported as a CONFLICT, as in SQL databases.
			{name: "lwt", props: map[string]string{"cql.lwt": "true"}, opts: drivertest.Options{StrictInsert: true, Records: 400, LossyTransfers: true}},
			{name: "load=concurrent", props: map[string]string{"cql.load": "concurrent"}, opts: drivertest.Options{Records: 400, LossyTransfers: true}},
		},
		// The keyspace replicated to all three nodes, read and written
		// at QUORUM: two of three replicas acknowledge each write and
		// answer each read, so every read overlaps the last write.
		clusters: []cluster{{env: "DBARENA_TEST_CASSANDRA_CLUSTER",
			props: func(addrs string) map[string]string {
				return map[string]string{"cql.hosts": addrs, "cql.keyspace": "dbarena_test_rf3",
					"cql.replication.strategy": "SimpleStrategy", "cql.replication.factor": "3",
					"cql.consistency.read": "QUORUM", "cql.consistency.write": "QUORUM"}
			},
			suites: []suite{{name: "rf3", opts: drivertest.Options{ScanOrdered: false, StrictInsert: false, Records: 600, LossyTransfers: true}}}}},
	},
	"dynamodb": {
		env:  "DBARENA_TEST_DYNAMODB",
		addr: func(hp string) string { return "http://" + hp },
		props: func(addr string) map[string]string {
			return map[string]string{"dynamodb.endpoint": addr}
		},
		// No defaultAddr: the default is AWS itself, which a test must not
		// call; config_test.go checks the default endpoint offline.
		suites: []suite{
			// Scans follow hash order; conditional writes make a duplicate
			// insert a CONFLICT.
			{name: "default", opts: drivertest.Options{ScanOrdered: false, StrictInsert: true}},
			// YCSB's own behaviour: puts and updates without conditions,
			// and a scan that starts after the start key.
			{name: "ycsb-semantics", props: map[string]string{"dynamodb.conditionalwrites": "false", "dynamodb.inclusivescan": "false"},
				opts: drivertest.Options{ScanOrdered: false, StrictInsert: false, Records: 300}},
		},
	},
	"memory": {
		suites: []suite{{name: "default", opts: drivertest.Options{ScanOrdered: true, StrictInsert: true}}},
	},
	"mongodb": {
		env:  "DBARENA_TEST_MONGODB",
		addr: func(hp string) string { return "mongodb://" + hp + "/" },
		props: func(addr string) map[string]string {
			return map[string]string{"mongodb.url": addr, "mongodb.database": "dbarena_test"}
		},
		defaultAddr: "localhost:27017",
		// FerretDB's serverStatus has its command counts only.
		metrics: []string{"mongodb_inserts", "mongodb_finds", "mongodb_deletes"},
		grows:   "mongodb_inserts",
		suites: []suite{
			// FerretDB sorts string _id values bytewise like MongoDB, so
			// scans are checked for order.
			{name: "default", opts: drivertest.Options{ScanOrdered: true, StrictInsert: true}},
			// Fewer connections than workers, an operation timeout (sent
			// as maxTimeMS), and the concerns a replica set would be run
			// with; FerretDB accepts and ignores both concerns.
			{name: "small-pool-majority", props: map[string]string{"mongodb.pool": "2", "mongodb.timeout": "10s",
				"mongodb.writeconcern": "majority", "mongodb.readconcern": "majority"},
				opts: drivertest.Options{ScanOrdered: true, StrictInsert: true, Records: 300}},
		},
	},
	"mysql": {
		env:  "DBARENA_TEST_MYSQL",
		addr: func(hp string) string { return "root@tcp(" + hp + ")/" },
		props: func(addr string) map[string]string {
			return map[string]string{"mysql.url": addr, "mysql.database": "dbarena_test"}
		},
		defaultAddr: "127.0.0.1:3306",
		metrics: []string{"mysql_buffer_pool_hit_ratio", "mysql_buffer_pool_read_requests", "mysql_row_lock_wait_ms",
			"mysql_threads_running", "mysql_queries"},
		grows: "mysql_queries",
		suites: []suite{
			{name: "default", opts: drivertest.Options{ScanOrdered: true, StrictInsert: true}},
			// Fewer connections than workers, and load batches of 50 split
			// into INSERTs of 7 rows inside one transaction.
			{name: "small-pool-small-statements", props: map[string]string{"mysql.pool": "3", "mysql.batch.rows": "7"},
				opts: drivertest.Options{ScanOrdered: true, StrictInsert: true, Records: 300}},
		},
	},
	"postgres": {
		env:  "DBARENA_TEST_POSTGRES",
		addr: func(hp string) string { return "postgres://postgres@" + hp + "/ycsb?sslmode=disable" },
		props: func(addr string) map[string]string {
			return map[string]string{"postgres.url": withDatabase(addr, "dbarena_test")}
		},
		defaultAddr: "127.0.0.1:5432",
		metrics: []string{"pg_cache_hit_ratio", "pg_commits", "pg_blocks_read", "pg_temp_bytes", "pg_deadlocks", "pg_checkpoints",
			"pg_buffers_written_checkpoint", "pg_sessions_lock", "pg_sessions_active", "pg_lock_wait_share", "pg_row_lock_wait_share", "pg_wal_flush_wait_share"},
		grows: "pg_commits",
		suites: []suite{
			{name: "columns", opts: drivertest.Options{ScanOrdered: true, StrictInsert: true}},
			{name: "jsonb", props: map[string]string{"postgres.layout": "jsonb", "postgres.load": "insert"},
				opts: drivertest.Options{ScanOrdered: true, StrictInsert: true}},
			// Fewer connections than workers: sessions take a connection
			// per operation instead of keeping one.
			{name: "small-pool", props: map[string]string{"postgres.pool.max": "3", "postgres.load": "insert"},
				opts: drivertest.Options{ScanOrdered: true, StrictInsert: true, Records: 300}},
			// The URL's default_query_exec_mode=simple_protocol, as behind
			// PgBouncer in transaction mode, where no statement may be
			// prepared: every operation takes pgx's own path in that mode.
			{name: "simple-protocol", props: map[string]string{"postgres.load": "insert"},
				adjust: func(p map[string]string) {
					p["postgres.url"] = withQuery(withDatabase(p["postgres.url"], "dbarena_simple"), "default_query_exec_mode", "simple_protocol")
				},
				opts: drivertest.Options{ScanOrdered: true, StrictInsert: true, Records: 300}},
			// The same server listed twice in postgres.hosts, as two
			// nodes of a cluster: the workers' sessions split between
			// them (driver/postgres's TestHostsSpreadWorkers checks how).
			{name: "two-hosts", adjust: func(p map[string]string) {
				if u, err := url.Parse(p["postgres.url"]); err == nil {
					p["postgres.hosts"] = u.Host + "," + u.Host
				}
			}, opts: drivertest.Options{ScanOrdered: true, StrictInsert: true, Records: 200}},
		},
	},
	"redis": {
		env:  "DBARENA_TEST_REDIS",
		addr: func(hp string) string { return hp },
		// The suite drops every indexed record of its logical database, so
		// its runs get databases no other test uses (driver/redis's tests
		// use 2, 3 and 6, the CLI's 0 and 7), and may run beside them.
		props: func(addr string) map[string]string {
			return map[string]string{"redis.addr": addr, "redis.db": "1"}
		},
		defaultAddr: "127.0.0.1:6379",
		metrics: []string{"redis_keyspace_hit_ratio", "redis_commands", "redis_used_memory_bytes", "redis_evicted_keys",
			"redis_connected_clients", "redis_cpu_user_seconds"},
		grows: "redis_commands",
		suites: []suite{
			// Scans follow the index's hash order, as in YCSB; inserts
			// overwrite, as HSET does.
			{name: "default", opts: drivertest.Options{ScanOrdered: false, StrictInsert: false}},
			{name: "blind-update-flushdb", props: map[string]string{"redis.db": "4", "redis.update": "hset", "redis.drop": "flushdb", "redis.pool": "2"},
				opts: drivertest.Options{Records: 300}},
		},
		// A Redis Cluster of three nodes, by its seed nodes.
		clusters: []cluster{{env: "DBARENA_TEST_REDIS_CLUSTER",
			props: func(addrs string) map[string]string {
				return map[string]string{"redis.addr": addrs, "redis.cluster": "true"}
			},
			suites: []suite{
				{name: "default"},
				{name: "flushdb", props: map[string]string{"redis.drop": "flushdb"}, opts: drivertest.Options{Records: 300}},
			}}},
	},
}

// withQuery returns a URL with the query parameter key set to v.
func withQuery(addr, key, v string) string {
	u, err := url.Parse(addr)
	if err != nil {
		return addr // the driver reports the bad URL
	}
	q := u.Query()
	q.Set(key, v)
	u.RawQuery = q.Encode()
	return u.String()
}

// withDatabase returns a postgres:// URL naming another database.
func withDatabase(addr, name string) string {
	u, err := url.Parse(addr)
	if err != nil {
		return addr // the driver reports the bad URL
	}
	u.Path = "/" + name
	return u.String()
}

// TestConformance holds every registered driver to the same promises: the
// conformance suite against its real server, a prompt and named failure
// when the server is down or silent, and the documented default address.
// (cockroach's workload/all/all_test.go does the same for its workloads.)
func TestConformance(t *testing.T) {
	for _, d := range drivers.All() {
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			tg, ok := targets[d.Name]
			require.True(t, ok, "driver %s has no entry in targets (conformance_test.go): "+
				"name the variable holding its test server's address and map it to the driver's properties", d.Name)
			switch {
			case tg.noSuite != "":
				t.Logf("no conformance suite: %s", tg.noSuite)
			case tg.env == "": // in process
				require.NotEmpty(t, tg.suites, "targets[%q].suites", d.Name)
				t.Run("suite", func(t *testing.T) { runSuites(t, d, tg, nil) })
			default:
				require.NotNil(t, tg.addr, "targets[%q].addr", d.Name)
				require.NotNil(t, tg.props, "targets[%q].props", d.Name)
				require.NotEmpty(t, tg.suites, "targets[%q].suites", d.Name)
				t.Run("suite", func(t *testing.T) { runSuites(t, d, tg, tg.props(serverAddr(t, tg))) })
				t.Run("metrics", func(t *testing.T) { testMetrics(t, d, tg, tg.props(serverAddr(t, tg))) })
			}
			for _, c := range tg.clusters {
				t.Run("cluster", func(t *testing.T) {
					runSuites(t, d, target{suites: c.suites}, c.props(testenv.Addr(t, c.env)))
				})
			}
			if tg.env == "" {
				t.Run("defaults", func(t *testing.T) { openInProcess(t, d) })
				t.Run("transactions", func(t *testing.T) { testTransactions(t, d, map[string]string{}) })
				return
			}
			if tg.noSuite == "" {
				t.Run("transactions", func(t *testing.T) { testTransactions(t, d, tg.props(serverAddr(t, tg))) })
			}
			t.Run("unreachable", func(t *testing.T) { testRefused(t, d, tg) })
			t.Run("silent", func(t *testing.T) { testSilent(t, d, tg) })
			t.Run("defaults", func(t *testing.T) { testDefaultAddr(t, d, tg) })
		})
	}
}

// TestTargetsAreRegistered keeps the table free of drivers that no longer
// exist, whose entries would test nothing.
func TestTargetsAreRegistered(t *testing.T) {
	for name := range targets {
		_, err := drivers.Lookup(name)
		require.NoError(t, err)
	}
}

// serverAddr returns the test server's address: on a laptop without it
// the test skips, under CI=true it fails, unless no server can run there.
func serverAddr(t testing.TB, tg target) string {
	t.Helper()
	if tg.noCI != "" {
		addr := os.Getenv(tg.env)
		if addr == "" {
			t.Skipf("%s is not set; even under CI=true this skips: %s", tg.env, tg.noCI)
		}
		return addr
	}
	return testenv.Addr(t, tg.env)
}

func runSuites(t *testing.T, d drivers.Info, tg target, base map[string]string) {
	for _, s := range tg.suites {
		t.Run(s.name, func(t *testing.T) {
			o := s.opts
			o.Open, o.Prefix, o.Props = d.Open, d.Prefix, merge(base, s.props)
			if s.adjust != nil {
				s.adjust(o.Props)
			}
			drivertest.Run(t, o)
		})
	}
}

func merge(maps ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// testTransactions checks the driver table's word on SQL transactions
// (what TPC-C needs) and on transfers (what the ledger needs), each
// refused before anything deploys where it is false, against a session
// of the driver.
func testTransactions(t *testing.T, d drivers.Info, props map[string]string) {
	db, err := d.Open(context.Background(), driver.Params{Props: props, Workers: 1})
	require.NoError(t, err)
	defer db.Close()
	s, err := db.Session(context.Background(), 0)
	require.NoError(t, err)
	defer s.Close()
	_, ok := s.(driver.SQLTransactor)
	require.Equal(t, ok, d.SQLTransactions, "drivers.Info.SQLTransactions of %s", d.Name)
	_, ok = s.(driver.Transferer)
	require.Equal(t, ok, d.Transfers, "drivers.Info.Transfers of %s", d.Name)
}

// openInProcess checks that an in-process driver opens with no properties.
func openInProcess(t *testing.T, d drivers.Info) {
	db, err := d.Open(context.Background(), driver.Params{Props: map[string]string{}, Workers: 1})
	require.NoError(t, err)
	require.NoError(t, db.Close())
}

// testRefused opens against a port nothing listens on: the error names
// the address, comes at once and is classed SERVICE_UNAVAILABLE.
func testRefused(t *testing.T, d drivers.Info, tg target) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hp := ln.Addr().String()
	require.NoError(t, ln.Close())
	props := tg.props(tg.addr(hp))
	props[d.Prefix+".connect.timeout"] = "2s"
	start := time.Now()
	_, err = d.Open(context.Background(), driver.Params{Props: props, Workers: 1})
	require.Error(t, err)
	t.Log(err)
	require.Contains(t, err.Error(), hp, "the error names host:port")
	require.Less(t, time.Since(start), 5*time.Second)
	require.Equal(t, driver.ClassUnavailable, driver.Classify(err), "%v", err)
}

// testSilent opens against a listener the kernel accepts connections for
// but that never answers: only the connect timeout ends the wait, well
// before the 5 s every driver defaults to.
func testSilent(t *testing.T, d drivers.Info, tg target) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				_ = c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	hp := ln.Addr().String()
	props := tg.props(tg.addr(hp))
	props[d.Prefix+".connect.timeout"] = "500ms"
	start := time.Now()
	_, err = d.Open(context.Background(), driver.Params{Props: props, Workers: 1})
	require.Error(t, err)
	t.Log(err)
	require.Contains(t, err.Error(), hp)
	require.Less(t, time.Since(start), 3*time.Second)
}

// testDefaultAddr opens with no address property: the driver goes to its
// documented default. Nothing listens there on a test machine, so the
// error names it; should a server answer there, the default was used.
func testDefaultAddr(t *testing.T, d drivers.Info, tg target) {
	if tg.defaultAddr == "" {
		t.Skip("the default address is on the internet; the driver's own tests check it offline")
	}
	props := map[string]string{d.Prefix + ".connect.timeout": "1s"}
	db, err := d.Open(context.Background(), driver.Params{Props: props, Workers: 1})
	if err == nil {
		t.Logf("a server answers at %s, the default address", tg.defaultAddr)
		require.NoError(t, db.Close())
		return
	}
	t.Log(err)
	require.True(t, strings.Contains(err.Error(), tg.defaultAddr), "the error of an open with no address names %s: %v", tg.defaultAddr, err)
}
