// Package drivers is the one table of built-in database drivers. Adding a
// driver means a package under driver/ and one line here; adding a
// database means more, which the documentation of package deploy lists.
package drivers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/aerospike"
	"github.com/dbarena/dbarena/driver/basic"
	"github.com/dbarena/dbarena/driver/cql"
	"github.com/dbarena/dbarena/driver/dynamodb"
	"github.com/dbarena/dbarena/driver/memory"
	"github.com/dbarena/dbarena/driver/mongodb"
	"github.com/dbarena/dbarena/driver/mysql"
	"github.com/dbarena/dbarena/driver/postgres"
	"github.com/dbarena/dbarena/driver/redis"
	"github.com/dbarena/dbarena/internal/redact"
	"github.com/dbarena/dbarena/internal/suggest"
)

// Info describes a registered driver.
type Info struct {
	Name string
	// Prefix is the property prefix the driver reads ("basic." ...).
	Prefix string
	// Summary is one line for --help and errors.
	Summary string
	Open    driver.Opener
	// Check parses the driver's properties without connecting, to
	// refuse bad values before anything is deployed.
	Check driver.Checker
	// Reference names the database's own load tool that package
	// reference runs beside a trial ("pgbench"; "" none), and Endpoint
	// reads the properties for it.
	Reference string
	Endpoint  driver.EndpointFunc
	// SQLTransactions says the driver's sessions run SQL transactions
	// (driver.SQLTransactor): what TPC-C is written against, so that a
	// TPC-C step on any other driver is refused before anything
	// deploys. The conformance suite checks it against the sessions.
	SQLTransactions bool
	// Transfers says the driver's sessions move a ledger's money
	// (driver.Transferer), so that a ledger step on any other driver is
	// refused before anything deploys. The conformance suite checks it
	// against the sessions.
	Transfers bool
	// Address makes the driver's properties of where a deployment's
	// servers are (nil for a driver that reaches no server).
	Address driver.Addresser
	// Metrics spell, for people, the first word of the names of the
	// metrics the driver reads (driver.MetricsReader): the database's,
	// or the driver's own counts ("pg" is PostgreSQL).
	Metrics map[string]string
}

// Description is what `dbarena drivers --format json` prints of a
// driver: the parts of Info a person or a program choosing a driver
// reads. Its field names are an interface: fields may be added, never
// renamed.
type Description struct {
	Name string `json:"name"`
	// Prefix is the property prefix the driver reads ("postgres" for
	// postgres.url, ...).
	Prefix  string `json:"prefix"`
	Summary string `json:"summary"`
	// Reference is the database's own load tool run beside a trial
	// ("pgbench"), omitted when there is none.
	Reference string `json:"reference,omitempty"`
}

// Catalogue is what `dbarena drivers --format json` prints: an object,
// so that fields can be added beside the list.
type Catalogue struct {
	// Drivers are sorted by name.
	Drivers []Description `json:"drivers"`
}

// Describe returns the Catalogue of the registered drivers.
func Describe() Catalogue {
	var c Catalogue
	for _, d := range All() {
		c.Drivers = append(c.Drivers, Description{Name: d.Name, Prefix: d.Prefix, Summary: d.Summary, Reference: d.Reference})
	}
	return c
}

// table lists every built-in driver, each opened through redacted.
func table() []Info {
	t := []Info{
		{Name: "aerospike", Prefix: aerospike.Prefix, Summary: "Aerospike CE/EE (aerospike-client-go v8; aerospike.host, aerospike.namespace; YCSB's as.* accepted; no scans)", Open: aerospike.Open, Address: aerospike.Address, Metrics: map[string]string{"aerospike": "Aerospike"}, Check: driver.CheckWith(aerospike.ParseConfig)},
		{Name: "basic", Prefix: "basic", Summary: "no database: measures the harness itself (basic.delay simulates service time)", Open: basic.Open, Check: basic.Check},
		{Name: "cql", Prefix: cql.Prefix, Summary: "Apache Cassandra, ScyllaDB, YugabyteDB YCQL (gocql, token-aware; cql.hosts, cql.consistency.read/write, cql.lwt)", Open: cql.Open, Address: cql.Address, Endpoint: cql.Endpoint, Metrics: map[string]string{"cassandra": "Cassandra", "scylla": "ScyllaDB", "cql": "CQL driver"}, Check: driver.CheckWith(func(p map[string]string, _ int) (cql.Config, error) { return cql.ParseConfig(p) }), Transfers: true},
		{Name: "dynamodb", Prefix: dynamodb.Prefix, Summary: "Amazon DynamoDB, ScyllaDB Alternator, DynamoDB Local (aws-sdk-go-v2; dynamodb.endpoint, dynamodb.region)", Open: dynamodb.Open, Address: dynamodb.Address, Endpoint: dynamodb.Endpoint, Metrics: map[string]string{"dynamodb": "DynamoDB"}, Check: driver.CheckWith(dynamodb.ParseConfig), Transfers: true},
		{Name: "memory", Prefix: "memory", Summary: "in-process ordered key-value store with real semantics for every operation", Open: memory.Open, Check: memory.Check, Transfers: true},
		{Name: "mongodb", Prefix: mongodb.Prefix, Summary: "MongoDB, Atlas, DocumentDB, Cosmos DB, FerretDB (mongo-driver v2; mongodb.url, mongodb.writeconcern)", Open: mongodb.Open, Address: mongodb.Address, Endpoint: mongodb.Endpoint, Metrics: map[string]string{"mongodb": "MongoDB"}, Check: driver.CheckWith(mongodb.ParseConfig)},
		{Name: "mysql", Prefix: mysql.Prefix, Summary: "MySQL, MariaDB, TiDB (database/sql + go-sql-driver; mysql.url, mysql.dialect)", Open: mysql.Open, Address: mysql.Address, Endpoint: mysql.Endpoint, Metrics: map[string]string{"mysql": "MySQL"}, Check: driver.CheckWith(mysql.ParseConfig),
			SQLTransactions: true, Transfers: true},
		{Name: "postgres", Prefix: postgres.Prefix, Summary: "PostgreSQL, CockroachDB, YugabyteDB YSQL (pgx pool; postgres.url, postgres.dialect)", Open: postgres.Open, Address: postgres.Address, Metrics: map[string]string{"pg": "PostgreSQL", "postgres": "PostgreSQL driver"}, Check: driver.CheckWith(postgres.ParseConfig),
			Reference: "pgbench", Endpoint: postgres.Endpoint, SQLTransactions: true, Transfers: true},
		{Name: "redis", Prefix: redis.Prefix, Summary: "Redis, Redis Cluster, Valkey, KeyDB (rueidis; YCSB hash + _indices layout; redis.addr or redis.url, redis.cluster)", Open: redis.Open, Address: redis.Address, Metrics: map[string]string{"redis": "Redis"}, Check: driver.CheckWith(redis.ParseConfig),
			Reference: "redis-benchmark", Endpoint: redis.Endpoint, Transfers: true},
	}
	for i := range t {
		t[i].Open = redacted(t[i].Open)
	}
	return t
}

// redacted opens through open, and hides in its error every credential
// of the properties (secret-named values, connection-string passwords).
// Client libraries put the DSN they were given, or what the server said
// about the login, into their errors; whoever prints the error of any
// driver prints no password.
func redacted(open driver.Opener) driver.Opener {
	return func(ctx context.Context, p driver.Params) (driver.DB, error) {
		db, err := open(ctx, p)
		if err != nil {
			r := redact.New()
			r.AddProps(p.Props)
			return nil, r.Error(err)
		}
		return db, nil
	}
}

// Address is the properties of driver name that reach r, in a fixed
// order: what every provider and loader uses, naming no driver's
// property itself.
func Address(name string, r driver.Reach) ([]driver.Prop, error) {
	info, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if info.Address == nil {
		return nil, fmt.Errorf("driver %s reaches no server: it cannot be deployed", name)
	}
	return info.Address(r), nil
}

// MetricSource spells the first word of a metric's name for people
// ("pg": "PostgreSQL"), as the driver that reads the metric declares it.
func MetricSource(word string) (string, bool) {
	for _, d := range table() {
		if name, ok := d.Metrics[word]; ok {
			return name, true
		}
	}
	return "", false
}

// All returns the registered drivers sorted by name.
func All() []Info {
	t := table()
	sort.Slice(t, func(i, j int) bool { return t[i].Name < t[j].Name })
	return t
}

// Names returns the sorted driver names.
func Names() []string {
	var out []string
	for _, d := range All() {
		out = append(out, d.Name)
	}
	return out
}

// Prefixes returns the property prefixes of every driver.
func Prefixes() []string {
	var out []string
	for _, d := range All() {
		out = append(out, d.Prefix)
	}
	return out
}

// Lookup finds a driver by name; an unknown name is an error listing the
// valid ones and naming the nearest, when one is near enough to be a
// typo ("postgress").
func Lookup(name string) (Info, error) {
	for _, d := range table() {
		if d.Name == name {
			return d, nil
		}
	}
	names := Names()
	err := fmt.Errorf("unknown driver %q: valid drivers are %s", name, strings.Join(names, ", "))
	if s := suggest.Nearest(name, names); s != "" {
		err = fmt.Errorf("%w; did you mean %q?", err, s)
	}
	return Info{}, err
}

// ForYCSB returns the drivers that stand in for a YCSB binding, named as
// YCSB's db property names it ("site.ycsb.db.JdbcDBClient", also the
// older com.yahoo.ycsb classes) or as bin/ycsb's binding argument
// ("jdbc"); nil when no driver does. JDBC stands for two: postgres and
// mysql.
func ForYCSB(binding string) []string {
	class := binding[strings.LastIndex(binding, ".")+1:]
	byClass := map[string][]string{
		"BasicDB": {"basic"}, "basic": {"basic"},
		"JdbcDBClient": {"mysql", "postgres"}, "jdbc": {"mysql", "postgres"},
		"CassandraCQLClient": {"cql"}, "cassandra-cql": {"cql"}, "ScyllaCQLClient": {"cql"}, "scylla": {"cql"},
		"RedisClient": {"redis"}, "redis": {"redis"},
		"MongoDbClient": {"mongodb"}, "AsyncMongoDbClient": {"mongodb"}, "mongodb": {"mongodb"}, "mongodb-async": {"mongodb"},
		"DynamoDBClient": {"dynamodb"}, "dynamodb": {"dynamodb"},
		"AerospikeClient": {"aerospike"}, "aerospike": {"aerospike"},
	}
	return byClass[class]
}
