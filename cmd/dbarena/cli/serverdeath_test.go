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

	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/internal/testkit"
	"github.com/dbarena/dbarena/measure/hlog"
	"github.com/dbarena/dbarena/results"
)

// hlogSpan reads an interval log: where its measured intervals begin
// and end, and how many failures its FAILED- tags hold.
func hlogSpan(t *testing.T, path string) (first, last time.Duration, failed int64) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rd := hlog.NewReader(f)
	base := time.Time{}
	for {
		iv, err := rd.Next()
		if err != nil {
			break
		}
		tag := hlog.ParseTag(iv.Tag)
		if tag.Warmup {
			continue
		}
		if base.IsZero() {
			base = iv.Start
		}
		if end := iv.Start.Add(iv.Length).Sub(base); end > last {
			last = end
		}
		if tag.Kind == hlog.Failed {
			failed += iv.Histogram.TotalCount()
		}
	}
	return 0, last, failed
}

// TestServerDiesMidRun cuts the connection to a real PostgreSQL while a
// run is going: errors are counted by class, what was measured before is
// kept, the throughput dbarena judges by counts successes only, every
// second of the run stays in the interval log (the failures under their
// own tags), and the run stops early (stop-on-error-rate) or goes on to
// its limit, and fails under max-error-rate unless told to accept any.
func TestServerDiesMidRun(t *testing.T) {
	server := testenv.Addr(t, "DBARENA_TEST_POSTGRES")
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
		maxRate  string
		wantCode int
	}{
		{"stops", "0.5", "0.01", ExitFailure},
		{"goes on and fails", "0", "0.01", ExitFailure},
		{"goes on, any error rate", "0", "1", ExitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := testkit.NewProxy(t, u.Host)
			pu := *u
			pu.Host = proxy.Addr()
			jsonPath := filepath.Join(t.TempDir(), "s.json")
			hlogPath := filepath.Join(t.TempDir(), "s.hlog")
			time.AfterFunc(1500*time.Millisecond, proxy.Cut)
			start := time.Now()
			code, out, errs := run(t, context.Background(), "ycsb", "run", "postgres", "-P", workloadA,
				"-p", "postgres.url="+pu.String(), "-p", "postgres.connect.timeout=500ms",
				"-p", "recordcount=2000", "-p", "table=death", "-p", "operationcount=0",
				"-p", "maxexecutiontime=4", "-p", "max-error-rate="+tc.maxRate, "--stop-on-error-rate", tc.stopRate,
				"-threads", "4", "-q", "--json", jsonPath, "--hdr-log", hlogPath)
			require.Equal(t, tc.wantCode, code, errs)
			require.Contains(t, out, "[READ], Return=OK", "operations before the cut are kept")
			require.Contains(t, out, "[READ], Return=SERVICE_UNAVAILABLE", "failures are counted by class")

			var s results.Summary
			b, err := os.ReadFile(jsonPath)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &s))
			m := s.Measured
			require.Positive(t, m.Operations)
			require.Positive(t, m.Errors)
			secs := m.Duration.Seconds()
			if secs == 0 {
				secs = float64(m.RuntimeMs) / 1e3
			}
			require.InEpsilon(t, float64(m.Operations-m.Errors)/secs, m.OKThroughput, 0.01, "judged throughput counts successes")
			require.InEpsilon(t, float64(m.Errors)/secs, m.ErrorThroughput, 0.01)
			first, last, failed := hlogSpan(t, hlogPath)
			require.Positive(t, failed, "failures are in the log under FAILED- tags")
			if tc.stopRate != "0" {
				require.Contains(t, s.StopReason, "stop-on-error-rate")
				require.Less(t, time.Since(start), 3500*time.Millisecond, "stopped before maxexecutiontime")
				require.Contains(t, errs, "stopped early")
				return
			}
			require.Equal(t, "maxexecutiontime reached", s.StopReason)
			require.Greater(t, last-first, 3500*time.Millisecond, "the seconds after the cut are in the log, not left out")
			if tc.wantCode == ExitFailure {
				require.Contains(t, errs, "above max-error-rate=0.01")
			}
		})
	}
}
