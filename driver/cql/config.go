package cql

import (
	"crypto/tls"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/dbarena/dbarena/driver"
)

// Prefix is the property prefix of this driver.
const Prefix = "cql"

// Defaults of the properties, named so that the docs and the tests agree.
const (
	DefaultHost     = "127.0.0.1"
	DefaultPort     = 9042
	DefaultKeyspace = "ycsb"
	// DefaultMetricsPort is ScyllaDB's Prometheus port.
	DefaultMetricsPort = 9180
	// KeyColumn is YCSB's name for the primary key column.
	KeyColumn = "y_id"
	// defaultTimeout is gocql's own default: above Cassandra's server-side
	// request timeouts (2 s writes, 5 s reads, 10 s ranges), so the server
	// reports its timeout before the client gives up.
	defaultTimeout        = 11 * time.Second
	defaultConnectTimeout = 5 * time.Second
)

// Consistency levels a read or a write may use, in the order the error
// message lists them.
var consistencyNames = []string{"ANY", "ONE", "TWO", "THREE", "QUORUM", "ALL", "LOCAL_QUORUM", "EACH_QUORUM", "LOCAL_ONE"}

// identifier is an unquoted CQL name: such names fold to lower case, as in
// YCSB's statements, so that a table YCSB created is the same table here.
var identifier = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// Config is the driver's typed configuration, read once from its
// properties.
type Config struct {
	// Hosts are contact points as host:port.
	Hosts    []string
	Port     int
	Keyspace string
	Username string
	Password string
	// TLS is nil for plain connections (see driver.Props.TLS): Amazon
	// Keyspaces, Astra and ScyllaDB Cloud require it.
	TLS *tls.Config
	// Read and Write are the consistency levels of reads (and scans) and of
	// inserts, updates and deletes; Serial is the Paxos phase of LWTs.
	Read, Write, Serial gocql.Consistency
	// Strategy is SimpleStrategy or NetworkTopologyStrategy; Factor its
	// replication factor; DCs the per-datacenter factors of NTS.
	Strategy string
	Factor   int
	DCs      []DCFactor
	// LWT turns inserts, updates and deletes into lightweight transactions
	// (IF NOT EXISTS / IF EXISTS).
	LWT bool
	// Connections per host; 0 before defaults are applied.
	Connections    int
	ConnectTimeout time.Duration
	Timeout        time.Duration
	LocalDC        string
	Tracing        bool
	// Discovery lets the driver find the cluster's other nodes from the
	// contact points and follow topology events. Off, it talks to the
	// contact points alone: for a cluster reached through one tunnel
	// (kubectl port-forward), whose nodes' own addresses are unreachable.
	Discovery bool
	// Retries is how many times a failed idempotent request is retried on
	// the next host (timeouts, unavailable, overloaded, broken connection).
	Retries int
	// Coalesce is gocql's write-coalescing window; 0 writes every request at
	// once.
	Coalesce time.Duration
	// Load is how InsertBatch sends a batch: "unlogged" or "concurrent".
	Load string
	// LoadConcurrency bounds the in-flight inserts of one concurrent batch.
	LoadConcurrency int
	// BatchBytes caps the values and keys of one unlogged batch.
	BatchBytes int
	// MetricsPort is where a ScyllaDB node serves its Prometheus
	// metrics (9180): ReadMetrics reads them there, as ScyllaDB has no
	// system_views; 0 leaves them out.
	MetricsPort int
}

// DCFactor is one datacenter's replication factor.
type DCFactor struct {
	DC     string
	Factor int
}

// ParseConfig reads the driver's properties. YCSB's cassandra-cql property
// names (hosts, port, cassandra.keyspace, cassandra.readconsistencylevel,
// ...) are read when the cql ones are not given, so YCSB property files
// work unchanged.
func ParseConfig(props map[string]string) (Config, error) {
	p := driver.NewProps(Prefix, props)
	var errs []error
	add := func(e error) {
		if e != nil {
			errs = append(errs, e)
		}
	}
	c := Config{}
	var e error
	c.Port, e = p.Int("port", ycsbInt(props, "port", DefaultPort), 1)
	add(e)
	hosts := p.String("hosts", p.Core("hosts", DefaultHost))
	c.Hosts, e = driver.HostList(p.Key("hosts"), hosts, c.Port)
	add(e)
	c.Keyspace = p.String("keyspace", p.Core("cassandra.keyspace", DefaultKeyspace))
	if !identifier.MatchString(c.Keyspace) {
		add(fmt.Errorf("%s=%q: want an unquoted CQL name (a letter, then letters, digits or _)", p.Key("keyspace"), c.Keyspace))
	}
	c.Username = p.String("username", p.Core("cassandra.username", ""))
	c.Password = p.String("password", p.Core("cassandra.password", ""))
	add(c.parseConsistency(p))
	// One connection per host, whatever the number of workers. A CQL
	// connection multiplexes up to 32768 concurrent requests (streams), so
	// no worker ever waits for one, and the client's cost per operation is
	// dominated by system calls and goroutine wake-ups that more sockets
	// multiply: workload A with 16 workers against one node measured 46-63
	// us of client CPU per operation on one connection, 62 us on two and
	// 66-87 us on sixteen (docs/drivers/cql.md). It is also the DataStax
	// Java driver 4's default.
	c.Connections, e = p.Int("connections", ycsbInt(props, "cassandra.maxconnections", 1), 1)
	add(e)
	c.ConnectTimeout, e = p.Duration("connect.timeout", ycsbMillis(props, "cassandra.connecttimeoutmillis", defaultConnectTimeout))
	add(e)
	c.Timeout, e = p.Duration("timeout", ycsbMillis(props, "cassandra.readtimeoutmillis", defaultTimeout))
	add(e)
	if c.ConnectTimeout <= 0 || c.Timeout <= 0 {
		add(fmt.Errorf("%s and %s must be positive", p.Key("connect.timeout"), p.Key("timeout")))
	}
	c.LocalDC = p.String("local.dc", p.Core("cassandra.localdc", ""))
	comp, e := p.Enum("compression", "none", "none", "lz4", "snappy")
	add(e)
	if comp != "none" && comp != "" {
		add(fmt.Errorf("%s=%s: this build has no %s codec (gocql's codecs pull in extra modules); use none", p.Key("compression"), comp, comp))
	}
	c.TLS, e = p.TLS()
	add(e)
	c.Tracing, e = p.Bool("tracing", ycsbBool(props, "cassandra.tracing"))
	add(e)
	c.Discovery, e = p.Bool("discovery", true)
	add(e)
	// No retries by default (gocql's default too): a failed request is
	// counted as the failure it was rather than hidden in a longer latency.
	c.Retries, e = p.Int("retries", 0, 0)
	add(e)
	// gocql's default is a 200 us window in which requests wait for others
	// to share a write system call. At the rates one node serves here it
	// rarely finds a second request, adds up to 200 us to every measured
	// latency and cost 53-81 us of client CPU per operation against 46-63
	// us without: off by default.
	c.Coalesce, e = p.Duration("write.coalesce", 0)
	add(e)
	add(c.parseLoad(p))
	add(p.Unknown(properties()...))
	return c, errors.Join(errs...)
}

// properties are the keys ParseConfig reads under the driver's prefix,
// in any configuration (some only when others are set): any other
// property under the prefix is refused as unknown (driver.Props.Unknown),
// naming the nearest.
func properties() []string {
	return []string{"compression", "connect.timeout", "connections", "consistency.read", "consistency.write", "discovery", "hosts", "keyspace", "load", "load.batch.bytes", "load.concurrency", "local.dc", "lwt", "metrics.port", "password", "port", "replication.dcs", "replication.factor", "replication.strategy", "retries", "serial.consistency", "timeout", "tracing", "username", "write.coalesce"}
}

// parseConsistency reads the consistency levels, the keyspace's
// replication and whether updates are lightweight transactions.
func (c *Config) parseConsistency(p driver.Props) error {
	var errs []error
	add := func(e error) {
		if e != nil {
			errs = append(errs, e)
		}
	}
	var e error
	c.Read, e = consistency(p, "consistency.read", p.Core("cassandra.readconsistencylevel", "ONE"), true)
	add(e)
	c.Write, e = consistency(p, "consistency.write", p.Core("cassandra.writeconsistencylevel", "ONE"), false)
	add(e)
	s, e := p.Enum("serial.consistency", "SERIAL", "SERIAL", "LOCAL_SERIAL")
	add(e)
	c.Serial = gocql.Serial
	if s == "LOCAL_SERIAL" {
		c.Serial = gocql.LocalSerial
	}
	c.Strategy, e = p.Enum("replication.strategy", "SimpleStrategy", "SimpleStrategy", "NetworkTopologyStrategy")
	add(e)
	c.Factor, e = p.Int("replication.factor", 1, 1)
	add(e)
	c.DCs, e = parseDCs(p.Key("replication.dcs"), p.String("replication.dcs", ""))
	add(e)
	if len(c.DCs) > 0 && c.Strategy != "NetworkTopologyStrategy" {
		add(fmt.Errorf("%s is only used with %s=NetworkTopologyStrategy", p.Key("replication.dcs"), p.Key("replication.strategy")))
	}
	c.LWT, e = p.Bool("lwt", false)
	add(e)
	return errors.Join(errs...)
}

// parseLoad reads how a load inserts: unlogged batches or concurrent
// single inserts, and their sizes; and where the metrics are read.
func (c *Config) parseLoad(p driver.Props) error {
	var errs []error
	add := func(e error) {
		if e != nil {
			errs = append(errs, e)
		}
	}
	var e error
	c.Load, e = p.Enum("load", "unlogged", "unlogged", "concurrent")
	add(e)
	c.LoadConcurrency, e = p.Int("load.concurrency", 16, 1)
	add(e)
	c.BatchBytes, e = p.Int("load.batch.bytes", defaultBatchBytes, 1)
	add(e)
	c.MetricsPort, e = p.Int("metrics.port", DefaultMetricsPort, 0)
	add(e)
	return errors.Join(errs...)
}

// consistency reads a consistency level property; reads may also use
// SERIAL or LOCAL_SERIAL (linearizable reads of LWT-written data).
func consistency(p driver.Props, key, def string, read bool) (gocql.Consistency, error) {
	choices := consistencyNames
	if read {
		choices = append(choices[:len(choices):len(choices)], "SERIAL", "LOCAL_SERIAL")
	}
	if !p.Has(key) {
		// A YCSB property supplied the default; check it the same way.
		for _, c := range choices {
			if strings.EqualFold(def, c) {
				return gocql.ParseConsistencyWrapper(c)
			}
		}
		return 0, fmt.Errorf("%s=%q (from YCSB's property): want one of %s", p.Key(key), def, strings.Join(choices, ", "))
	}
	s, err := p.Enum(key, def, choices...)
	if err != nil {
		return 0, err
	}
	return gocql.ParseConsistencyWrapper(s)
}

// parseDCs reads "dc1:3,dc2:3".
func parseDCs(key, list string) ([]DCFactor, error) {
	var out []DCFactor
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		dc, rf, ok := strings.Cut(item, ":")
		n, err := strconv.Atoi(strings.TrimSpace(rf))
		if !ok || err != nil || n < 1 || strings.TrimSpace(dc) == "" || strings.ContainsAny(dc, "'\"") {
			return nil, fmt.Errorf("%s=%q: want datacenter:factor pairs such as dc1:3,dc2:3", key, list)
		}
		out = append(out, DCFactor{DC: strings.TrimSpace(dc), Factor: n})
	}
	return out, nil
}

// replication renders the keyspace's replication map. NetworkTopologyStrategy
// without per-datacenter factors uses replication_factor, which Cassandra 4.0
// and later expand to every datacenter.
func (c Config) replication() string {
	if c.Strategy != "NetworkTopologyStrategy" {
		return fmt.Sprintf("{'class': 'SimpleStrategy', 'replication_factor': %d}", c.Factor)
	}
	if len(c.DCs) == 0 {
		return fmt.Sprintf("{'class': 'NetworkTopologyStrategy', 'replication_factor': %d}", c.Factor)
	}
	var b strings.Builder
	b.WriteString("{'class': 'NetworkTopologyStrategy'")
	for _, d := range c.DCs {
		fmt.Fprintf(&b, ", '%s': %d", d.DC, d.Factor)
	}
	b.WriteString("}")
	return b.String()
}

// ycsbInt reads an integer YCSB property, falling back to def when it is
// missing or malformed (the cql property, checked strictly, wins anyway).
func ycsbInt(props map[string]string, key string, def int) int {
	if n, err := strconv.Atoi(strings.TrimSpace(props[key])); err == nil && n > 0 {
		return n
	}
	return def
}

func ycsbMillis(props map[string]string, key string, def time.Duration) time.Duration {
	if n := ycsbInt(props, key, 0); n > 0 {
		return time.Duration(n) * time.Millisecond
	}
	return def
}

func ycsbBool(props map[string]string, key string) bool {
	b, _ := strconv.ParseBool(strings.TrimSpace(props[key]))
	return b
}

// Endpoint is the contact points cql.hosts names and their login: an
// existing deployment finds the servers on this machine by them.
func Endpoint(props map[string]string, _ int) (driver.Endpoint, error) {
	c, err := ParseConfig(props)
	if err != nil {
		return driver.Endpoint{}, err
	}
	return driver.Endpoint{Addrs: c.Hosts, Username: c.Username, Password: c.Password, Cluster: len(c.Hosts) > 1}, nil
}
