package cli

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver/drivertest"
)

// TestServerDiesMidRun cuts the connection to a real PostgreSQL while a
// run is going: errors are counted by class, what was measured before is
// kept, and the run stops (exit 1) or goes on to its limit (exit 0) as
// stop-on-error-rate says.
func TestServerDiesMidRun(t *testing.T) {
	server := drivertest.Address(t, "DBARENA_TEST_POSTGRES")
	u, err := url.Parse(server)
	require.NoError(t, err)
	u.Path = "/dbarena_cli"

	load := []string{"ycsb", "load", "postgres", "-P", workloadA, "-p", "postgres.url=" + u.String(),
		"-p", "recordcount=2000", "-p", "table=death", "-p", "batchsize=100", "--drop", "-threads", "2", "-q"}
	code, _, errs := run(t, context.Background(), load...)
	require.Equal(t, ExitOK, code, errs)

	for _, tc := range []struct {
		name     string
		stopRate string
		wantCode int
	}{
		{"stops", "0.5", ExitFailure},
		{"goes on", "0", ExitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := drivertest.NewProxy(t, u.Host)
			pu := *u
			pu.Host = proxy.Addr()
			jsonPath := filepath.Join(t.TempDir(), "s.json")
			time.AfterFunc(1500*time.Millisecond, proxy.Cut)
			start := time.Now()
			code, out, errs := run(t, context.Background(), "ycsb", "run", "postgres", "-P", workloadA,
				"-p", "postgres.url="+pu.String(), "-p", "postgres.connect.timeout=500ms",
				"-p", "recordcount=2000", "-p", "table=death", "-p", "operationcount=0",
				"-p", "maxexecutiontime=4", "--stop-on-error-rate", tc.stopRate, "-threads", "4", "-q", "--json", jsonPath)
			require.Equal(t, tc.wantCode, code, errs)
			require.Contains(t, out, "[READ], Return=OK", "operations before the cut are kept")
			require.Contains(t, out, "[READ], Return=SERVICE_UNAVAILABLE", "failures are counted by class")

			var s Summary
			b, err := os.ReadFile(jsonPath)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &s))
			require.Positive(t, s.Measured.Operations)
			require.Positive(t, s.Measured.Errors)
			if tc.wantCode == ExitFailure {
				require.Contains(t, s.StopReason, "stop-on-error-rate")
				require.Less(t, time.Since(start), 3500*time.Millisecond, "stopped before maxexecutiontime")
				require.Contains(t, errs, "stopped early")
			} else {
				require.Equal(t, "maxexecutiontime reached", s.StopReason)
			}
		})
	}
}
