package drivertest_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/internal/testenv"
)

// pgBenchRecords and pgBenchWorkers follow the comparison: workload C
// over 100k records with 16 clients.
const (
	pgBenchRecords = 100_000
	pgBenchWorkers = 16
	pgBenchTable   = "bench_usertable"
)

// pgBench is a YCSB workload of reads or of updates of one field with
// ordered keys ("user0".."user99999"), so that pgbench can draw the same
// keys with its own random(), over the benchmark database, whose load is
// kept between runs.
func pgBench(b *testing.B, url string, update bool) drivertest.Bench {
	read, upd := "1", "0"
	if update {
		read, upd = "0", "1"
	}
	d := tableDriver(b, "postgres")
	return drivertest.Bench{
		Open: d.Open, Prefix: d.Prefix,
		Props: map[string]string{"postgres.url": url},
		Workload: map[string]string{
			"readproportion": read, "updateproportion": upd, "scanproportion": "0", "insertproportion": "0",
			"requestdistribution": "uniform", "insertorder": "ordered", "table": pgBenchTable,
		},
		Records: pgBenchRecords, Workers: pgBenchWorkers,
		Loaded: func(context.Context, driver.DB) bool { return pgCountRows(url) == pgBenchRecords },
	}
}

func pgCountRows(url string) int {
	out, err := exec.Command("psql", url, "-Atc", "SELECT count(*) FROM "+pgBenchTable).Output()
	if err != nil {
		return -1
	}
	n, _ := strconv.Atoi(string(out[:len(out)-1]))
	return n
}

// BenchmarkPostgresPointReads compares dbarena's workload C with pgbench running a
// primary-key select of the same rows at the same concurrency. Both issue
// b.N reads; ops/s and client CPU per operation are reported.
func BenchmarkPostgresPointReads(b *testing.B) {
	url := withDatabase(testenv.Addr(b, pgEnv), "dbarena_bench")
	bn := pgBench(b, url, false)
	db := bn.OpenLoaded(b)

	b.Run("dbarena", func(b *testing.B) { bn.Run(b, db) })
	b.Run("pgx-alone", func(b *testing.B) {
		pgxAlone(b, url, fmt.Sprintf("SELECT * FROM %s WHERE ycsb_key = $1", pgBenchTable), nil)
	})
	b.Run("pgbench", func(b *testing.B) {
		pgRunPgbench(b, url, fmt.Sprintf("SELECT * FROM %s WHERE ycsb_key = 'user' || :k;", pgBenchTable))
	})
}

// BenchmarkPostgresUpdates compares dbarena updating one field of 100 bytes
// (workload A's update) with pgbench running the same UPDATE of the same
// rows at the same concurrency. pgbench's new value is a literal in its
// prepared statement, so it sends only the key: the 100 bytes dbarena
// sends more are a small part of a round trip.
func BenchmarkPostgresUpdates(b *testing.B) {
	url := withDatabase(testenv.Addr(b, pgEnv), "dbarena_bench")
	bn := pgBench(b, url, true)
	db := bn.OpenLoaded(b)

	b.Run("dbarena", func(b *testing.B) { bn.Run(b, db) })
	b.Run("pgx-alone", func(b *testing.B) {
		pgxAlone(b, url, fmt.Sprintf("UPDATE %s SET field3 = $2 WHERE ycsb_key = $1", pgBenchTable), bytes.Repeat([]byte("x"), 100))
	})
	b.Run("pgbench", func(b *testing.B) {
		pgRunPgbench(b, url, fmt.Sprintf("UPDATE %s SET field3 = '%s' WHERE ycsb_key = 'user' || :k;",
			pgBenchTable, strings.Repeat("x", 100)))
	})
}

// pgxAlone runs b.N executions of a prepared statement straight through
// pgx's protocol layer, one connection per worker as the driver opens
// them: the key of a uniformly drawn loaded row as $1 and, when value is
// set, value as $2. It is the floor of a client on pgx, below which the
// driver and the runner cannot go.
func pgxAlone(b *testing.B, url, statement string, value []byte) {
	ctx := context.Background()
	conns := make([]*pgx.Conn, pgBenchWorkers)
	for w := range conns {
		c, err := pgx.Connect(ctx, url)
		require.NoError(b, err)
		b.Cleanup(func() { _ = c.Close(ctx) })
		_, err = c.Prepare(ctx, "alone", statement)
		require.NoError(b, err)
		conns[w] = c
	}
	params := make([][][]byte, pgBenchWorkers)
	for w := range params {
		params[w] = [][]byte{nil}
		if value != nil {
			params[w] = append(params[w], value)
		}
	}
	drivertest.Alone(b, pgBenchWorkers, func(ctx context.Context, w int, rng *rand.Rand) error {
		p := params[w]
		p[0] = strconv.AppendInt(append(p[0][:0], "user"...), rng.Int64N(pgBenchRecords), 10)
		_, err := conns[w].PgConn().ExecPrepared(ctx, "alone", p, nil, nil).Close()
		return err
	})
}

// pgRunPgbench runs b.N executions of one statement, given the key number
// :k drawn uniformly over the loaded rows, with pgbench -M prepared over
// as many connections as dbarena's workers.
func pgRunPgbench(b *testing.B, url, statement string) {
	pgbench := os.Getenv("DBARENA_PGBENCH")
	if pgbench == "" {
		pgbench = "/usr/lib/postgresql/15/bin/pgbench"
	}
	if _, err := os.Stat(pgbench); err != nil {
		b.Skipf("pgbench not found (%v): set DBARENA_PGBENCH", err)
	}
	script := filepath.Join(b.TempDir(), "op.sql")
	require.NoError(b, os.WriteFile(script, []byte(fmt.Sprintf("\\set k random(0, %d)\n%s\n", pgBenchRecords-1, statement)), 0o644))
	perClient := max(b.N/pgBenchWorkers, 1)
	cmd := exec.Command(pgbench, "-n", "-M", "prepared", "-c", strconv.Itoa(pgBenchWorkers), "-j", "2",
		"-t", strconv.Itoa(perClient), "-f", script, url)
	drivertest.RunTool(b, cmd, perClient*pgBenchWorkers)
}

// pgEnv holds the test server's address.
const pgEnv = "DBARENA_TEST_POSTGRES"
