package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// uslX is the Universal Scalability Law with lambda 1000, sigma 0.05,
// kappa 0.002: a peak at sqrt(0.95/0.002) = 21.8 threads.
func uslX(n float64) float64 { return 1000 * n / (1 + 0.05*(n-1) + 0.002*n*(n-1)) }

// sweepData writes a client sweep of two targets: "usl" follows uslX,
// "linear" scales perfectly; p99 grows with the threads over throughput.
func sweepData(t *testing.T) *results.Data {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sweep")
	w, err := results.Create(dir)
	require.NoError(t, err)
	m := &results.Manifest{Tool: "dbarena", Experiment: "sweep", Start: start(), Status: results.StatusCompleted,
		Targets: []results.TargetInfo{{Name: "usl", Database: "postgres"}, {Name: "linear", Database: "cassandra"}}}
	require.NoError(t, w.WriteManifest(m))
	clock := start()
	for _, target := range []string{"usl", "linear"} {
		for _, n := range []float64{1, 2, 4, 8, 16, 32, 64} {
			x := uslX(n)
			if target == "linear" {
				x = 500 * n
			}
			// Little's law: n threads in flight at x ops/s take n/x s each.
			meanUs := n / x * 1e6
			tr := results.Trial{ID: fmt.Sprintf("%s.c.threads=%g", target, n), Kind: results.KindRun, Target: target,
				Workload: "c", Params: []results.Param{{Key: "threads", Value: strconv.FormatFloat(n, 'f', -1, 64)}},
				Repetition: 1, Threads: int(n), Start: clock, End: clock.Add(10 * time.Second), Duration: 10 * time.Second,
				Operations: int64(x * 10), Throughput: x, Status: results.StatusCompleted,
				Latency: results.Latency{Mean: meanUs, P50: meanUs, P90: 2 * meanUs, P95: 2.5 * meanUs, P99: 3 * meanUs, P999: 4 * meanUs, Max: 5 * meanUs}}
			require.NoError(t, w.AddTrial(tr))
			clock = clock.Add(10 * time.Second)
		}
	}
	require.NoError(t, w.Close())
	d, err := results.Read(dir)
	require.NoError(t, err)
	return d
}

func TestSweepAnalysisAndFigure(t *testing.T) {
	d := sweepData(t)
	var html bytes.Buffer
	require.NoError(t, Render(&html, d))
	out := html.String()
	require.Contains(t, out, `<section id="scalability">`)
	require.Contains(t, out, "Client sweep, c")

	s := summarize(d)
	sweeps := findSweeps(s)
	require.Len(t, sweeps, 1)
	require.Equal(t, []float64{1, 2, 4, 8, 16, 32, 64}, sweeps[0].ns, "sorted by threads, not by file order")
	fs := analyzeSweep(s, sweeps[0], nil)
	require.Len(t, fs, 2)
	byTarget := map[string]sweepFinding{}
	for _, f := range fs {
		byTarget[f.Target] = f
	}
	u := byTarget["usl"]
	require.Equal(t, 16.0, u.MaxN, "of the measured points, 16 threads is nearest the peak at 21.8")
	require.Contains(t, u.USL, "usl: λ 1,000 ops/s per thread, σ 0.05")
	require.Contains(t, u.USL, "κ 0.002")
	require.Contains(t, u.USL, "peak 7,39") // X(21.8) = 21800 / (1 + 1.04 + 0.907) = 7,397 ops/s
	require.Contains(t, u.Plateau, "from ")
	lin := byTarget["linear"]
	require.Equal(t, "not reached: throughput still grew", lin.Plateau)

	// The knee is the point of highest throughput per ms of p99: computed
	// here independently from the same data.
	best, bestN := 0.0, 0.0
	for _, n := range []float64{1, 2, 4, 8, 16, 32, 64} {
		x := uslX(n)
		p99ms := 3 * n / x * 1e3
		if x/p99ms > best {
			best, bestN = x/p99ms, n
		}
	}
	require.Contains(t, u.Knee, fmt.Sprintf("%g threads", bestN))

	path, err := Write(d)
	require.NoError(t, err)
	svg, err := os.ReadFile(filepath.Join(filepath.Dir(path), results.FiguresDir, "sweep-c.svg"))
	require.NoError(t, err)
	require.Contains(t, string(svg), "<svg")
}

func TestSweepNeedsThreePoints(t *testing.T) {
	s := &summary{targets: []string{"a"}}
	for _, n := range []string{"1", "2"} {
		s.rows = append(s.rows, &row{workload: "c", params: []results.Param{{Key: "threads", Value: n}},
			cells: []cell{{n: 1, mean: 1}}})
	}
	require.Empty(t, findSweeps(s))
}

// TestStageBoundariesOnTimeline marks where each stage of a schedule
// begins on the throughput-over-time figure.
func TestStageBoundariesOnTimeline(t *testing.T) {
	d := fullFixture().write(t)
	var id string
	for _, tr := range d.Trials {
		if tr.Kind == results.KindRun && tr.Repetition == 1 && id == "" {
			id = tr.ID
		}
	}
	require.NotEmpty(t, id)
	var elapsed []float64
	for i := range d.Points {
		p := &d.Points[i]
		if p.Trial != id || p.Op != results.AllOps {
			continue
		}
		p.Stage = 1
		if p.Elapsed > 4*time.Second {
			p.Stage = 2
		}
		elapsed = append(elapsed, p.Elapsed.Seconds())
	}
	xs, labels := stageMarks(newTimeline(d).points[id])
	require.Equal(t, []string{"stage 2"}, labels)
	require.Len(t, xs, 1)
	require.LessOrEqual(t, xs[0], 4.0)

	s := summarize(d)
	groups, _ := buildFigures(d, s)
	found := false
	for _, g := range groups {
		for _, f := range g.Figures {
			if strings.Contains(f.Caption, "each stage of the schedule") {
				found = true
				f.render()
				require.Contains(t, string(f.SVG), "stage 2", "the boundary is labelled")
			}
		}
	}
	require.True(t, found, "an over-time figure marks the stages (trial %s, elapsed %v)", id, elapsed)
}
