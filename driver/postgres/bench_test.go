package postgres_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/driver/postgres"
	"github.com/dbarena/dbarena/internal/testenv"
)

// benchRecords and benchWorkers follow the comparison: workload C
// over 100k records with 16 clients.
const (
	benchRecords = 100_000
	benchWorkers = 16
	benchTable   = "bench_usertable"
)

// bench is YCSB workload C with ordered keys ("user0".."user99999"), so
// that pgbench can draw the same keys with its own random(), over the
// benchmark database, whose load is kept between runs.
func bench(url string) drivertest.Bench {
	return drivertest.Bench{
		Open: postgres.Open, Prefix: postgres.Prefix,
		Props: map[string]string{"postgres.url": url},
		Workload: map[string]string{
			"readproportion": "1", "updateproportion": "0", "scanproportion": "0", "insertproportion": "0",
			"requestdistribution": "uniform", "insertorder": "ordered", "table": benchTable,
		},
		Records: benchRecords, Workers: benchWorkers,
		Loaded: func(context.Context, driver.DB) bool { return countRows(url) == benchRecords },
	}
}

func countRows(url string) int {
	out, err := exec.Command("psql", url, "-Atc", "SELECT count(*) FROM "+benchTable).Output()
	if err != nil {
		return -1
	}
	n, _ := strconv.Atoi(string(out[:len(out)-1]))
	return n
}

// BenchmarkPointReads compares dbarena's workload C with pgbench running a
// primary-key select of the same rows at the same concurrency. Both issue
// b.N reads; ops/s and client CPU per operation are reported.
func BenchmarkPointReads(b *testing.B) {
	url := withDatabase(&testing.T{}, testenv.Addr(b, envAddr), "dbarena_bench")
	bn := bench(url)
	db := bn.OpenLoaded(b)

	b.Run("dbarena", func(b *testing.B) { bn.Run(b, db) })

	b.Run("pgbench", func(b *testing.B) {
		pgbench := os.Getenv("DBARENA_PGBENCH")
		if pgbench == "" {
			pgbench = "/usr/lib/postgresql/15/bin/pgbench"
		}
		if _, err := os.Stat(pgbench); err != nil {
			b.Skipf("pgbench not found (%v): set DBARENA_PGBENCH", err)
		}
		script := filepath.Join(b.TempDir(), "read.sql")
		require.NoError(b, os.WriteFile(script, []byte(fmt.Sprintf(
			"\\set k random(0, %d)\nSELECT * FROM %s WHERE ycsb_key = 'user' || :k;\n", benchRecords-1, benchTable)), 0o644))
		perClient := max(b.N/benchWorkers, 1)
		cmd := exec.Command(pgbench, "-n", "-M", "prepared", "-c", strconv.Itoa(benchWorkers), "-j", "2",
			"-t", strconv.Itoa(perClient), "-f", script, url)
		drivertest.RunTool(b, cmd, perClient*benchWorkers)
	})
}
