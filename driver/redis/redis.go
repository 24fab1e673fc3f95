// Package redis is the dbarena driver for Redis and the servers that speak
// its protocol (Valkey, KeyDB, Dragonfly), single node or Redis Cluster, on
// rueidis, whose workers' commands share pipelined connections.
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
	"fmt"
	"log/slog"
	"math"
	"math/bits"
	"net"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/dbarena/dbarena/driver"
)

// DB is an opened Redis deployment, safe for concurrent use.
type DB struct {
	cfg    Config
	log    *slog.Logger
	client rueidis.Client
	// addr names the deployment in messages: the address, or the seed list
	// of a cluster.
	addr   string
	update *rueidis.Lua
	// transfer is the ledger's transfer (see Transfer), sum its audit's
	// snapshot (see SumBalances).
	transfer, sum *rueidis.Lua
	// snapshotCap is the most accounts a snapshot sum reads (0:
	// maxSnapshotAccounts); tests lower it.
	snapshotCap int64
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
		return nil, driver.BadConfig(err)
	}
	db := &DB{cfg: cfg, log: p.Log(), addr: strings.Join(cfg.Addrs, ","), update: rueidis.NewLuaScript(updateScript),
		transfer: rueidis.NewLuaScript(transferScript), sum: rueidis.NewLuaScript(sumScript)}
	// rueidis connects before it returns, and bounds the dial and the
	// connection's first commands by the dial timeout.
	db.client, err = rueidis.NewClient(clientOption(cfg))
	if err != nil {
		return nil, db.openError(err)
	}
	if err := db.ping(ctx); err != nil {
		db.client.Close()
		return nil, db.openError(err)
	}
	// Given one seed that is not in cluster mode, rueidis falls back to a
	// single-node client; the driver would then send cluster commands.
	if cfg.Cluster && db.client.Mode() != rueidis.ClientModeCluster {
		db.client.Close()
		return nil, fmt.Errorf("redis.cluster=true, but redis at %s is not a cluster (cluster_enabled:0): drop redis.cluster", db.addr)
	}
	return db, nil
}

// clientOption is the rueidis configuration of cfg.
func clientOption(cfg Config) rueidis.ClientOption {
	multiplex := bits.Len(uint(cfg.Pool)) - 1
	if multiplex == 0 {
		multiplex = -1
	}
	// Every option below is set for a measurement, not left to rueidis:
	//   - retries off: a failed operation is counted as failed, instead of
	//     being hidden inside the latency of a retried one (a cluster's
	//     MOVED and ASK redirections are still followed);
	//   - the workers' commands pipelined onto redis.pool connections per
	//     server (2^PipelineMultiplex; -1 is one connection, 0 would be
	//     rueidis' default): a worker alone on a connection is written and
	//     read on its own goroutine, concurrent ones share a write and a
	//     read, and no batch is large enough to be sent on a connection
	//     of its own (BlockingPipeline), so the server sees redis.pool
	//     connections;
	//   - no client-side cache: every read goes to the server;
	//   - RESP2, which every Redis-protocol server speaks, and no CLIENT
	//     SETINFO, which older servers and some forks reject;
	//   - redis.timeout bounds the wait for a reply: on a connection used
	//     by one worker at a time as its socket deadline, on a shared one
	//     by a PING sent after a second without replies (Dialer.KeepAlive),
	//     whose reply must come within redis.timeout.
	return rueidis.ClientOption{
		InitAddress: cfg.Addrs, ForceSingleClient: !cfg.Cluster,
		Username: cfg.Username, Password: cfg.Password, SelectDB: cfg.DB,
		TLSConfig: cfg.TLS, Dialer: net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: time.Second},
		ConnWriteTimeout:  cfg.Timeout,
		PipelineMultiplex: multiplex,
		BlockingPipeline:  math.MaxInt32,
		DisableRetry:      true, DisableCache: true, AlwaysRESP2: true,
		ClientSetInfo: rueidis.DisableClientSetInfo,
	}
}

// ping checks that the deployment answers within the connect timeout.
func (db *DB) ping(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, db.cfg.ConnectTimeout)
	defer cancel()
	return db.client.Do(pctx, db.client.B().Ping().Build()).Error()
}

// openError turns a failure to connect into a message that says what to
// fix.
func (db *DB) openError(err error) error {
	if re, ok := rueidis.IsRedisErr(err); ok {
		code, _, _ := strings.Cut(re.Error(), " ")
		switch code {
		case "WRONGPASS", "NOAUTH", "NOPERM":
			return fmt.Errorf("redis at %s refused the login (check redis.user and redis.password, or the user and password of redis.url): %w", db.addr, err)
		}
		return fmt.Errorf("redis at %s: %w", db.addr, err)
	}
	return driver.Unreachable("redis", db.addr, db.cfg.ConnectTimeout, err)
}

// Session implements driver.DB. Sessions share the client, whose
// connections pipeline the commands of concurrent sessions.
//
// Operations give rueidis a context that is never cancelled: a command
// whose caller stopped waiting stays queued and is written later, and
// the strings of an operation (its key, the values of a write) alias
// buffers the caller reuses once the operation returns. Every wait still
// ends within redis.timeout, and a run that is stopped closes the client.
// Without a Done channel the context also lets rueidis write and read a
// worker's command on the worker's own goroutine while the worker is
// alone on its connection.
func (db *DB) Session(context.Context, int) (driver.Session, error) {
	return &session{db: db, c: db.client}, nil
}

// Close implements driver.DB.
func (db *DB) Close() error {
	db.client.Close()
	return nil
}
