package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

func TestScaling(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "scale")
	w, err := results.Create(dir)
	require.NoError(t, err)
	var targets []results.TargetInfo
	rates := map[int]float64{1: 10_000, 2: 18_000, 3: 24_000}
	for n := 1; n <= 3; n++ {
		targets = append(targets, results.TargetInfo{Name: fmt.Sprintf("pg-%d", n), Database: "postgres", Driver: "postgres", Nodes: n,
			Cost: &results.TargetCost{MonthlyUSD: 100 * float64(n), Compiled: "2025-06"}})
	}
	// A fourth with other CPUs is no step of the horizontal series.
	targets = append(targets, results.TargetInfo{Name: "pg-big", Database: "postgres", Driver: "postgres", Nodes: 2, CPUs: 8})
	require.NoError(t, w.WriteManifest(&results.Manifest{Tool: "dbarena", Experiment: "scale", Start: start(), Status: results.StatusCompleted, Targets: targets}))
	clock := start()
	for _, tg := range targets {
		x := rates[tg.Nodes]
		if tg.CPUs > 0 {
			x = 30_000
		}
		require.NoError(t, w.AddTrial(results.Trial{ID: tg.Name + ".a", Kind: results.KindRun, Target: tg.Name, Workload: "a", Repetition: 1,
			Threads: 32, Start: clock, End: clock.Add(10 * time.Second), Duration: 10 * time.Second, Operations: int64(x * 10),
			Throughput: x, Status: results.StatusCompleted, Latency: results.Latency{Mean: 900, P50: 800, P99: 3000}}))
		clock = clock.Add(10 * time.Second)
	}
	require.NoError(t, w.Close())
	d, err := results.Read(dir)
	require.NoError(t, err)

	var buf bytes.Buffer
	require.NoError(t, Render(&buf, d))
	html := buf.String()
	i := strings.Index(html, `<section id="scaling">`)
	require.GreaterOrEqual(t, i, 0)
	sec := html[i : i+strings.Index(html[i:], "</section>")]
	requireHas(t, sec, "<h3>postgres, horizontal: nodes</h3>")
	// 18,000 / 10,000 = 1.80x for 2x the nodes: 90%; +80% throughput for
	// +100% cost, (18,000 - 10,000) / ($200 - $100) = 80 ops/s per added $.
	requireHas(t, sec, `<td>pg-1 (1 nodes)</td><td>pg-2 (2 nodes)</td><td class="num">10,000 → 18,000</td><td class="num">1.80x</td><td class="num">2.00x</td><td class="num">90%</td><td>&#43;80% throughput for &#43;100% cost (80%); 80.0 ops/s per added $ vs 100.0 for the base</td>`)
	requireHas(t, sec, `<td class="num">2.40x</td><td class="num">3.00x</td><td class="num">80%</td><td>&#43;140% throughput for &#43;200% cost (70%); 70.0 ops/s per added $`)
	requireHas(t, sec, "Universal Scalability Law over nodes")
	requireHas(t, sec, "ops/s per node")
	require.NotContains(t, sec, "pg-big (2 nodes)", "a target that also differs in CPUs is not a horizontal step")
	require.NotContains(t, sec, "<h3>postgres, vertical", "a target without a CPU limit is no base for a vertical step")
}
