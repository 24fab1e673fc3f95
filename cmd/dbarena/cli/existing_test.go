package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/sysmetrics"
)

// TestExistingEndpointOnThisMachineIsTheDatabase points an experiment
// at the suite's own PostgreSQL and Redis as existing endpoints: each
// runs on this machine, so its server is found by the port it listens
// on and sampled as the database (sysmetrics.csv has its rows, the
// bottleneck's figures its CPU), never counted among other processes.
func TestExistingEndpointOnThisMachineIsTheDatabase(t *testing.T) {
	pg := testenv.Addr(t, "DBARENA_TEST_POSTGRES")
	rd := testenv.Addr(t, "DBARENA_TEST_REDIS")
	testenv.Root(t, "reading the servers' descriptors in /proc (they run as other users)")
	my := testenv.Addr(t, "DBARENA_TEST_MYSQL")
	cas := testenv.Addr(t, "DBARENA_TEST_CASSANDRA")
	ddb := testenv.Addr(t, "DBARENA_TEST_DYNAMODB")
	mongo := testenv.Addr(t, "DBARENA_TEST_MONGODB")
	for _, tc := range []struct {
		name, database, props string
		// judged: the verdict reads the database's CPU (a server of
		// one process; FerretDB's work is its PostgreSQL's too, and
		// DynamoDB Local's JVM may be judged otherwise).
		judged bool
	}{
		{"postgres", "postgres", fmt.Sprintf(`{postgres.url: %q}`, pg), true},
		{"redis", "redis", fmt.Sprintf(`{redis.addr: %q, redis.db: "12"}`, rd), true},
		{"mysql", "mysql", fmt.Sprintf(`{mysql.url: %q, mysql.database: dbarena_existing}`, my), false},
		{"cassandra", "cassandra", fmt.Sprintf(`{cql.hosts: %q, cql.keyspace: dbarena_existing}`, cas), false},
		{"dynamodb", "dynamodb", fmt.Sprintf(`{dynamodb.endpoint: %q, table: dbarena_existing}`, ddb), false},
		{"mongodb", "mongodb", fmt.Sprintf(`{mongodb.url: %q}`, strings.TrimSuffix(mongo, "/")+"/dbarena_existing"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := writeExperiment(t, fmt.Sprintf(`name: existing-%s
properties: {recordcount: 2000}
targets:
  - {name: db, database: %s, deploy: {provider: existing}, properties: %s}
workloads: [c]
run: {duration: 4s, threads: 4}
`, tc.name, tc.database, tc.props))
			res := filepath.Join(t.TempDir(), "r")
			code, out, errs := run(t, context.Background(), "run", file, "--results", res)
			require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
			d, err := results.Read(res)
			require.NoError(t, err)
			require.Equal(t, []string{"db"}, d.Manifest.Targets[0].Hosts, "the server on this machine is the target's host")
			busy := 0.0
			for _, s := range d.Sys {
				if s.Host == "db" {
					require.Equal(t, sysmetrics.RoleDatabase, s.Role)
					if s.Trial == "db.c" {
						busy = max(busy, s.CPUPercent)
					}
				}
			}
			require.Greater(t, busy, 1.0, "the server's CPU while it served the trial")
			if tc.judged {
				row := rowsByID(d)["db.c"]
				require.Contains(t, row.BottleneckWhy, "database", "the verdict reads the database's CPU: %s", row.BottleneckWhy)
			}
		})
	}
}
