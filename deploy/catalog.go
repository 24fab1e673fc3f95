package deploy

import (
	"fmt"
	"sort"
	"strings"
)

// Database is one product users compare, and how dbarena talks to it.
type Database struct {
	Name string
	// Driver is the driver that speaks its protocol.
	Driver string
	// DriverProperties select the product's dialect in that driver.
	DriverProperties map[string]string
	Summary          string
}

// catalogue lists every database an experiment may name.
func catalogue() []Database {
	return []Database{
		{Name: "aerospike", Driver: "aerospike", Summary: "Aerospike"},
		{Name: "alternator", Driver: "dynamodb", Summary: "ScyllaDB Alternator (DynamoDB API)"},
		{Name: "cassandra", Driver: "cql", Summary: "Apache Cassandra"},
		{Name: "cockroachdb", Driver: "postgres", DriverProperties: map[string]string{"postgres.dialect": "cockroachdb"}, Summary: "CockroachDB"},
		{Name: "dynamodb", Driver: "dynamodb", Summary: "Amazon DynamoDB or DynamoDB Local"},
		{Name: "mariadb", Driver: "mysql", Summary: "MariaDB"},
		{Name: "mongodb", Driver: "mongodb", Summary: "MongoDB (or FerretDB)"},
		{Name: "mysql", Driver: "mysql", Summary: "MySQL"},
		{Name: "postgres", Driver: "postgres", Summary: "PostgreSQL"},
		{Name: "redis", Driver: "redis", Summary: "Redis or Valkey"},
		{Name: "scylladb", Driver: "cql", Summary: "ScyllaDB (CQL)"},
		{Name: "yugabyte-ycql", Driver: "cql", Summary: "YugabyteDB YCQL"},
		{Name: "yugabyte-ysql", Driver: "postgres", DriverProperties: map[string]string{"postgres.dialect": "yugabyte"}, Summary: "YugabyteDB YSQL"},
	}
}

// Databases returns the catalogue sorted by name.
func Databases() []Database {
	c := catalogue()
	sort.Slice(c, func(i, j int) bool { return c[i].Name < c[j].Name })
	return c
}

// DatabaseNames returns the sorted database names.
func DatabaseNames() []string {
	var out []string
	for _, d := range Databases() {
		out = append(out, d.Name)
	}
	return out
}

// LookupDatabase finds a database by name; an unknown name fails with the
// list of valid ones.
func LookupDatabase(name string) (Database, error) {
	for _, d := range catalogue() {
		if d.Name == name {
			return d, nil
		}
	}
	return Database{}, fmt.Errorf("unknown database %q; valid: %s", name, strings.Join(DatabaseNames(), ", "))
}
