package cli

import (
	"context"
	"fmt"
	"path/filepath"
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
	for _, tc := range []struct{ name, database, props string }{
		{"postgres", "postgres", fmt.Sprintf(`{postgres.url: %q}`, pg)},
		{"redis", "redis", fmt.Sprintf(`{redis.addr: %q, redis.db: "12"}`, rd)},
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
			row := rowsByID(d)["db.c"]
			require.Contains(t, row.BottleneckWhy, "database", "the verdict reads the database's CPU: %s", row.BottleneckWhy)
		})
	}
}
