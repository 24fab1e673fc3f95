package report

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// rateData writes a rate sweep of three targets under p99 <= 5 ms:
// "fast" tops out at 10,000 ops/s and its p99 climbs, "slow" keeps up
// but at a p99 of 10 ms, "roomy" meets everything.
func rateData(t *testing.T) *results.Data {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "rates")
	w, err := results.Create(dir)
	require.NoError(t, err)
	m := &results.Manifest{Tool: "dbarena", Experiment: "rates", Start: start(), Status: results.StatusCompleted,
		Targets: []results.TargetInfo{{Name: "fast", Database: "postgres"}, {Name: "slow", Database: "cassandra"}, {Name: "roomy", Database: "redis"}},
		SLO:     &results.SLO{Bounds: []results.SLOBound{{Percentile: "p99", MaxMs: 5}}, Achieved: 0.95}}
	require.NoError(t, w.WriteManifest(m))
	fastP99 := map[float64]float64{1000: 1, 2000: 1.5, 4000: 2.5, 8000: 4.5, 16000: 50}
	clock := start()
	for _, target := range []string{"fast", "slow", "roomy"} {
		for _, rate := range []float64{1000, 2000, 4000, 8000, 16000} {
			x, p99 := rate, 1.0
			switch target {
			case "fast":
				x, p99 = math.Min(rate, 10000), fastP99[rate]
			case "slow":
				p99 = 10
			}
			tr := results.Trial{ID: fmt.Sprintf("%s.c.target=%g", target, rate), Kind: results.KindRun, Target: target,
				Workload: "c", Params: []results.Param{{Key: "target", Value: strconv.FormatFloat(rate, 'f', -1, 64)}},
				Repetition: 1, Threads: 16, TargetRate: rate, Start: clock, End: clock.Add(10 * time.Second), Duration: 10 * time.Second,
				Operations: int64(x * 10), Throughput: x, Status: results.StatusCompleted,
				Latency: results.Latency{Mean: p99 * 300, P50: p99 * 200, P90: p99 * 600, P95: p99 * 800, P99: p99 * 1000, P999: p99 * 1500, Max: p99 * 3000}}
			require.NoError(t, w.AddTrial(tr))
			clock = clock.Add(10 * time.Second)
		}
	}
	require.NoError(t, w.Close())
	d, err := results.Read(dir)
	require.NoError(t, err)
	return d
}

func TestRateSweep(t *testing.T) {
	d := rateData(t)
	require.NotNil(t, d.Manifest.SLO, "the objective survives the manifest")
	var buf bytes.Buffer
	require.NoError(t, Render(&buf, d))
	html := buf.String()
	i := strings.Index(html, `<section id="rate-sweeps">`)
	require.GreaterOrEqual(t, i, 0)
	sec := html[i : i+strings.Index(html[i:], "</section>")]
	requireHas(t, sec, "the objective: p99 &lt;= 5 ms, and at least 95% of a step&#39;s target rate")
	requireHas(t, sec, "<b>fast</b>: Max sustainable throughput at the objective (p99 &lt;= 5 ms, and at least 95% of the target rate): 8,000 ops/s (target 8,000 ops/s).")
	requireHas(t, sec, `<tr class="miss"><td class="num">16,000</td><td class="num">10,000</td><td class="num">62%</td>`)
	requireHas(t, sec, "misses: served 62% of the rate, below the 95% a run must serve, p99 50.00 ms &gt; 5 ms")
	requireHas(t, sec, "<b>slow</b>: No step met the objective")
	requireHas(t, sec, "below the lowest rate tried (1,000 ops/s)")
	requireHas(t, sec, "<b>roomy</b>: Every step met the objective (p99 &lt;= 5 ms, and at least 95% of the target rate), up to 16,000 ops/s: the ceiling lies above the highest rate tried")

	path, err := Write(d)
	require.NoError(t, err)
	require.FileExists(t, path)
	svg, err := os.ReadFile(filepath.Join(d.Dir, results.FiguresDir, "rates-c.svg"))
	require.NoError(t, err, "the rate sweep figure")
	require.Equal(t, 2, strings.Count(string(svg), "stroke-dasharray:4,2"), "the objective's p99 bound, dashed on both latency panels")
	require.Equal(t, 3, strings.Count(string(svg), "stroke-dasharray:1,2"), "each target's p50, dotted")
}

func TestClientSweepAtSLO(t *testing.T) {
	d := sweepData(t)
	d.Manifest.SLO = &results.SLO{Bounds: []results.SLOBound{{Percentile: "p99", MaxMs: 10}}, Achieved: 0.95}
	var buf bytes.Buffer
	require.NoError(t, Render(&buf, d))
	html := buf.String()
	sec := html[strings.Index(html, `<section id="scalability">`):]
	requireHas(t, sec, "<th>max at the objective</th>")
	// usl: p99 = 3 n / X(n); X(16) = 16000 / (1 + 0.75 + 0.48) = 7,175
	// ops/s at p99 6.7 ms, X(32) = 7,058 at p99 13.6 ms.
	requireHas(t, sec, "<td>7,175 ops/s at 16 threads (p99 &lt;= 10 ms)</td>")
}
