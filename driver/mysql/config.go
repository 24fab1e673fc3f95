package mysql

import (
	"errors"
	"fmt"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/redact"
)

// Prefix is the property prefix of this driver.
const Prefix = "mysql"

// DefaultURL is the DSN used when mysql.url is not given.
const DefaultURL = "root@tcp(127.0.0.1:3306)/"

// DefaultDatabase is the database used when neither mysql.database nor the
// DSN names one.
const DefaultDatabase = "ycsb"

// Dialect names the server product, for the few places where SQL or error
// handling differ.
type Dialect string

// Dialects.
const (
	DialectMySQL   Dialect = "mysql"
	DialectMariaDB Dialect = "mariadb"
	DialectTiDB    Dialect = "tidb"
)

// Config is the driver's typed configuration, read from its properties.
type Config struct {
	// DSN is the parsed mysql.url with the options the driver needs
	// applied (client found rows, connect timeout) and no database: every
	// statement names Database itself, so that the database can be created
	// by the load.
	DSN      *gomysql.Config
	Database string
	Dialect  Dialect
	// Pool is the most open connections; every worker holds at most one
	// during an operation, so the default of one per worker never makes
	// a worker wait.
	Pool           int
	ConnectTimeout time.Duration
	// Engine is the storage engine of created tables (ignored by TiDB).
	Engine string
	// BatchRows is the most rows one multi-row INSERT of the load carries;
	// a larger batch is split into several statements in one transaction.
	BatchRows int
	// Retries bounds how often a transaction of several statements
	// (driver.SQLTransactor: TPC-C) runs again whole after InnoDB broke a
	// deadlock (1213) or a lock wait timed out (1205). Retries are
	// counted (mysql.retries).
	Retries int
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
	var c Config
	raw := p.String("url", "")
	if raw == "" {
		raw = jdbcDSN(props)
	}
	if raw == "" {
		raw = DefaultURL
	}
	dsn, err := gomysql.ParseDSN(raw)
	if err != nil {
		add(fmt.Errorf("%s=%q: %w", p.Key("url"), redact.URL(raw), err))
		dsn = gomysql.NewConfig()
	}
	d, err := p.Enum("dialect", string(DialectMySQL), string(DialectMySQL), string(DialectMariaDB), string(DialectTiDB))
	add(err)
	c.Dialect = Dialect(d)
	def := dsn.DBName
	if def == "" {
		def = DefaultDatabase
	}
	c.Database = p.String("database", def)
	if c.Database == "" || strings.ContainsAny(c.Database, "`/\\.") {
		add(fmt.Errorf("%s=%q: want a database name without backquotes, slashes or dots", p.Key("database"), c.Database))
	}
	c.Pool, err = p.Int("pool", max(workers, 1), 1)
	add(err)
	c.ConnectTimeout, err = p.Duration("connect.timeout", 5*time.Second)
	add(err)
	if err == nil && c.ConnectTimeout == 0 {
		add(fmt.Errorf("%s=0: want a positive duration", p.Key("connect.timeout")))
	}
	c.Engine = p.String("engine", "InnoDB")
	if !isWord(c.Engine) {
		add(fmt.Errorf("%s=%q: want an engine name such as InnoDB", p.Key("engine"), c.Engine))
	}
	c.BatchRows, err = p.Int("batch.rows", 500, 1)
	add(err)
	c.Retries, err = p.Int("retries", 10, 0)
	add(err)
	if err := errors.Join(errs...); err != nil {
		return c, err
	}
	// Updates report the rows they matched, not the rows they changed, so
	// that rewriting a field with its own value is not mistaken for a
	// missing record.
	dsn.ClientFoundRows = true
	// The liveness check peeks at the socket (one more system call) every
	// time a connection leaves the pool, which is every operation; it was
	// 5% of client CPU on workload C here. Connections of a running
	// benchmark are never idle long enough for the server to close them,
	// and a dead one fails its operation, which is counted. A DSN that
	// asks for the check keeps it.
	if !strings.Contains(raw, "checkConnLiveness=") {
		dsn.CheckConnLiveness = false
	}
	if dsn.Timeout == 0 {
		dsn.Timeout = c.ConnectTimeout
	}
	dsn.DBName = ""
	c.DSN = dsn
	return c, p.Unknown(properties()...)
}

// properties are the keys ParseConfig reads under the driver's prefix,
// in any configuration (some only when others are set): any other
// property under the prefix is refused as unknown (driver.Props.Unknown),
// naming the nearest.
func properties() []string {
	return []string{"batch.rows", "connect.timeout", "database", "dialect", "engine", "pool", "retries", "url"}
}

// isWord reports whether s is a plain identifier (letters, digits, '_').
func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// jdbcDSN turns YCSB's JDBC properties (db.url=jdbc:mysql://host:port/db,
// db.user, db.passwd) into a DSN, so YCSB property files work unchanged.
func jdbcDSN(props map[string]string) string {
	u := props["db.url"]
	var rest string
	switch {
	case strings.HasPrefix(u, "jdbc:mysql://"):
		rest = strings.TrimPrefix(u, "jdbc:mysql://")
	case strings.HasPrefix(u, "jdbc:mariadb://"):
		rest = strings.TrimPrefix(u, "jdbc:mariadb://")
	default:
		return ""
	}
	// YCSB allows several URLs separated by commas; one pool takes the
	// first. JDBC parameters do not carry over.
	rest = strings.SplitN(rest, ",", 2)[0]
	rest, _, _ = strings.Cut(rest, "?")
	host, db, _ := strings.Cut(rest, "/")
	if !strings.Contains(host, ":") {
		host += ":3306"
	}
	cfg := gomysql.NewConfig()
	cfg.User = props["db.user"]
	cfg.Passwd = props["db.passwd"]
	cfg.Net = "tcp"
	cfg.Addr = host
	cfg.DBName = db
	return cfg.FormatDSN()
}

// addr names the server in messages: host:port, or the socket path.
func addr(dsn *gomysql.Config) string {
	if dsn.Addr != "" {
		return dsn.Addr
	}
	return "127.0.0.1:3306"
}

// Endpoint is the server mysql.url reaches: its address over TCP (none
// over a socket) and its login. No reference tool takes it yet; an
// existing deployment finds the server on this machine by it.
func Endpoint(props map[string]string, workers int) (driver.Endpoint, error) {
	c, err := ParseConfig(props, workers)
	if err != nil {
		return driver.Endpoint{}, err
	}
	ep := driver.Endpoint{Username: c.DSN.User, Password: c.DSN.Passwd}
	if c.DSN.Net == "tcp" {
		ep.Addrs = []string{c.DSN.Addr}
	}
	return ep, nil
}
