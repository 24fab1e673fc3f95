package live_test

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/exposition"
	"github.com/dbarena/dbarena/live"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
)

func histogram(values ...int64) *hdrhistogram.Histogram {
	h := hdrhistogram.New(1, 3_600_000_000_000, 3)
	for _, v := range values {
		_ = h.RecordValue(v)
	}
	return h
}

// TestExposition feeds two intervals and reads the page back with the
// parser that reads node_exporter: counters add up by class, the
// histogram's buckets are cumulative and end at the count, labels carry
// the trial and survive quotes.
func TestExposition(t *testing.T) {
	e := live.New()
	obs := e.Observer(live.Labels{Trial: `pg."a"`, Target: "pg", Database: "postgres", Workload: "a"})
	read := measure.SeriesResult{Name: "READ", Service: histogram(80_000, 200_000, 3_000_000), Errors: map[string]int64{"TIMEOUT": 2}}
	now := time.Now()
	obs.Interval(&runner.Interval{Warmup: true, End: now.Add(-time.Second), Results: measure.Results{read}})
	read2 := measure.SeriesResult{Name: "READ", Service: histogram(90_000), Errors: map[string]int64{}}
	obs.Interval(&runner.Interval{End: now, Results: measure.Results{read2}})
	e.DBMetrics("pg", []results.DBMetric{
		{Time: now, Host: "pg", Database: "postgres", Metric: "pg_cache_hit_ratio", Value: 0.97, Kind: results.DBMetricRatio},
		{Time: now, Host: "pg", Database: "postgres", Metric: "pg_blks_hit_per_s", Value: 100, Counter: 12345, Kind: results.DBMetricRate},
		{Time: now, Host: "pg", Database: "postgres", Metric: "pg_checkpoint_write_ms_per_s", Value: 3, Counter: 2500, Kind: results.DBMetricRate},
		{Time: now, Host: "pg", Database: "postgres", Metric: "pg_shared_buffers_mebibytes", Value: 128, Kind: results.DBMetricGauge},
	})
	// A trial that ended ten minutes ago is no longer served.
	e.Observer(live.Labels{Trial: "old"}).Interval(&runner.Interval{End: now.Add(-10 * time.Minute),
		Results: measure.Results{{Name: "READ", Service: histogram(1000), Errors: map[string]int64{}}}})

	var b strings.Builder
	_, err := e.WriteTo(&b)
	require.NoError(t, err)
	page := b.String()
	ms, err := exposition.Parse(strings.NewReader(page))
	require.NoError(t, err, page)
	got := map[string]float64{}
	var les []float64 // the latency buckets' bounds, in order
	buckets := map[float64]float64{}
	for _, m := range ms {
		require.NotEqual(t, "old", m.Labels["trial"], "stale series dropped")
		require.Equal(t, now.UnixMilli(), m.Millis, "%s: stamped at its interval's end", m.Name)
		require.True(t, strings.HasPrefix(m.Name, live.Prefix), m.Name)
		key := m.Name + "/" + m.Labels["class"] + m.Labels["le"]
		got[key] = m.Value
		if m.Name == "dbarena_operations_total" {
			require.Equal(t, `pg."a"`, m.Labels["trial"])
			require.Equal(t, "READ", m.Labels["op"])
		}
		if m.Name == "dbarena_operation_latency_seconds_bucket" && m.Labels["le"] != "+Inf" {
			le, err := strconv.ParseFloat(m.Labels["le"], 64)
			require.NoError(t, err)
			les = append(les, le)
			buckets[le] = m.Value
		}
		if strings.HasPrefix(m.Name, "dbarena_db_") {
			require.Equal(t, strings.TrimPrefix(strings.TrimSuffix(m.Name, "_total"), "dbarena_db_"), m.Labels["metric"],
				"a database series names itself in a label too, in its served unit")
		}
	}
	require.Equal(t, 4.0, got["dbarena_operations_total/OK"])
	require.Equal(t, 2.0, got["dbarena_operations_total/TIMEOUT"])
	// Sixteen buckets a doubling, from below 10 µs to past a minute.
	require.Less(t, les[0], 10e-6)
	require.Greater(t, les[len(les)-1], 60.0)
	for i := 1; i < len(les); i++ {
		require.InEpsilon(t, math.Exp2(1.0/16), les[i]/les[i-1], 1e-9)
	}
	// cum is the count of the first bucket whose bound is at least sec.
	cum := func(sec float64) float64 {
		i := sort.SearchFloat64s(les, sec)
		return buckets[les[i]]
	}
	require.Equal(t, 0.0, cum(70e-6))
	require.Equal(t, 2.0, cum(90.1e-6), "80 and 90 µs")
	require.Equal(t, 2.0, cum(180e-6))
	require.Equal(t, 3.0, cum(200.2e-6), "and 200 µs")
	require.Equal(t, 4.0, got["dbarena_operation_latency_seconds_bucket/+Inf"])
	require.Equal(t, 4.0, got["dbarena_operation_latency_seconds_count/"])
	require.InDelta(t, 3.37e-3, got["dbarena_operation_latency_seconds_sum/"], 1e-5)
	require.Equal(t, 0.0, got["dbarena_warmup/"], "warm-up over")

	// The database's own: a ratio and a level as gauges, counters as
	// counters of their reading, in base units, each with its HELP.
	require.Equal(t, 0.97, got["dbarena_db_pg_cache_hit_ratio/"])
	require.Equal(t, 12345.0, got["dbarena_db_pg_blks_hit_total/"])
	require.Equal(t, 2.5, got["dbarena_db_pg_checkpoint_write_seconds_total/"])
	require.Equal(t, 128.0*(1<<20), got["dbarena_db_pg_shared_buffers_bytes/"])
	for name, typ := range map[string]string{"dbarena_db_pg_cache_hit_ratio": "gauge", "dbarena_db_pg_blks_hit_total": "counter",
		"dbarena_db_pg_checkpoint_write_seconds_total": "counter", "dbarena_db_pg_shared_buffers_bytes": "gauge",
		"dbarena_operations_total": "counter", "dbarena_operation_latency_seconds": "histogram", "dbarena_warmup": "gauge"} {
		require.Contains(t, page, "\n# TYPE "+name+" "+typ+"\n")
		require.Regexp(t, "# HELP "+name+" [^\n]{20,}\n", page)
	}
	require.NotContains(t, page, "_per_s", "no rate computed for Prometheus: rate() does it")
}

// TestListen serves on loopback for a bare port, and refuses an address
// that is none with the flag's name.
func TestListen(t *testing.T) {
	e := live.New()
	s, err := live.Listen("0", e, nil)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(s.Addr(), "127.0.0.1:"), s.Addr())
	e.Observer(live.Labels{Trial: "t"}).Interval(&runner.Interval{End: time.Now(), Results: measure.Results{{Name: "READ", Service: histogram(1000), Errors: map[string]int64{}}}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.Addr()+"/metrics", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Contains(t, resp.Header.Get("Content-Type"), "version=0.0.4")
	require.Contains(t, string(body), `dbarena_operations_total{trial="t"`)
	_, err = live.Listen(s.Addr(), e, nil)
	var le *live.ListenError
	require.ErrorAs(t, err, &le, "a port taken is a listen error, not a bad address")
	require.NoError(t, s.Close())

	_, err = live.Listen("localhost", e, nil)
	require.ErrorContains(t, err, "--metrics-addr")
	require.False(t, errors.As(err, &le))
	// A port out of range is a bad address (exit 2), not a port taken.
	for _, addr := range []string{":99999", "-1", "127.0.0.1:65536", "127.0.0.1:-1"} {
		_, err = live.Listen(addr, e, nil)
		require.ErrorContains(t, err, "the port from 0 to 65535", addr)
		require.False(t, errors.As(err, &le), addr)
	}
	s, err = live.Listen("127.0.0.1:0", e, nil)
	require.NoError(t, err, "port 0: any free one")
	require.NoError(t, s.Close())
}

// TestDrainWaitsForTheLastScrape: an endpoint that was scraped waits,
// at its end, for the scrape that takes the last counts, and no longer
// than asked; one nobody scraped does not wait.
func TestDrainWaitsForTheLastScrape(t *testing.T) {
	e := live.New()
	s, err := live.Listen("0", e, nil)
	require.NoError(t, err)
	defer s.Close()
	waited, _ := s.Drain(time.Minute)
	require.False(t, waited, "nobody scraped: no wait")

	get := func() error {
		resp, err := http.Get("http://" + s.Addr() + "/metrics")
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
	require.NoError(t, get())
	start := time.Now()
	waited, scraped := s.Drain(100 * time.Millisecond)
	require.True(t, waited)
	require.False(t, scraped, "no scrape came")
	require.GreaterOrEqual(t, time.Since(start), 100*time.Millisecond)

	errc := make(chan error, 1)
	go func() {
		time.Sleep(50 * time.Millisecond)
		errc <- get()
	}()
	waited, scraped = s.Drain(time.Minute)
	require.True(t, waited)
	require.True(t, scraped, "the next scrape ends the wait")
	require.NoError(t, <-errc)
}
