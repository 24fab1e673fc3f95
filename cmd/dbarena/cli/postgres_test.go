package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/results"
)

// pgURL returns the test server's URL for a database of this package's.
func pgURL(t *testing.T) string {
	t.Helper()
	u, err := url.Parse(testenv.Addr(t, "DBARENA_TEST_POSTGRES"))
	require.NoError(t, err)
	u.Path = "/dbarena_cli"
	return u.String()
}

// testServerTargets is an experiment's targets section on the test
// servers as they are: PostgreSQL (pg), Redis in database redisDB (rd)
// and MariaDB (my).
func testServerTargets(t *testing.T, redisDB int) string {
	t.Helper()
	redisAddr := testenv.Addr(t, "DBARENA_TEST_REDIS")
	mysqlURL := testenv.Addr(t, "DBARENA_TEST_MYSQL")
	return fmt.Sprintf(`targets:
  - name: pg
    database: postgres
    deploy: {provider: existing}
    properties: {postgres.url: "%s"}
  - name: rd
    database: redis
    deploy: {provider: existing}
    properties: {redis.addr: "%s", redis.db: "%d"}
  - name: my
    database: mysql
    deploy: {provider: existing}
    properties: {mysql.url: "%s", mysql.database: dbarena_cli}
`, pgURL(t), redisAddr, redisDB, mysqlURL)
}

func TestLoadVerifyRunAgainstPostgres(t *testing.T) {
	ctx := context.Background()
	common := []string{"-P", workloadA, "-p", "postgres.url=" + pgURL(t), "-p", "table=cli_verify",
		"-p", "recordcount=3000", "-threads", "4", "-q"}
	integrity := append([]string{"-p", "dataintegrity=true"}, common...)
	jsonPath := filepath.Join(t.TempDir(), "load.json")
	args := append([]string{"ycsb", "load", "postgres", "--drop", "--verify", "-p", "batchsize=250", "--json", jsonPath}, integrity...)
	code, out, errs := run(t, ctx, args...)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "[INSERT], Return=OK, 3000")
	require.Contains(t, errs, "verify: 3000 records read back")
	var s results.Summary
	b, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s))
	require.NotNil(t, s.Verify)
	require.EqualValues(t, 3000, s.Verify.OK)
	require.True(t, s.Verify.Exact)
	require.NotEmpty(t, s.DriverCounters, "postgres reports its retry counters")

	// Loading again without --drop conflicts on every key: the table was
	// kept, and duplicate inserts are counted, not hidden; with all of
	// them failed, the load fails its error policy.
	code, out, errs = run(t, ctx, append([]string{"ycsb", "load", "postgres", "-p", "insertcount=10"}, common...)...)
	require.Equal(t, ExitFailure, code)
	require.Contains(t, out, "[INSERT], Return=CONFLICT, 10")
	require.Contains(t, errs, "10 of 10 operations failed (100.00%), above max-error-rate=0.01")

	code, out, errs = run(t, ctx, append([]string{"ycsb", "run", "postgres", "-p", "operationcount=2000"}, integrity...)...)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "[VERIFY], Return=OK")
	require.NotContains(t, out, "UNEXPECTED_STATE")
	require.Contains(t, out, "[DRIVER], postgres.retries, 0")

	// Values written without dataintegrity do not verify: every record is
	// reported as mismatched and the command fails.
	code, _, errs = run(t, ctx, append([]string{"ycsb", "load", "postgres", "--drop"}, common...)...)
	require.Equal(t, ExitOK, code, errs)
	code, _, errs = run(t, ctx, append([]string{"ycsb", "verify", "postgres"}, integrity...)...)
	require.Equal(t, ExitFailure, code)
	require.Contains(t, errs, "3000 mismatched")
}

func TestRunWithoutTableFailsClearly(t *testing.T) {
	code, _, errs := run(t, context.Background(), "ycsb", "run", "postgres", "-P", workloadA,
		"-p", "postgres.url="+pgURL(t), "-p", "table=never_loaded", "-p", "operationcount=10", "-q")
	require.Equal(t, ExitFailure, code)
	require.Contains(t, errs, "table never_loaded does not exist")
}

func TestVerifyCountsMissingRecords(t *testing.T) {
	// An empty in-process store: every record is missing.
	code, _, errs := run(t, context.Background(), "ycsb", "verify", "memory", "-P", workloadA,
		"-p", "recordcount=100", "-q")
	require.Equal(t, ExitFailure, code)
	require.Contains(t, errs, "100 missing")
	code, _, errs = run(t, context.Background(), "ycsb", "verify", "memory", "--preload", "-P", workloadA,
		"-p", "recordcount=100", "-p", "dataintegrity=true", "-q")
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, errs, "100 ok, 0 missing, 0 mismatched")
}
