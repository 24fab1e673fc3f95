package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/results"
)

// startPrometheus runs Debian's prometheus on loopback, scraping target
// every second, and returns its address once it is ready.
func startPrometheus(t *testing.T, target string) string {
	t.Helper()
	bin := testenv.Program(t, "prometheus")
	dir := t.TempDir()
	conf := filepath.Join(dir, "prometheus.yml")
	require.NoError(t, os.WriteFile(conf, []byte(fmt.Sprintf(`global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: dbarena
    static_configs: [{targets: ["%s"]}]
`, target)), 0o644))
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cmd := exec.Command(bin, "--config.file="+conf, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	logf, err := os.Create(filepath.Join(dir, "log"))
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = logf, logf
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logf.Close()
	})
	ready := poll(30*time.Second, func() bool {
		resp, err := http.Get("http://" + addr + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	if !ready {
		b, _ := os.ReadFile(filepath.Join(dir, "log"))
		t.Fatalf("prometheus not ready in 30 s:\n%s", b)
	}
	return addr
}

// promQuery evaluates an instant query at time at and returns the
// values of its series.
func promQuery(t *testing.T, addr, query string, at time.Time) []float64 {
	t.Helper()
	out, err := promQueryErr(addr, query, at)
	require.NoError(t, err)
	return out
}

// promQueryMaybe is promQuery for polling: nil when the query fails.
func promQueryMaybe(addr, query string, at time.Time) []float64 {
	out, _ := promQueryErr(addr, query, at)
	return out
}

// promQueryErr evaluates an instant query through Prometheus' HTTP API.
func promQueryErr(addr, query string, at time.Time) ([]float64, error) {
	q := url.Values{"query": {query}, "time": {strconv.FormatFloat(float64(at.UnixMilli())/1e3, 'f', 3, 64)}}
	resp, err := http.Get("http://" + addr + "/api/v1/query?" + q.Encode())
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string
		Error  string
		Data   struct {
			Result []struct {
				Value [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, err
	}
	if body.Status != "success" {
		return nil, fmt.Errorf("query %s: %s", query, body.Error)
	}
	var out []float64
	for _, r := range body.Data.Result {
		s, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("query %s: value %v: %w", query, r.Value[1], err)
		}
		out = append(out, v)
	}
	return out, nil
}

// promMeta is one metric family's metadata as Prometheus keeps it.
type promMeta struct{ Type, Help, Unit string }

// promMetadata reads the type and help Prometheus scraped of every
// metric family.
func promMetadata(t *testing.T, addr string) map[string]promMeta {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/api/v1/metadata")
	require.NoError(t, err)
	defer resp.Body.Close()
	var body struct {
		Status string
		Data   map[string][]promMeta
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.Equal(t, "success", body.Status)
	out := map[string]promMeta{}
	for name, ms := range body.Data {
		if len(ms) > 0 {
			out[name] = ms[0]
		}
	}
	return out
}

// TestLiveMetricsInPrometheus lets Debian's Prometheus scrape a live
// `ycsb run` against Redis, paced at 2,000 ops/s: the rate of operations
// Prometheus computes matches the run's own throughput within 5%, the
// latency histogram's p50, p90 and p99 the run's own within 5%, Redis'
// own counters are counters that rate() reads, and every family has its
// type and help in Prometheus' metadata.
func TestLiveMetricsInPrometheus(t *testing.T) {
	redisAddr := testenv.Addr(t, "DBARENA_TEST_REDIS")
	port := freePort(t)
	prom := startPrometheus(t, fmt.Sprintf("127.0.0.1:%d", port))
	common := []string{"-P", workloadC, "-p", "redis.addr=" + redisAddr, "-p", "redis.db=11", "-p", "recordcount=2000", "-q"}
	code, _, errs := run(t, context.Background(), append([]string{"ycsb", "load", "redis", "--drop", "-threads", "4"}, common...)...)
	require.Equal(t, ExitOK, code, errs)

	jsonPath := filepath.Join(t.TempDir(), "run.json")
	start := time.Now()
	code, _, errs = run(t, context.Background(), append([]string{"ycsb", "run", "redis", "-threads", "4", "-target", "2000",
		"-p", "operationcount=0", "-p", "maxexecutiontime=14", "--metrics-addr", strconv.Itoa(port), "--json", jsonPath}, common...)...)
	end := time.Now()
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, errs, fmt.Sprintf("live metrics at http://127.0.0.1:%d/metrics", port))
	b, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	var s results.Summary
	require.NoError(t, json.Unmarshal(b, &s))
	own := s.Measured.OKThroughput
	require.InDelta(t, 2000, own, 100)

	// The middle of the run: a 6-second window well inside it.
	mid := start.Add(end.Sub(start) / 2).Add(3 * time.Second)
	rates := promQuery(t, prom, `sum(rate(dbarena_operations_total{class="OK",database="redis",trial="run"}[6s]))`, mid)
	require.Len(t, rates, 1)
	t.Logf("Prometheus' rate %.1f ops/s, the run's own %.1f ops/s", rates[0], own)
	require.InDelta(t, own, rates[0], 0.05*own, "Prometheus' rate %.0f ops/s, the run's own %.0f", rates[0], own)

	// Nothing lost at the end: the endpoint waited for the scrape that
	// took the last second's counts, so Prometheus holds every
	// operation the run counted.
	var last []float64
	poll(10*time.Second, func() bool {
		last = promQueryMaybe(prom, `sum(dbarena_operations_total{class="OK",database="redis",trial="run"})`, time.Now())
		return len(last) == 1 && last[0] == float64(s.Measured.Ops[0].OK)
	})
	require.Equal(t, []float64{float64(s.Measured.Ops[0].OK)}, last, "Prometheus' last count, the run's own")

	// The latency histogram's quantiles over the whole run (its last
	// counts: they start at 0 with the run) agree with the run's own.
	var read *measure.OpSummary
	for i := range s.Measured.Ops {
		if s.Measured.Ops[i].Name == "READ" {
			read = &s.Measured.Ops[i]
		}
	}
	require.NotNil(t, read)
	require.NotNil(t, read.Response, "paced: latency from the intended start")
	after := end.Add(time.Second)
	for _, q := range []struct {
		name string
		at   float64
		own  float64
	}{{"p50", 0.5, read.Response.P50}, {"p90", 0.9, read.Response.P90}, {"p99", 0.99, read.Response.P99}} {
		got := promQuery(t, prom, fmt.Sprintf(`histogram_quantile(%g, sum by (le) (dbarena_operation_latency_seconds_bucket{op="READ",trial="run"}))`, q.at), after)
		require.Len(t, got, 1)
		t.Logf("%s: Prometheus %.1f us, the run's own %.1f us", q.name, got[0]*1e6, q.own)
		require.InEpsilon(t, q.own, got[0]*1e6, 0.05, "%s: Prometheus %.1f us, the run's own %.1f us", q.name, got[0]*1e6, q.own)
	}

	// Redis' own counters are counters, rate() reads them, and
	// Prometheus knows each family's type and help.
	cmds := promQuery(t, prom, `rate(dbarena_db_redis_commands_total{target="redis"}[6s])`, mid)
	require.Len(t, cmds, 1, "Redis' own figures are served too")
	require.Greater(t, cmds[0], 1000.0)
	meta := promMetadata(t, prom)
	for name, typ := range map[string]string{"dbarena_db_redis_commands_total": "counter", "dbarena_operations_total": "counter",
		"dbarena_operation_latency_seconds": "histogram", "dbarena_warmup": "gauge", "dbarena_db_redis_used_memory_bytes": "gauge"} {
		require.Contains(t, meta, name)
		require.Equal(t, typ, meta[name].Type, name)
		require.NotEmpty(t, meta[name].Help, name)
	}
	for name, m := range meta {
		if strings.HasPrefix(name, "dbarena_") {
			require.NotContains(t, name, "_per_s", "a rate is Prometheus' to compute")
			require.NotEmpty(t, m.Help, name)
			require.Equal(t, m.Type == "counter", strings.HasSuffix(name, "_total"), "%s is a %s", name, m.Type)
		}
	}

	// Every query of the Grafana dashboard we ship runs; those that
	// need no errors, lock waits or a cluster find series.
	b, err = os.ReadFile("../../../deploy/assets/grafana/dbarena.json")
	require.NoError(t, err)
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	require.NoError(t, json.Unmarshal(b, &dash))
	require.NotEmpty(t, dash.Panels)
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			q := strings.NewReplacer("$__rate_interval", "6s", "$target", ".*").Replace(tg.Expr)
			got := promQuery(t, prom, q, mid)
			if !strings.Contains(p.Title, "Errors") && !strings.Contains(p.Title, "waits") {
				require.NotEmpty(t, got, "dashboard panel %q: %s", p.Title, q)
			}
		}
	}
}

// TestRunServesLiveMetrics: `run --metrics-addr` serves each trial's
// operations under its identity, and the database's own metrics, while
// the experiment runs.
func TestRunServesLiveMetrics(t *testing.T) {
	redisAddr := testenv.Addr(t, "DBARENA_TEST_REDIS")
	port := freePort(t)
	file := targetsExperiment(t, "livex", "{duration: 6s, threads: 2}",
		fmt.Sprintf("  - name: rd\n    database: redis\n    deploy: {provider: existing}\n    properties: {redis.addr: \"%s\", redis.db: \"12\"}\n", redisAddr))
	done := make(chan int, 1)
	var errs string
	go func() {
		var code int
		code, _, errs = run(t, context.Background(), "run", file, "--results", filepath.Join(t.TempDir(), "r"), "--metrics-addr", strconv.Itoa(port))
		done <- code
	}()
	var page string
	seen := poll(60*time.Second, func() bool {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		page = string(b)
		return strings.Contains(page, `dbarena_operations_total{trial="rd.c",target="rd",database="redis",workload="c",op="READ",class="OK"}`) &&
			strings.Contains(page, `dbarena_db_redis_commands_total{target="rd",database="redis"`)
	})
	require.True(t, seen, "the trial's series and Redis' own while it runs:\n%s", page)
	require.Equal(t, ExitOK, <-done, errs)
}
