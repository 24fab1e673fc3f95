package spec_test

import (
	"strings"

	"github.com/dbarena/dbarena/experiment/spec"
)

// testOptions are the tables of the real tool, written out so that this
// package's tests need neither the driver nor the provider packages.
func testOptions() spec.Options {
	return spec.Options{
		Databases: []string{"aerospike", "alternator", "cassandra", "cockroachdb", "dynamodb", "mariadb", "mongodb",
			"mysql", "postgres", "redis", "scylladb", "yugabyte-ycql", "yugabyte-ysql"},
		Providers: []string{"compose", "existing", "kubernetes", "local", "terraform"},
		Drivers:   []string{"aerospike", "basic", "cql", "dynamodb", "memory", "mongodb", "mysql", "postgres", "redis"},
		DriverFor: driverFor,
		DriverPrefixes: []string{"aerospike", "basic", "cql", "dynamodb", "memory", "mongodb", "mysql", "postgres",
			"redis"},
	}
}

func driverFor(database string) string {
	switch database {
	case "postgres", "cockroachdb", "yugabyte-ysql":
		return "postgres"
	case "cassandra", "scylladb", "yugabyte-ycql":
		return "cql"
	case "dynamodb", "alternator":
		return "dynamodb"
	case "mysql", "mariadb":
		return "mysql"
	}
	return database
}

// ids returns the steps' IDs.
func ids(p *spec.Plan) []string {
	out := make([]string, len(p.Steps))
	for i, st := range p.Steps {
		out[i] = st.ID
	}
	return out
}

// yamlText joins lines into a document, so tests can count lines.
func yamlText(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }
