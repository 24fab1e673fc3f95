package redis

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/redact"
)

// Prefix is the property prefix of this driver.
const Prefix = "redis"

// DefaultAddr is the server address used when redis.addr is not given.
const DefaultAddr = "127.0.0.1:6379"

// MaxPool is the most connections per server redis.pool may ask for.
const MaxPool = 1 << rueidis.MaxPipelineMultiplex

// pow2 returns the least power of two that is at least n, and 1 for n < 1.
func pow2(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}

// Drop modes: what DropSchema deletes.
const (
	// DropIndex deletes every record listed in the index sorted set, then
	// the index: the keys a YCSB or dbarena load wrote, and nothing else.
	DropIndex = "index"
	// DropFlushDB empties the whole logical database (FLUSHDB on every
	// master), including keys no load wrote.
	DropFlushDB = "flushdb"
)

// Update modes: how an update treats a missing record.
const (
	// UpdateChecked updates only an existing record, in one Lua script
	// (EXISTS then HSET), and reports a missing one as NOT_FOUND as the SQL
	// drivers do.
	UpdateChecked = "checked"
	// UpdateHSet sends a bare HSET as YCSB's binding does: one command
	// cheaper on the server, but an update of a missing key creates a
	// partial record that is not in the scan index.
	UpdateHSet = "hset"
)

// Config is the driver's typed configuration, read from its properties.
type Config struct {
	// Addrs are the servers: one for a single node, seed nodes for a
	// cluster.
	Addrs    []string
	Cluster  bool
	Username string
	Password string
	DB       int
	// Pool is the number of connections per server that the workers'
	// commands are pipelined onto, a power of two (rueidis multiplexes
	// over 2^k connections) from 1 to MaxPool. The default is the worker
	// count rounded up, so that a server sees as many connections as
	// YCSB's binding opens; fewer connections pipeline more commands per
	// system call on both sides.
	Pool           int
	ConnectTimeout time.Duration
	// Timeout bounds each socket read and write of an operation.
	Timeout time.Duration
	Drop    string
	Update  string
	// TLS is nil for plain TCP (see driver.Props.TLS for the
	// properties).
	TLS *tls.Config
}

// ParseConfig reads the driver's properties. workers sizes the pool by
// default. Every error names the property at fault.
func ParseConfig(props map[string]string, workers int) (Config, error) {
	p := driver.NewProps(Prefix, props)
	var errs []error
	add := func(e error) {
		if e != nil {
			errs = append(errs, e)
		}
	}
	c := Config{
		Username: p.String("user", ""),
		Password: p.String("password", ""),
	}
	var err error
	c.Cluster, err = p.Bool("cluster", false)
	add(err)
	c.DB, err = p.Int("db", 0, 0)
	add(err)
	c.TLS, err = p.TLS()
	add(err)
	if raw := p.String("url", ""); raw != "" {
		add(c.fromURL(p, raw))
	} else {
		c.Addrs, err = parseAddrs(p)
		add(err)
	}
	if !c.Cluster && len(c.Addrs) > 1 {
		add(fmt.Errorf("%s=%s: several addresses are the seed nodes of a cluster; set %s=true", p.Key("addr"), strings.Join(c.Addrs, ","), p.Key("cluster")))
	}
	if c.Cluster && c.DB != 0 {
		add(fmt.Errorf("%s=%d: Redis Cluster has only database 0; drop %s or %s", p.Key("db"), c.DB, p.Key("db"), p.Key("cluster")))
	}
	c.Pool, err = p.Int("pool", min(pow2(workers), MaxPool), 1)
	if err == nil && (c.Pool > MaxPool || c.Pool&(c.Pool-1) != 0) {
		err = fmt.Errorf("%s=%d: want a power of two from 1 to %d (the workers' commands are pipelined onto 2^k connections per server)", p.Key("pool"), c.Pool, MaxPool)
	}
	add(err)
	c.ConnectTimeout, err = p.Duration("connect.timeout", 5*time.Second)
	add(err)
	if err == nil && c.ConnectTimeout == 0 {
		add(fmt.Errorf("%s=0: want a positive duration", p.Key("connect.timeout")))
	}
	c.Timeout, err = p.Duration("timeout", 5*time.Second)
	add(err)
	if err == nil && c.Timeout == 0 {
		add(fmt.Errorf("%s=0: want a positive duration", p.Key("timeout")))
	}
	c.Drop, err = p.Enum("drop", DropIndex, DropIndex, DropFlushDB)
	add(err)
	c.Update, err = p.Enum("update", UpdateChecked, UpdateChecked, UpdateHSet)
	add(err)
	add(p.Unknown(properties()...))
	return c, errors.Join(errs...)
}

// properties are the keys ParseConfig reads under the driver's prefix,
// in any configuration (some only when others are set): any other
// property under the prefix is refused as unknown (driver.Props.Unknown),
// naming the nearest.
func properties() []string {
	return []string{"addr", "cluster", "connect.timeout", "db", "drop", "host", "password", "pool", "port", "timeout", "update", "url", "user"}
}

// fromURL reads redis.url, redis://[user:password@]host:port[/db] or
// rediss://... for TLS (with redis.cluster=true, more seed nodes as
// ?addr=host:port parameters): the form cloud services hand out. What the
// URL sets may not also be set by its own property, so that no setting is
// silently dropped. Errors show the URL with its password masked.
func (c *Config) fromURL(p driver.Props, raw string) error {
	key := p.Key("url")
	shown := redact.URL(raw)
	for _, k := range []string{"addr", "host", "port"} {
		if p.Has(k) {
			return fmt.Errorf("%s and %s: both give the address; keep one", key, p.Key(k))
		}
	}
	o, err := rueidis.ParseURL(raw)
	if err == nil && o.DialCtxFn != nil {
		err = errors.New("unix sockets are not supported")
	}
	if err != nil {
		// The URL parser quotes the URL it could not parse, password and
		// all.
		msg := strings.ReplaceAll(err.Error(), raw, shown)
		msg = redact.New(redact.Passwords(raw)...).String(msg)
		return fmt.Errorf("%s=%q: %s (want redis://[user:password@]host:port[/db], or rediss:// for TLS)", key, shown, msg)
	}
	c.Addrs = o.InitAddress
	if o.Username != "" {
		if p.Has("user") {
			return fmt.Errorf("%s and %s: both give the user; keep one", key, p.Key("user"))
		}
		c.Username = o.Username
	}
	if o.Password != "" {
		if p.Has("password") {
			return fmt.Errorf("%s and %s: both give the password; keep one", key, p.Key("password"))
		}
		c.Password = o.Password
	}
	if o.SelectDB != 0 {
		if p.Has("db") {
			return fmt.Errorf("%s and %s: both give the database; keep one", key, p.Key("db"))
		}
		c.DB = o.SelectDB
	}
	if o.TLSConfig != nil && c.TLS == nil {
		// rediss:// with no redis.tls.* property: verify the URL's host
		// against the system's authorities.
		c.TLS = o.TLSConfig
	}
	return nil
}

// parseAddrs reads redis.addr, a comma-separated list of host:port, or
// YCSB's redis.host and redis.port when redis.addr is not given, so YCSB
// property files work unchanged.
func parseAddrs(p driver.Props) ([]string, error) {
	raw := p.String("addr", "")
	if raw == "" {
		host := p.String("host", "")
		if host == "" {
			return []string{DefaultAddr}, nil
		}
		port, err := p.Int("port", 6379, 1)
		if err != nil {
			return nil, err
		}
		return []string{net.JoinHostPort(host, fmt.Sprint(port))}, nil
	}
	var out []string
	for _, a := range strings.Split(raw, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if strings.Contains(a, "://") {
			return nil, fmt.Errorf("%s=%q: a URL goes in %s", p.Key("addr"), redact.URL(raw), p.Key("url"))
		}
		if _, port, err := net.SplitHostPort(a); err != nil || port == "" {
			return nil, fmt.Errorf("%s=%q: %q is not host:port", p.Key("addr"), redact.URL(raw), redact.URL(a))
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s=%q: want host:port[,host:port...]", p.Key("addr"), raw)
	}
	return out, nil
}

var _ driver.EndpointFunc = Endpoint

// Endpoint implements driver.EndpointFunc: the servers and how to log
// in, for redis-benchmark.
func Endpoint(props map[string]string, workers int) (driver.Endpoint, error) {
	c, err := ParseConfig(props, workers)
	if err != nil {
		return driver.Endpoint{}, err
	}
	return driver.Endpoint{Addrs: c.Addrs, Username: c.Username, Password: c.Password, DB: c.DB,
		Cluster: c.Cluster, TLS: c.TLS != nil}, nil
}
