package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// sizedData is one database searched at four CPU caps on an Amdahl
// curve (10,000 ops/s a core, 5% serial).
func sizedData(sizes ...float64) *results.Data {
	d := &results.Data{Dir: "sized"}
	d.Manifest.SLO = &results.SLO{Bounds: []results.SLOBound{{Percentile: "p99", MaxMs: 5}}, Achieved: 0.95}
	for i, c := range sizes {
		rate := 10000 * c / (1 + 0.05*(c-1)) * (1 + 0.01*float64(i%2*2-1))
		label := fmt.Sprintf("%.0fm", 1000*c)
		name := "redis-" + label
		d.Manifest.Targets = append(d.Manifest.Targets, results.TargetInfo{Name: name, Base: "redis", Size: label, CPUs: c, Nodes: 1})
		id := name + ".c.target=" + fmt.Sprint(rate)
		d.Manifest.Searches = append(d.Manifest.Searches, results.Search{ID: name + ".c", Target: name, Workload: "c", Objective: "p99 <= 5 ms",
			Rate: rate, Ceiling: rate * 1.04, Resolved: true, Resolution: 0.05, Probes: []results.SearchProbe{{Trial: id, Rate: rate, Outcome: "met", Threads: 4}}})
		d.Trials = append(d.Trials, results.Trial{ID: id, Target: name, Workload: "c", TargetRate: rate, Throughput: rate, Status: results.StatusCompleted})
	}
	return d
}

func TestSizingFigure(t *testing.T) {
	name := func(s string) string { return slugify(s) }
	figs := sizingFigures(sizedData(0.25, 0.5, 0.75, 1), name)
	require.Len(t, figs, 1)
	f := figs[0]
	require.Equal(t, "Capacity by size, redis, workload c", f.Title)
	require.Empty(t, f.Message)
	require.Regexp(t, `dashed: (usl|amdahl) fitted over cores`, f.Caption)
	require.Contains(t, f.Caption, "90% prediction band")
	require.Regexp(t, `Each size predicted from the others: 250m [+-]\d+\.\d%, 500m`, f.Caption)
	require.Contains(t, f.Caption, "250m: 2,571 ops/s met, 2,674 missed, $5.02 a month")
	f.render()
	require.NotEmpty(t, f.SVG, f.PNGError)

	// Two sizes: the points, no fit; one size: no figure.
	figs = sizingFigures(sizedData(0.25, 0.5), name)
	require.Len(t, figs, 1)
	require.Contains(t, figs[0].Caption, "three or more sizes are needed")
	require.Empty(t, sizingFigures(sizedData(0.5), name))
}

// TestSizingGoal: with the experiment's goal, the verdict answers it in
// a sentence and the figure draws the need and rings the answer.
func TestSizingGoal(t *testing.T) {
	d := sizedData(0.25, 0.5, 0.75, 1)
	d.Manifest.Goal = &results.Goal{Throughput: 4000, Headroom: 0.2} // need 4,800: 500m met 5,179
	lines := sizingSentences(d)
	require.Len(t, lines, 1)
	require.Contains(t, lines[0], "redis needs 500m (0.5 cores) for 4,000 ops/s of workload c at p99 <= 5 ms with 20% headroom: 5,179 ops/s met it when measured")
	require.Contains(t, lines[0], "the next cheaper, 250m, fails")
	figs := sizingFigures(d, slugify)
	require.Len(t, figs, 1)
	require.Contains(t, figs[0].Caption, "Grey dashed: the goal's need, 4,800 ops/s; ringed: the answer, 500m.")
	// Beyond every size and the fit's reach: said, not guessed.
	d.Manifest.Goal = &results.Goal{Throughput: 1e6}
	require.Contains(t, sizingSentences(d)[0], "redis: no size serves 1,000,000 ops/s")
	// No goal: no sentence.
	d.Manifest.Goal = nil
	require.Empty(t, sizingSentences(d))
}

// TestEverySizeRefused: sizes whose deciding probes describe the
// machine met the objective but are refused; the figure says so rather
// than "no size met", and the goal's answer says it could not judge, as
// `dbarena size` does.
func TestEverySizeRefused(t *testing.T) {
	d := sizedData(0.25, 0.5)
	for i := range d.Trials {
		d.Trials[i].Flags = []results.Flag{results.Flagf(results.FlagHostSaturated, "the machine was 97%% busy")}
	}
	d.Manifest.Goal = &results.Goal{Throughput: 1000}
	figs := sizingFigures(d, slugify)
	require.Len(t, figs, 1)
	require.Equal(t, "Every size was refused: the figures it rests on describe the client or the machine (the caption says why).", figs[0].Message)
	require.Contains(t, figs[0].Caption, "could not judge: every size measured was refused (250m: probe")
	require.Contains(t, sizingSentences(d)[0], "redis: could not judge which size serves 1,000 ops/s")

	// One size usable: its figure is drawn, no message.
	d.Trials[0].Flags = nil
	require.Empty(t, sizingFigures(d, slugify)[0].Message)
}

// TestSizesAreNotRivals: one database measured at several sizes is a
// size axis: the verdict's head says how its throughput goes with the
// size, smallest first, and names no size "faster" than another, as it
// did ("throughput: redis-1000m faster on 1 of 1 workloads"). Two
// databases, even with sizes, are still compared as rivals.
func TestSizesAreNotRivals(t *testing.T) {
	d := &results.Data{Dir: "sizes"}
	for _, z := range []struct {
		label string
		cpus  float64
		rate  float64
	}{{"1000m", 1, 9000}, {"500m", 0.5, 4500}} {
		name := "redis-" + z.label
		d.Manifest.Targets = append(d.Manifest.Targets, results.TargetInfo{Name: name, Base: "redis", Size: z.label, CPUs: z.cpus, Nodes: 1})
		for rep := 1; rep <= 3; rep++ {
			d.Trials = append(d.Trials, results.Trial{ID: fmt.Sprintf("%s.c.rep%d", name, rep), Target: name, Workload: "c", Repetition: rep,
				Throughput: z.rate * (1 + 0.01*float64(rep-2)), Threads: 4, Status: results.StatusCompleted, Kind: results.KindRun})
		}
	}
	head := strings.SplitN(VerdictAfterRun(d), "\n", 3)
	require.Equal(t, "redis at 2 sizes (a size axis: one database, not rivals)", head[0])
	require.Equal(t, "  c: 500m 4,500, 1000m 9,000 ops/s", head[1], "smallest first")
	require.NotContains(t, VerdictAfterRun(d), "fastest")
	require.NotContains(t, VerdictAfterRun(d), "faster on")

	// Search probes: one size a row; the head names the axis only.
	require.NotContains(t, VerdictAfterRun(sizedData(0.25, 0.5, 1)), "fastest")

	// Two databases: rivals.
	d.Manifest.Targets[1].Base = "valkey"
	require.Contains(t, VerdictAfterRun(d), "fastest")
}

// TestStatusSaysWhatRan: a failed run whose steps all ran says that one
// of them failed, not that it stopped after the others ("the run failed
// after 3 of 4 steps" when all 4 ran); one that stopped short says so.
func TestStatusSaysWhatRan(t *testing.T) {
	m := &results.Manifest{Status: results.StatusFailed, PlannedSteps: 4, CompletedSteps: 3, FailedSteps: 1}
	require.Equal(t, "the run failed: every step ran, 1 of 4 failed: partial results", statusWarning(m))
	m.CompletedSteps = 2
	require.Equal(t, "the run failed after 3 of 4 steps (1 of them failed): partial results", statusWarning(m))
	m.FailedSteps, m.CompletedSteps = 0, 3
	require.Equal(t, "the run failed after 3 of 4 steps: partial results", statusWarning(m))
	m.Status = results.StatusInterrupted
	require.Equal(t, "the run was interrupted after 3 of 4 steps: partial results", statusWarning(m))
}
