// Package redis is the dbarena driver for Redis and the servers that speak
// its protocol (Valkey, KeyDB, Dragonfly), single node or Redis Cluster, on
// go-redis v9.
//
// Records are laid out as YCSB's Redis binding lays them out, so data loaded
// by either tool reads in the other: one hash per record at the record's key
// (the table name is ignored: Redis has no tables), and a sorted set named
// "_indices" holding every key with the Java String.hashCode of the key as
// score, which scans walk with ZRANGEBYSCORE. Scans therefore return records
// in hash order, not key order.
//
// Unlike YCSB's binding, an insert writes the hash and its index entry in
// one MULTI/EXEC (one round trip, atomic on a single node), a delete removes
// both the same way, an update of a missing record is NOT_FOUND instead of
// creating a partial record (redis.update=hset restores YCSB's blind HSET),
// and a read of a missing record is NOT_FOUND rather than ERROR.
package redis

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"strings"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/dbarena/dbarena/driver"
)

// DB is an opened Redis deployment, safe for concurrent use.
type DB struct {
	cfg    Config
	log    *slog.Logger
	client goredis.UniversalClient
	// single is client on a single node, nil on a cluster; sticky says its
	// pool has a connection per worker, so each session can keep one.
	single *goredis.Client
	sticky bool
	// addr names the deployment in messages: the address, or the seed list
	// of a cluster.
	addr   string
	update *goredis.Script
}

var (
	_ driver.DB            = (*DB)(nil)
	_ driver.SchemaManager = (*DB)(nil)
)

// updateScript sets the given fields of an existing hash and returns 1, or
// returns 0 without writing when the hash does not exist. It runs
// atomically on the server, so a concurrent delete cannot slip between the
// check and the write.
const updateScript = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1`

// Open is the driver.Opener. It connects within redis.connect.timeout and
// fails with driver.Unreachable naming the address when no server answers.
func Open(ctx context.Context, p driver.Params) (driver.DB, error) {
	cfg, err := ParseConfig(p.Props, p.Workers)
	if err != nil {
		return nil, err
	}
	log := p.Log()
	// go-redis prints pool errors to stderr in a voice of its own; they
	// go to the run's logger instead. Its logger is the library's one
	// for the whole process: every DB of one dbarena process logs to the
	// same place, so the last one set is as good as the first.
	goredis.SetLogger(redisLogger{log})
	db := &DB{cfg: cfg, log: log, addr: strings.Join(cfg.Addrs, ","), update: goredis.NewScript(updateScript)}
	db.client = newClient(cfg)
	db.single, _ = db.client.(*goredis.Client)
	db.sticky = cfg.Pool >= p.Workers
	if err := db.ping(ctx); err != nil {
		_ = db.client.Close()
		return nil, err
	}
	return db, nil
}

// newClient builds a single-node or cluster client from the configuration.
func newClient(cfg Config) goredis.UniversalClient {
	// Every option below is set for a measurement, not left to go-redis:
	//   - retries off: a failed operation is counted as failed, instead of
	//     being hidden inside the latency of a retried one;
	//   - one dial attempt, so an unreachable server fails within
	//     connect.timeout rather than five times it;
	//   - one pool sized to the workers, with pipelines on it too, so the
	//     connection count is what the properties say;
	//   - RESP2, which every Redis-protocol server speaks, so no command
	//     looks for RESP3 push notifications first;
	//   - no CLIENT SETINFO and no maintenance notifications: commands that
	//     older servers and Valkey/KeyDB reject, and that a benchmark needs
	//     nothing from;
	//   - connections dialled by dial below, which go-redis cannot health
	//     check.
	maint := &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	dial := dialPlain
	if cfg.TLS != nil {
		dial = dialTLS(cfg.TLS)
	}
	if cfg.Cluster {
		return goredis.NewClusterClient(&goredis.ClusterOptions{
			Addrs: cfg.Addrs, Username: cfg.Username, Password: cfg.Password, Protocol: 2, Dialer: dial,
			MaxRetries: -1, DialTimeout: cfg.ConnectTimeout, DialerRetries: 1,
			ReadTimeout: cfg.Timeout, WriteTimeout: cfg.Timeout, ContextTimeoutEnabled: true,
			PoolSize: cfg.Pool, PipelinePoolSize: -1, PoolTimeout: cfg.Timeout,
			DisableIdentity: true, MaintNotificationsConfig: maint,
		})
	}
	return goredis.NewClient(&goredis.Options{
		Addr: cfg.Addrs[0], Username: cfg.Username, Password: cfg.Password, DB: cfg.DB, Protocol: 2, Dialer: dial,
		MaxRetries: -1, DialTimeout: cfg.ConnectTimeout, DialerRetries: 1,
		ReadTimeout: cfg.Timeout, WriteTimeout: cfg.Timeout, ContextTimeoutEnabled: true,
		PoolSize: cfg.Pool, PipelinePoolSize: -1, PoolTimeout: cfg.Timeout,
		DisableIdentity: true, MaintNotificationsConfig: maint,
	})
}

// ping checks that the deployment answers within the connect timeout and
// turns a failure into a message that says what to fix.
func (db *DB) ping(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, db.cfg.ConnectTimeout)
	defer cancel()
	err := db.client.Ping(pctx).Err()
	if err == nil {
		return nil
	}
	switch {
	case goredis.IsAuthError(err), goredis.IsPermissionError(err):
		return fmt.Errorf("redis at %s refused the login (check redis.user and redis.password, or the user and password of redis.url): %w", db.addr, err)
	case isServerError(err):
		return fmt.Errorf("redis at %s: %w", db.addr, err)
	}
	return driver.Unreachable("redis", db.addr, db.cfg.ConnectTimeout, err)
}

// Session implements driver.DB. On a single node with a connection per
// worker each session keeps one connection for its life; otherwise
// sessions share the client's pool.
func (db *DB) Session(context.Context, int) (driver.Session, error) {
	return &session{db: db}, nil
}

// Close implements driver.DB.
func (db *DB) Close() error {
	if err := db.client.Close(); err != nil {
		return fmt.Errorf("close redis client for %s: %w", db.addr, err)
	}
	return nil
}

// plainConn hides the socket behind a net.Conn that does not implement
// syscall.Conn. go-redis health-checks a connection that does, with a
// non-blocking recvfrom, every time it leaves the pool, which is every
// operation: about 5% of client CPU on workload C here. A benchmark's
// connections are never idle long enough to go stale, and one that breaks
// fails its operation, which is counted.
type plainConn struct{ net.Conn }

// dialPlain connects to a server; the connect timeout comes from ctx.
func dialPlain(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return plainConn{c}, nil
}

// dialTLS returns a dialer that connects over TLS and completes the
// handshake within the connect timeout; the server name to verify is the
// address's host unless the configuration names one. go-redis applies
// its own TLSConfig only with its own dialer, which this one replaces.
func dialTLS(cfg *tls.Config) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		d := tls.Dialer{Config: cfg}
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return plainConn{c}, nil
	}
}

// redisLogger forwards go-redis's messages (a failed dial, a pool
// error) to the run's logger at debug level: the errors they explain
// reach the user through the driver's own, which name the address.
type redisLogger struct{ log *slog.Logger }

// Printf implements go-redis's logging interface.
func (l redisLogger) Printf(_ context.Context, format string, v ...any) {
	l.log.Debug(strings.TrimSpace(fmt.Sprintf(format, v...)))
}
