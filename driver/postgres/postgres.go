// Package postgres is the dbarena driver for PostgreSQL and the databases
// that speak its wire protocol: CockroachDB and YugabyteDB YSQL.
//
// It uses a pgx connection pool sized to the number of workers, so every
// worker has a connection of its own (YCSB's JDBC binding shares one
// connection per thread but serialises on it in practice), prepared
// statements cached per connection, raw result bytes without decoding, and
// COPY or multi-row INSERT for the load phase. Tables and columns are named
// as YCSB's bindings name them (usertable, YCSB_KEY, FIELD0... or
// YCSB_VALUE JSONB), so data loaded by either tool reads in the other.
package postgres

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/redact"
)

// Prefix is the property prefix of this driver.
const Prefix = "postgres"

// DefaultURL is the connection URL used when postgres.url is not given.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/ycsb?sslmode=disable"

// Config is the driver's typed configuration, read from its properties.
type Config struct {
	URL            string
	Dialect        Dialect
	Layout         Layout
	PoolMax        int
	ConnectTimeout time.Duration
	// Load is "copy" or "insert": how batched load inserts are sent.
	Load string
	// MaxRetries bounds the retries of a statement that failed with a
	// serialization failure (SQLSTATE 40001), which CockroachDB and
	// YugabyteDB return under contention. Retries are counted.
	MaxRetries int
	// CreateDatabase creates the URL's database when it is missing.
	CreateDatabase bool
	// Hosts, when set, spread the workers over several nodes of a
	// cluster (CockroachDB, YugabyteDB): worker i connects to Hosts[i %
	// len(Hosts)] with the URL's user, database and options. A URL with
	// several hosts only fails over, sending every connection to the
	// first that answers.
	Hosts []string
	sql   sqlBuilder
}

// ParseConfig reads the driver's properties. workers sizes the pool by
// default.
func ParseConfig(props map[string]string, workers int) (Config, error) {
	p := driver.NewProps(Prefix, props)
	c := Config{URL: p.String("url", "")}
	if c.URL == "" {
		c.URL = jdbcURL(props)
	}
	if c.URL == "" {
		c.URL = DefaultURL
	}
	var err error
	errs := []error{}
	add := func(e error) {
		if e != nil {
			errs = append(errs, e)
		}
	}
	d, e := p.Enum("dialect", string(DialectPostgres), string(DialectPostgres), string(DialectCockroach), string(DialectYugabyte))
	add(e)
	c.Dialect = Dialect(d)
	l, e := p.Enum("layout", string(LayoutColumns), string(LayoutColumns), string(LayoutJSONB))
	add(e)
	c.Layout = Layout(l)
	c.PoolMax, e = p.Int("pool.max", max(workers, 1), 1)
	add(e)
	c.ConnectTimeout, e = p.Duration("connect.timeout", 5*time.Second)
	add(e)
	defLoad := "copy"
	if c.Dialect == DialectCockroach {
		// CockroachDB documents multi-row INSERT as its fast bulk path.
		defLoad = "insert"
	}
	c.Load, e = p.Enum("load", defLoad, "copy", "insert")
	add(e)
	defRetries := 0
	if c.Dialect != DialectPostgres {
		defRetries = 10
	}
	c.MaxRetries, e = p.Int("retries", defRetries, 0)
	add(e)
	c.CreateDatabase, e = p.Bool("create.database", true)
	add(e)
	if hs := p.String("hosts", ""); hs != "" {
		for _, h := range strings.Split(hs, ",") {
			h = strings.TrimSpace(h)
			if _, _, err := net.SplitHostPort(h); err != nil {
				add(fmt.Errorf("%s=%q: want host:port pairs separated by commas, such as 10.0.0.2:26257,10.0.0.3:26257", p.Key("hosts"), hs))
				break
			}
			c.Hosts = append(c.Hosts, h)
		}
	}
	c.sql = sqlBuilder{dialect: c.Dialect, layout: c.Layout}
	c.sql.upsert, e = p.Bool("upsert", false)
	add(e)
	if c.sql.upsert && c.Dialect != DialectCockroach {
		add(fmt.Errorf("%s=true: UPSERT is CockroachDB syntax; set %s=cockroachdb", p.Key("upsert"), p.Key("dialect")))
	}
	pk, e := p.Enum("primarykey", "hash", "hash", "range")
	add(e)
	c.sql.hashKey = pk == "hash"
	c.sql.splits, e = p.Int("splits", 0, 0)
	add(e)
	if err = errors.Join(errs...); err != nil {
		return c, err
	}
	if _, err := pgx.ParseConfig(c.URL); err != nil {
		return c, fmt.Errorf("%s=%q: %w", p.Key("url"), redact.URL(c.URL), err)
	}
	return c, p.Unknown(properties()...)
}

// properties are the keys ParseConfig reads under the driver's prefix,
// in any configuration (some only when others are set): any other
// property under the prefix is refused as unknown (driver.Props.Unknown),
// naming the nearest.
func properties() []string {
	return []string{"connect.timeout", "create.database", "dialect", "hosts", "layout", "load", "pool.max", "primarykey", "retries", "splits", "upsert", "url"}
}

// jdbcURL turns YCSB's JDBC properties (db.url=jdbc:postgresql://host:port/db,
// db.user, db.passwd) into a pgx URL, so YCSB property files work unchanged.
func jdbcURL(props map[string]string) string {
	u, ok := props["db.url"]
	if !ok || !strings.HasPrefix(u, "jdbc:postgresql://") {
		return ""
	}
	// YCSB allows several URLs separated by commas; one pool takes the first.
	u = strings.SplitN(strings.TrimPrefix(u, "jdbc:"), ",", 2)[0]
	pu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	if user := props["db.user"]; user != "" {
		pu.User = url.UserPassword(user, props["db.passwd"])
	}
	return pu.String()
}

// DB is an opened PostgreSQL-protocol database.
type DB struct {
	cfg Config
	log *slog.Logger
	// pool is the first host's, for the schema and statistics; pools
	// has one per host of Config.Hosts (or just pool).
	pool  *pgxpool.Pool
	pools []*pgxpool.Pool
	// sumConn is SumBalances' connection of its own, under sumMu.
	sumMu   sync.Mutex
	sumConn *pgx.Conn
	// firstWorker numbers this process's workers in the trial
	// (driver.Params.FirstWorker): worker w of the trial uses host
	// w mod len(pools).
	firstWorker int
	addr        string
	dbName      string
	// sticky gives every session a connection of its own for its whole
	// life; it is only safe when the pool has a connection per worker.
	sticky bool
	// prepared says that statements are prepared once per connection
	// (pgx's cache_statement mode, unless the URL chose another), which
	// lets sessions use the protocol directly.
	prepared bool
	// missingDB is set when the URL's database does not exist yet:
	// CreateSchema creates it, other calls report it.
	missingDB bool
	// writerStats is the query of the checkpointer's figures for this
	// server's version, chosen at the first ReadMetrics (which the
	// sampler calls from one goroutine).
	writerStats string
	// waitsSeen are the wait events the metrics have named so far: each
	// is written every second from then on, zeros too, so that its share
	// over a window counts the seconds it was absent (the same
	// goroutine).
	waitsSeen map[waitEvent]bool

	retries    atomic.Int64
	reconnects atomic.Int64
}

var (
	_ driver.DB            = (*DB)(nil)
	_ driver.SchemaManager = (*DB)(nil)
	_ driver.CounterSource = (*DB)(nil)
)

// Open is the driver.Opener.
func Open(ctx context.Context, p driver.Params) (driver.DB, error) {
	cfg, err := ParseConfig(p.Props, p.Workers)
	if err != nil {
		return nil, driver.BadConfig(err)
	}
	log := p.Log()
	db := &DB{cfg: cfg, log: log, sticky: cfg.PoolMax >= p.Workers, firstWorker: p.FirstWorker}
	pc, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("postgres.url: %w", err)
	}
	db.addr = net.JoinHostPort(pc.ConnConfig.Host, strconv.Itoa(int(pc.ConnConfig.Port)))
	db.dbName = pc.ConnConfig.Database
	if err := db.connect(ctx); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "3D000" {
			// invalid_catalog_name: the load creates the database.
			db.missingDB = true
			return db, nil
		}
		return nil, err
	}
	return db, nil
}

// connect opens the pools (one, or one per host) and checks that the
// servers answer.
func (db *DB) connect(ctx context.Context) error {
	hosts := db.cfg.Hosts
	if len(hosts) == 0 {
		hosts = []string{""}
	}
	for i, h := range hosts {
		pool, err := db.connectTo(ctx, h, i, len(hosts))
		if err != nil {
			db.Close()
			return err
		}
		db.pools = append(db.pools, pool)
	}
	db.pool = db.pools[0]
	return nil
}

// connectTo opens the pool of host (the URL's when ""), one of n.
func (db *DB) connectTo(ctx context.Context, host string, i, n int) (*pgxpool.Pool, error) {
	pc, err := pgxpool.ParseConfig(db.cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("postgres.url: %w", err)
	}
	pc.MaxConns = int32((db.cfg.PoolMax + n - 1) / n)
	pc.ConnConfig.ConnectTimeout = db.cfg.ConnectTimeout
	addr := db.addr
	if host != "" {
		h, port, _ := net.SplitHostPort(host)
		p, err := strconv.ParseUint(port, 10, 16)
		if err != nil {
			return nil, fmt.Errorf("postgres.hosts: port of %s: %w", host, err)
		}
		// The URL's first host comes with fallbacks for its TLS choices
		// (sslmode=prefer tries TLS, then plain): keep those, moved to
		// this host, and verify this host's name; drop the URL's other
		// hosts, which are for failing over.
		first, firstPort := pc.ConnConfig.Host, pc.ConnConfig.Port
		var fbs []*pgconn.FallbackConfig
		for _, fb := range pc.ConnConfig.Fallbacks {
			if fb.Host == first && fb.Port == firstPort {
				fbs = append(fbs, &pgconn.FallbackConfig{Host: h, Port: uint16(p), TLSConfig: withServerName(fb.TLSConfig, h)})
			}
		}
		pc.ConnConfig.Host, pc.ConnConfig.Port, pc.ConnConfig.Fallbacks = h, uint16(p), fbs
		pc.ConnConfig.TLSConfig = withServerName(pc.ConnConfig.TLSConfig, h)
		addr = host
		if _, ok := pc.ConnConfig.RuntimeParams["application_name"]; !ok {
			// Says in pg_stat_activity which host's share a connection is.
			pc.ConnConfig.RuntimeParams["application_name"] = fmt.Sprintf("dbarena host %d of %d", i+1, n)
		}
	}
	// Statements are prepared once per connection and described once, so
	// a point read is one round trip with no parse or plan on the server.
	// A URL's default_query_exec_mode (simple_protocol behind PgBouncer in
	// transaction mode) wins.
	if !strings.Contains(db.cfg.URL, "default_query_exec_mode") {
		pc.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
	}
	db.prepared = pc.ConnConfig.DefaultQueryExecMode == pgx.QueryExecModeCacheStatement
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("postgres.url: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, db.cfg.ConnectTimeout)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, db.connectError(addr, err)
	}
	return pool, nil
}

// withServerName is c for host (nil stays nil: no TLS).
func withServerName(c *tls.Config, host string) *tls.Config {
	if c == nil {
		return nil
	}
	c = c.Clone()
	c.ServerName = host
	return c
}

// connectError turns a failed first contact with addr into a message
// that says what to fix.
func (db *DB) connectError(addr string, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01", "28000":
			return fmt.Errorf("postgres at %s refused the login in %s (check the user and password in postgres.url): %w", addr, redact.URL(db.cfg.URL), err)
		case "3D000":
			return err
		}
		return fmt.Errorf("postgres at %s: %w", addr, err)
	}
	return driver.Unreachable("postgres", addr, db.cfg.ConnectTimeout, err)
}

// Session implements driver.DB.
func (db *DB) Session(ctx context.Context, worker int) (driver.Session, error) {
	if err := db.ready(); err != nil {
		return nil, err
	}
	return newSession(db, db.pools[hostOf(db.firstWorker+max(worker, 0), len(db.pools))]), nil
}

// hostOf is the host of the trial's worker w, of n: round robin, so
// that the loaders of a trial, numbered across, fill every host.
func hostOf(w, n int) int { return w % n }

func (db *DB) ready() error {
	if db.missingDB || db.pool == nil {
		return fmt.Errorf("database %q does not exist at %s: run `dbarena ycsb load` (it creates the database and table) or create it", db.dbName, db.addr)
	}
	return nil
}

// Close implements driver.DB.
func (db *DB) Close() error {
	for _, p := range db.pools {
		p.Close()
	}
	db.pools, db.pool = nil, nil
	db.sumMu.Lock()
	defer db.sumMu.Unlock()
	if db.sumConn != nil {
		// Nothing is pending on it: a close error changes no result.
		_ = db.sumConn.Close(context.Background())
		db.sumConn = nil
	}
	return nil
}

// Counters implements driver.CounterSource.
func (db *DB) Counters() []driver.Counter {
	return []driver.Counter{
		{Name: "postgres.retries", Value: float64(db.retries.Load()), Help: "statements retried after a serialization failure (SQLSTATE 40001)"},
		{Name: "postgres.reconnects", Value: float64(db.reconnects.Load()), Help: "connections replaced after a connection-level error"},
	}
}

var _ driver.EndpointFunc = Endpoint

// Endpoint implements driver.EndpointFunc: the URL, the dialect and the
// driver's own point read, for pgbench.
func Endpoint(props map[string]string, workers int) (driver.Endpoint, error) {
	c, err := ParseConfig(props, workers)
	if err != nil {
		return driver.Endpoint{}, err
	}
	ep := driver.Endpoint{Dialect: string(c.Dialect), URL: c.URL, ReadAllSQL: c.ReadAllSQL}
	if pc, err := pgconn.ParseConfig(c.URL); err == nil {
		// A Unix socket path has no address to give.
		if !strings.HasPrefix(pc.Host, "/") {
			ep.Addrs = append(ep.Addrs, net.JoinHostPort(pc.Host, strconv.Itoa(int(pc.Port))))
		}
		for _, fb := range pc.Fallbacks {
			if !strings.HasPrefix(fb.Host, "/") {
				ep.Addrs = append(ep.Addrs, net.JoinHostPort(fb.Host, strconv.Itoa(int(fb.Port))))
			}
		}
		ep.Addrs = slices.Compact(ep.Addrs)
	}
	return ep, nil
}
