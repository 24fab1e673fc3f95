package cql

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/dbarena/dbarena/driver"
)

// DB is an opened CQL cluster: one gocql session shared by every worker.
type DB struct {
	cfg     Config
	log     *slog.Logger
	session *gocql.Session
	tracer  gocql.Tracer
	retry   gocql.RetryPolicy

	retries    atomic.Int64
	notApplied atomic.Int64
	traced     atomic.Int64

	// scylla is set once the server turned out to have no system_views:
	// ReadMetrics reads the Prometheus pages instead.
	scylla   atomic.Bool
	httpOnce sync.Once
	http     *http.Client
}

var (
	_ driver.DB            = (*DB)(nil)
	_ driver.SchemaManager = (*DB)(nil)
	_ driver.CounterSource = (*DB)(nil)
)

// Open is the driver.Opener. It connects to the contact points, discovers
// the ring and fails with a message naming every host:port tried when none
// answers within cql.connect.timeout.
func Open(ctx context.Context, p driver.Params) (driver.DB, error) {
	cfg, err := ParseConfig(p.Props)
	if err != nil {
		return nil, driver.BadConfig(err)
	}
	log := p.Log()
	db := &DB{cfg: cfg, log: log}
	if cfg.Tracing {
		db.tracer = countingTracer{n: &db.traced}
	}
	if cfg.Retries > 0 {
		db.retry = &retryPolicy{max: cfg.Retries}
	}
	if err := probe(ctx, cfg); err != nil {
		return nil, err
	}
	s, err := db.clusterConfig().CreateSession()
	if err != nil {
		return nil, db.connectError(err)
	}
	db.session = s
	log.Info("cql connected", "hosts", strings.Join(cfg.Hosts, ","), "keyspace", cfg.Keyspace,
		"connections_per_host", cfg.Connections, "read", cfg.Read.String(), "write", cfg.Write.String())
	return db, nil
}

// clusterConfig translates the typed configuration into gocql's.
func (db *DB) clusterConfig() *gocql.ClusterConfig {
	c := db.cfg
	cc := gocql.NewCluster(c.Hosts...)
	cc.Port = c.Port
	cc.NumConns = c.Connections
	cc.ConnectTimeout = c.ConnectTimeout
	cc.Timeout = c.Timeout
	cc.WriteCoalesceWaitTime = c.Coalesce
	cc.Consistency = c.Read
	cc.SerialConsistency = c.Serial
	cc.RetryPolicy = db.retry
	// The session has no keyspace: statements name keyspace.table, so one
	// session serves the schema statements (before the keyspace exists) and
	// the workload. Token-aware routing learns the keyspace of a statement
	// from its prepared metadata.
	cc.Keyspace = ""
	// Replica placement needs only the keyspaces' replication options;
	// CheckSchema reads system_schema itself, so the per-table metadata gocql
	// would cache is not loaded.
	cc.Metadata.CacheMode = gocql.KeyspaceOnly
	var fallback gocql.HostSelectionPolicy = gocql.RoundRobinHostPolicy()
	if c.LocalDC != "" {
		fallback = gocql.DCAwareRoundRobinPolicy(c.LocalDC)
	}
	// Token-aware: each request goes to a replica of its key, saving the
	// coordinator hop that costs a network round trip inside the cluster.
	// Replicas are shuffled so that with RF > 1 a hot key's reads spread
	// over its replicas instead of always hitting the first one.
	cc.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(fallback, gocql.ShuffleReplicas())
	if c.TLS != nil {
		// gocql skips verification unless EnableHostVerification is set,
		// whatever the tls.Config says: follow the config's choice.
		cc.SslOpts = &gocql.SslOptions{Config: c.TLS, EnableHostVerification: !c.TLS.InsecureSkipVerify}
	}
	if c.Username != "" {
		cc.Authenticator = gocql.PasswordAuthenticator{Username: c.Username, Password: c.Password}
	}
	if !c.Discovery {
		// The contact points only: no peers from system.peers, no hosts
		// added by topology or status events.
		cc.DisableInitialHostLookup = true
		cc.Events.DisableTopologyEvents = true
		cc.Events.DisableNodeStatusEvents = true
	}
	cc.Logger = slogAdapter{db.log}
	return cc
}

// probe dials every contact point at once and fails when none accepts a
// TCP connection within the connect timeout. gocql would try them one
// after the other, twice (protocol discovery, then the control connection),
// so a dead cluster of three hosts took six timeouts to report.
func probe(ctx context.Context, cfg Config) error {
	ctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
	defer cancel()
	errs := make([]error, len(cfg.Hosts))
	var wg sync.WaitGroup
	ok := make(chan struct{}, len(cfg.Hosts))
	for i, h := range cfg.Hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var d net.Dialer
			c, err := d.DialContext(ctx, "tcp", h)
			if err != nil {
				errs[i] = err
				return
			}
			_ = c.Close() // only reachability was asked
			ok <- struct{}{}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-ok:
		return nil // at least one contact point answers; gocql finds the rest
	case <-done:
		select {
		case <-ok:
			return nil
		default:
		}
	}
	return driver.Unreachable("cql", strings.Join(cfg.Hosts, ","), cfg.ConnectTimeout, errors.Join(errs...))
}

// connectError turns a failed session start into a message that says what
// to fix. gocql flattens its errors into text, hence the string matching.
func (db *DB) connectError(err error) error {
	msg := strings.ToLower(err.Error())
	hosts := strings.Join(db.cfg.Hosts, ",")
	switch {
	// Cassandra: "authentication required", "Provided username X and/or
	// password are incorrect"; ScyllaDB and YugabyteDB word it alike.
	case strings.Contains(msg, "authentication") || strings.Contains(msg, "password") ||
		strings.Contains(msg, "credentials"):
		who := "no user (set cql.username and cql.password)"
		if db.cfg.Username != "" {
			who = fmt.Sprintf("user %q (check cql.username and cql.password)", db.cfg.Username)
		}
		return fmt.Errorf("cql at %s refused the login of %s: %w", hosts, who, err)
	}
	return driver.Unreachable("cql", hosts, db.cfg.ConnectTimeout, err)
}

// Session implements driver.DB.
func (db *DB) Session(ctx context.Context, worker int) (driver.Session, error) {
	return newSession(db), nil
}

// Close implements driver.DB.
func (db *DB) Close() error {
	if db.session != nil {
		db.session.Close()
	}
	return nil
}

// Counters implements driver.CounterSource.
func (db *DB) Counters() []driver.Counter {
	out := []driver.Counter{
		{Name: "cql.retries", Value: float64(db.retries.Load()), Help: "requests gocql sent again after a failure (cql.retries)"},
	}
	if n := db.notApplied.Load(); db.cfg.LWT || n > 0 {
		out = append(out, driver.Counter{Name: "cql.lwt.not_applied", Value: float64(n),
			Help: "lightweight transactions whose condition failed (key exists on insert, missing on update or delete; a ledger's balance changed by another transfer)"})
	}
	if db.cfg.Tracing {
		out = append(out, driver.Counter{Name: "cql.traced", Value: float64(db.traced.Load()),
			Help: "requests traced by the server (system_traces.sessions)"})
	}
	return out
}

// countingTracer asks the server to trace every request and counts the
// traces; the trace itself stays in system_traces for the user to read,
// as YCSB's cassandra.tracing does. Fetching it per request would measure
// the tracing queries instead of the workload.
type countingTracer struct{ n *atomic.Int64 }

func (t countingTracer) Trace([]byte) { t.n.Add(1) }

// retryPolicy retries an idempotent request on the next host after a
// failure that another replica may not have: timeouts, unavailable,
// overloaded, bootstrapping and broken connections. Retries are counted
// from the attempts gocql reports per request.
type retryPolicy struct{ max int }

func (r *retryPolicy) Attempt(q gocql.RetryableQuery) bool { return q.Attempts() <= r.max }

func (r *retryPolicy) GetRetryType(err error) gocql.RetryType {
	switch classOf(err) {
	case driver.ClassTimeout, driver.ClassUnavailable, driver.ClassThrottled:
		return gocql.RetryNextHost
	}
	return gocql.Rethrow
}

// slogAdapter forwards gocql's warnings and errors to the run's logger;
// its info messages (every host added, every schema refresh) are dropped.
type slogAdapter struct{ log *slog.Logger }

func (a slogAdapter) attrs(fields []gocql.LogField) []any {
	out := make([]any, 0, 2*len(fields))
	for _, f := range fields {
		out = append(out, f.Name, f.Value.String())
	}
	return out
}

func (a slogAdapter) Error(msg string, fields ...gocql.LogField) {
	a.log.Error("gocql: "+msg, a.attrs(fields)...)
}

func (a slogAdapter) Warning(msg string, fields ...gocql.LogField) {
	a.log.Warn("gocql: "+msg, a.attrs(fields)...)
}

func (a slogAdapter) Info(string, ...gocql.LogField)  {}
func (a slogAdapter) Debug(string, ...gocql.LogField) {}
