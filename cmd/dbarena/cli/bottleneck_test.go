package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/analysis/bottleneck"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/results"
)

// The known answers of the bottleneck verdict, on real servers. These
// tests judge CPU figures of this machine, so scripts/test runs them on
// their own (-p 1), not beside the other packages' tests.

// boundBy runs the experiment and returns each trial's row.
func boundBy(t *testing.T, file string, args ...string) map[string]results.Trial {
	t.Helper()
	res := filepath.Join(t.TempDir(), "r")
	code, out, errs := run(t, context.Background(), append([]string{"run", file, "--results", res}, args...)...)
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	require.Contains(t, out, "bound by: ", "the verdict says what bound each row")
	d, err := results.Read(res)
	require.NoError(t, err)
	return rowsByID(d)
}

func writeExperiment(t *testing.T, text string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "x.yaml")
	require.NoError(t, os.WriteFile(file, []byte(text), 0o644))
	return file
}

// TestBottleneckDatabaseCPUAndRateLimited: PostgreSQL capped to half a
// core reads "database CPU" when the client asks as fast as it can, and
// "rate-limited" at 400 ops/s, which it serves easily.
func TestBottleneckDatabaseCPUAndRateLimited(t *testing.T) {
	testenv.Addr(t, "DBARENA_TEST_POSTGRES") // PostgreSQL is installed
	rows := boundBy(t, writeExperiment(t, `name: halfcore
properties: {recordcount: 5000}
targets:
  - name: pg
    database: postgres
    deploy: {provider: local, cpus: 0.5}
workloads: [c]
run: {duration: 6s, threads: 8}
matrix:
  target: [0, 400]
`))
	free, paced := rows["pg.c.target=0"], rows["pg.c.target=400"]
	require.Equal(t, string(bottleneck.DatabaseCPU), free.Bottleneck, free.BottleneckWhy)
	require.Contains(t, free.BottleneckWhy, "of 50% allowed")
	require.Equal(t, string(bottleneck.RateLimited), paced.Bottleneck, paced.BottleneckWhy)
}

// TestBottleneckClientCPU pins the load generator to one core with 1,000
// workers against a Redis that runs elsewhere: "client CPU".
func TestBottleneckClientCPU(t *testing.T) {
	redisAddr := testenv.Addr(t, "DBARENA_TEST_REDIS")
	taskset := testenv.Program(t, "taskset")
	bin := buildDbarena(t)
	file := writeExperiment(t, fmt.Sprintf(`name: pinned
properties: {recordcount: 5000}
targets:
  - name: rd
    database: redis
    deploy: {provider: existing}
    properties: {redis.addr: "%s", redis.db: "13"}
workloads: [c]
run: {duration: 6s, threads: 1000}
`, redisAddr))
	res := filepath.Join(t.TempDir(), "r")
	out, err := exec.Command(taskset, "-c", "0", bin, "run", file, "--results", res).CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), "bound by: rd: client CPU")
	d, err := results.Read(res)
	require.NoError(t, err)
	row := rowsByID(d)["rd.c"]
	require.Equal(t, string(bottleneck.ClientCPU), row.Bottleneck, row.BottleneckWhy)
	require.Contains(t, row.BottleneckWhy, "of 100%", "one core: its affinity")
}

// TestBottleneckCacheMisses gives PostgreSQL 128 kB of shared_buffers
// and 64 MiB of memory (page cache included) for about 130 MB of rows:
// most reads miss both caches and go to the disk, "cache misses / disk".
// Four threads keep the disk busy and the sessions waiting on I/O while
// the machine's CPU stays clear of its limit (180% of 200%): client,
// database and the kernel's reclaim share two cores here, and with eight
// threads they took 155% alone and 183% beside the suite's idle servers,
// where "machine CPU" rightly came first; four threads took 137% alone.
func TestBottleneckCacheMisses(t *testing.T) {
	testenv.Addr(t, "DBARENA_TEST_POSTGRES")
	rows := boundBy(t, writeExperiment(t, `name: misses
properties: {recordcount: 100000}
targets:
  - name: pg
    database: postgres
    deploy: {provider: local, memory: 64MiB, options: {shared_buffers: 128kB}}
workloads: [c]
run: {duration: 6s, threads: 4}
`))
	row := rows["pg.c"]
	require.Equal(t, string(bottleneck.CacheMisses), row.Bottleneck, row.BottleneckWhy)
	require.Less(t, row.DBFigures["pg_cache_hit_ratio"], 0.9)
	require.Contains(t, row.BottleneckWhy, "disk reads/s")
}
