package compare

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/dbarena/dbarena/results"
)

// trial is one completed repetition with throughput x and a p99 from
// which the other latency figures follow in fixed proportions.
func trial(target, workload string, rep int, x, p99 float64) results.Trial {
	return results.Trial{
		ID: fmt.Sprintf("%s.%s.%d", target, workload, rep), Index: rep, Kind: results.KindRun,
		Target: target, Database: target, Driver: target, Workload: workload, Repetition: rep, Threads: 8,
		Duration: 10 * time.Second, Operations: int64(10 * x), Throughput: x,
		Latency: results.Latency{Mean: p99 / 4, P50: p99 / 5, P90: p99 / 2, P95: p99 / 1.5, P99: p99, P999: 2 * p99, Max: 3 * p99},
		Status:  results.StatusCompleted,
	}
}

// reps is one trial per throughput, with p99s[i] its p99.
func reps(target, workload string, xs, p99s []float64) []results.Trial {
	out := make([]results.Trial, len(xs))
	for i := range xs {
		out[i] = trial(target, workload, i+1, xs[i], p99s[i])
	}
	return out
}

func load(target string, records int64) results.Trial {
	return results.Trial{ID: target + ".load.1", Kind: results.KindLoad, Target: target, Database: target,
		Workload: "a", Repetition: 1, Threads: 4, Operations: records, Status: results.StatusCompleted}
}

func manifest() results.Manifest {
	return results.Manifest{Tool: "dbarena", Version: "1.0.0", Experiment: "x", Seed: 1, Status: results.StatusCompleted,
		PlannedSteps: 4, CompletedSteps: 4, Loader: results.Host{Hostname: "loader", CPUs: 8},
		Targets: []results.TargetInfo{{Name: "pg", Database: "postgres", Driver: "postgres", Provider: "docker", Version: "16.4", Nodes: 1}}}
}

// write makes a results directory the way a run does and reads it back.
func write(t *testing.T, m results.Manifest, trials []results.Trial) *results.Data {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	w, err := results.Create(dir)
	require.NoError(t, err)
	for _, tr := range trials {
		require.NoError(t, w.AddTrial(tr))
	}
	require.NoError(t, w.WriteManifest(&m))
	require.NoError(t, w.Close())
	d, err := results.Read(dir)
	require.NoError(t, err)
	return d
}

// welch is the expected change and interval, computed here from the
// formulas rather than by relativeCI: a first-order (delta method)
// variance of log(meanB/meanA), Welch-Satterthwaite degrees of freedom,
// the Student t quantile, and the interval mapped back from the log.
func welch(a, b []float64, level float64) (delta, low, high float64) {
	ma, va := stat.MeanVariance(a, nil)
	mb, vb := stat.MeanVariance(b, nil)
	na, nb := float64(len(a)), float64(len(b))
	ratio := mb / ma
	// Var(log(mb/ma)) ≈ Var(mb)/mb² + Var(ma)/ma², with Var(mean) = s²/n.
	termB := (vb / nb) / math.Pow(mb, 2)
	termA := (va / na) / math.Pow(ma, 2)
	df := math.Pow(termA+termB, 2) / (math.Pow(termA, 2)/(na-1) + math.Pow(termB, 2)/(nb-1))
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile((1 + level) / 2)
	se := math.Sqrt(termA + termB)
	return ratio - 1, ratio*math.Exp(-q*se) - 1, ratio*math.Exp(q*se) - 1
}

func find(t *testing.T, r *Report, k Key, m Metric) Change {
	t.Helper()
	for _, c := range r.Changes {
		if c.Key == k && c.Metric == m {
			return c
		}
	}
	t.Fatalf("no change for %s %s in %+v", k, m, r.Changes)
	return Change{}
}

func TestVerdicts(t *testing.T) {
	steady := []float64{5000, 5100, 4900} // p99 that does not move
	steadyB := []float64{5050, 4950, 5000}
	tests := map[string]struct {
		aX, bX, aP99, bP99 []float64
		level              float64
		want               map[Metric]string
	}{
		"clear speed-up": {
			aX: []float64{1000, 1010, 990}, bX: []float64{1200, 1212, 1188}, aP99: steady, bP99: steadyB,
			want: map[Metric]string{Throughput: VerdictFaster, P99: VerdictNoDifference},
		},
		"clear slow-down": {
			aX: []float64{1000, 1010, 990}, bX: []float64{800, 808, 792}, aP99: steady, bP99: steadyB,
			want: map[Metric]string{Throughput: VerdictSlower, P99: VerdictNoDifference},
		},
		"overlap: 10% noise in 3 repetitions cannot tell": {
			aX: []float64{1000, 1100, 900}, bX: []float64{1050, 950, 1150}, aP99: steady, bP99: steadyB,
			want: map[Metric]string{Throughput: VerdictUndecided, P99: VerdictNoDifference},
		},
		"overlap, tight: no difference, decided": {
			aX: []float64{1000, 1002, 998}, bX: []float64{1001, 999, 1003}, aP99: steady, bP99: steadyB,
			want: map[Metric]string{Throughput: VerdictNoDifference},
		},
		"2 repetitions a side, wide apart: cannot decide": {
			aX: []float64{100, 9000}, bX: []float64{120, 8000}, aP99: []float64{5000, 5010}, bP99: []float64{5005, 5000},
			want: map[Metric]string{Throughput: VerdictUndecided},
		},
		"p99 drop is faster": {
			aX: []float64{1000, 1100, 900}, bX: []float64{1050, 950, 1150}, aP99: steady, bP99: []float64{3000, 3060, 2940},
			want: map[Metric]string{Throughput: VerdictUndecided, P50: VerdictFaster, P99: VerdictFaster, P999: VerdictFaster, Mean: VerdictFaster},
		},
		"p99 rise is slower": {
			aX: []float64{1000, 1100, 900}, bX: []float64{1050, 950, 1150}, aP99: steady, bP99: []float64{8000, 8160, 7840},
			want: map[Metric]string{Throughput: VerdictUndecided, P99: VerdictSlower},
		},
		"unequal variances and repetitions": {
			aX: []float64{1000, 1001, 999, 1000}, bX: []float64{1100, 1180, 1020, 1140, 1060},
			aP99: []float64{5000, 5000, 5000, 5000}, bP99: []float64{5000, 5100, 4900, 5000, 5000},
			want: map[Metric]string{Throughput: VerdictFaster, P99: VerdictNoDifference},
		},
		"+5% is significant at 95%": {
			aX: []float64{100, 102, 98}, bX: []float64{105, 107, 103}, aP99: steady, bP99: steadyB,
			want: map[Metric]string{Throughput: VerdictFaster},
		},
		"but not at 99%": {
			aX: []float64{100, 102, 98}, bX: []float64{105, 107, 103}, aP99: steady, bP99: steadyB, level: 0.99,
			want: map[Metric]string{Throughput: VerdictUndecided}, // [-2.4%, +13.0%]: it may be past +10%
		},
		"one repetition in B": {
			aX: []float64{1000, 1010, 990}, bX: []float64{1200}, aP99: steady, bP99: []float64{5000},
			want: map[Metric]string{Throughput: VerdictFewRepetitions, P99: VerdictFewRepetitions},
		},
		"one repetition in each": {
			aX: []float64{1000}, bX: []float64{1200}, aP99: []float64{5000}, bP99: []float64{4000},
			want: map[Metric]string{Throughput: VerdictFewRepetitions, P99: VerdictFewRepetitions},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			a := write(t, manifest(), reps("pg", "a", tt.aX, tt.aP99))
			b := write(t, manifest(), reps("pg", "a", tt.bX, tt.bP99))
			r, err := Compare(a, b, tt.level)
			require.NoError(t, err)
			require.Len(t, r.Changes, len(Metrics()))
			require.Empty(t, r.OnlyInA)
			require.Empty(t, r.OnlyInB)
			require.Empty(t, r.Warnings)
			level := tt.level
			if level == 0 {
				level = DefaultLevel
			}
			for _, m := range Metrics() {
				c := find(t, r, Key{Target: "pg", Workload: "a"}, m)
				xa, xb := metricValues(t, a, m), metricValues(t, b, m)
				require.Equal(t, level, c.Level)
				requireSummary(t, xa, c.A)
				requireSummary(t, xb, c.B)
				if want, ok := tt.want[m]; ok {
					require.Equal(t, want, c.Verdict, "%s: delta %v [%v, %v]", m, c.Delta, c.Low, c.High)
				}
				if len(xa) < 2 || len(xb) < 2 {
					require.InDelta(t, stat.Mean(xb, nil)/stat.Mean(xa, nil)-1, c.Delta, 1e-12, m)
					require.True(t, math.IsNaN(c.Low) && math.IsNaN(c.High), "%s: no interval from one repetition", m)
					require.Contains(t, c.Notes, fmt.Sprintf("%s: %s: no confidence interval; change %+.1f%%", m, oneRep(len(xa), len(xb)), 100*c.Delta))
					continue
				}
				delta, low, high := welch(xa, xb, level)
				require.InDelta(t, delta, c.Delta, 1e-12, m)
				require.InDelta(t, low, c.Low, 1e-9, m)
				require.InDelta(t, high, c.High, 1e-9, m)
				require.Empty(t, c.Notes)
			}
		})
	}
}

func metricValues(t *testing.T, d *results.Data, m Metric) []float64 {
	t.Helper()
	var xs []float64
	for _, tr := range d.Trials {
		xs = append(xs, m.of(&tr))
	}
	return xs
}

func requireSummary(t *testing.T, xs []float64, s Summary) {
	t.Helper()
	require.Equal(t, len(xs), s.N)
	require.InDelta(t, stat.Mean(xs, nil), s.Mean, 1e-9)
	if len(xs) < 2 {
		require.True(t, math.IsNaN(s.StdDev), "one repetition has no standard deviation")
		return
	}
	require.InDelta(t, stat.StdDev(xs, nil), s.StdDev, 1e-9)
}

func TestMetricFields(t *testing.T) {
	tr := results.Trial{Throughput: 1, Latency: results.Latency{Mean: 2, P50: 3, P90: 4, P95: 5, P99: 6, P999: 7, Max: 8}}
	got := map[Metric]float64{}
	for _, m := range Metrics() {
		got[m] = m.of(&tr)
	}
	require.Equal(t, map[Metric]float64{Throughput: 1, Mean: 2, P50: 3, P99: 6, P999: 7}, got)
	require.False(t, Throughput.LowerIsBetter())
	require.True(t, P99.LowerIsBetter())
}

// TestHandComputed checks relativeCI against numbers worked out by hand.
// A = 98, 100, 102: mean 100, s = 2. B = 88.2, 90, 91.8: mean 90,
// s = 1.8, so R = 0.9 and Delta = -10%. The log-scale variance terms are
// vA = 2²/(3·100²) = 1.3333e-4 and vB = 1.8²/(3·90²) = 1.3333e-4; with
// two equal terms and n = 3 on each side the Welch-Satterthwaite degrees
// of freedom are exactly (2v)²/(2v²/2) = 4, and a t table gives
// t(0.975, 4) = 2.7764. The standard error is sqrt(2.6667e-4) =
// 0.0163299, the half-width on the log scale 2.7764 × 0.0163299 =
// 0.0453392, and the interval 0.9·exp(∓0.0453392) - 1 = [-13.99%,
// -5.83%]: a significant drop in throughput, "slower".
func TestHandComputed(t *testing.T) {
	a := summarize([]float64{98, 100, 102})
	b := summarize([]float64{88.2, 90, 91.8})
	require.Equal(t, Summary{N: 3, Mean: 100, StdDev: 2}, a)
	require.InDelta(t, 90, b.Mean, 1e-12)
	require.InDelta(t, 1.8, b.StdDev, 1e-12)

	iv := relativeCI(a, b, 0.95)
	require.InDelta(t, 4, iv.DF, 1e-9)
	require.InDelta(t, -0.10, iv.Delta, 1e-12)
	require.InDelta(t, -0.139894, iv.Low, 1e-6)
	require.InDelta(t, -0.058256, iv.High, 1e-6)
	require.Equal(t, VerdictSlower, verdict(iv, false))
	require.Equal(t, VerdictFaster, verdict(iv, true), "the same drop in a latency is an improvement")
}

// TestNeverBelowMinus100 is the noisy tail latency that printed
// "+4.9% [-136.0%, +145.8%]" when the interval was taken on the ratio
// itself: on the log scale the bound stays above -100% and the interval
// still holds the printed change.
func TestNeverBelowMinus100(t *testing.T) {
	a := summarize([]float64{100, 2000, 100})
	b := summarize([]float64{800, 100, 1400})
	iv := relativeCI(a, b, 0.95)
	require.Greater(t, iv.Low, -1.0)
	require.Less(t, iv.Low, iv.Delta)
	require.Greater(t, iv.High, iv.Delta)
	require.Equal(t, VerdictNoDifference, verdict(iv, true))

	zero := relativeCI(a, summarize([]float64{0, 0}), 0.95)
	require.Equal(t, interval{Delta: -1, Low: -1, High: -1, DF: math.Inf(1)}, zero, "a B of zeros is -100%, whatever A's noise")
}

func TestNoNoise(t *testing.T) {
	same := summarize([]float64{100, 100})
	iv := relativeCI(same, summarize([]float64{110, 110}), 0.95)
	require.Equal(t, interval{Delta: iv.Delta, Low: iv.Delta, High: iv.Delta, DF: math.Inf(1)}, iv)
	require.InDelta(t, 0.1, iv.Delta, 1e-12)
	require.Equal(t, VerdictFaster, verdict(iv, false))
	require.Equal(t, VerdictNoDifference, verdict(relativeCI(same, same, 0.95), false))
}

func TestNotesAndLeftOut(t *testing.T) {
	ta := reps("pg", "a", []float64{1000, 1010, 990}, []float64{5000, 5100, 4900})
	ta[0].Errors = 12
	ta[0].Flags = []results.Flag{"errors: 12 of 10000 operations failed"}
	ta[1].Flags = []results.Flag{"client-bound: the load generator used 95% CPU", "client-bound: by Little's law only 3.1 of 8 workers"}
	ta[2].Flags = []results.Flag{"client-bound: the load generator used 97% CPU"}
	tb := reps("pg", "a", []float64{1100, 1110, 700, 300}, []float64{5000, 5100, 4900, 9000})
	tb[1].Latency.P999 = math.NaN() // an empty cell
	tb[1].Flags = []results.Flag{"target missed: 1110 of 2000 ops/s"}
	tb[2].Status = results.StatusInterrupted
	tb[2].Flags = []results.Flag{"interrupted: partial trial"}
	tb[3].Status = results.StatusFailed

	r, err := Compare(write(t, manifest(), ta), write(t, manifest(), tb), 0)
	require.NoError(t, err)
	k := Key{Target: "pg", Workload: "a"}
	keyNotes := []string{
		"A has errors in 1 of 3 repetitions (12 failed operations)",
		"A was client-bound in 2 of 3 repetitions",
		"B: 2 of 4 repetitions left out (1 interrupted, 1 failed)",
		`B: "target missed" in 1 of 2 repetitions`,
	}
	c := find(t, r, k, Throughput)
	require.Equal(t, keyNotes, c.Notes)
	require.Equal(t, 3, c.A.N)
	require.Equal(t, 2, c.B.N, "the interrupted and failed repetitions are left out")
	require.InDelta(t, 0.105, c.Delta, 1e-12)

	c = find(t, r, k, P999)
	require.Equal(t, 1, c.B.N)
	require.Equal(t, VerdictFewRepetitions, c.Verdict)
	require.Equal(t, append(keyNotes[:len(keyNotes):len(keyNotes)],
		"p999: no value in 1 of 2 repetitions of B",
		"p999: 1 repetition in B: no confidence interval; change +0.0%"), c.Notes)
}

func TestAllLeftOut(t *testing.T) {
	tb := reps("pg", "a", []float64{1100, 1110}, []float64{5000, 5100})
	for i := range tb {
		tb[i].Status = results.StatusInterrupted
	}
	a := write(t, manifest(), reps("pg", "a", []float64{1000, 1010}, []float64{5000, 5100}))
	r, err := Compare(a, write(t, manifest(), tb), 0)
	require.NoError(t, err)
	for _, m := range Metrics() {
		c := find(t, r, Key{Target: "pg", Workload: "a"}, m)
		require.Equal(t, 0, c.B.N)
		require.Equal(t, VerdictFewRepetitions, c.Verdict)
		require.True(t, math.IsNaN(c.Delta))
		require.Equal(t, []string{"B: 2 of 2 repetitions left out (2 interrupted)"}, c.Notes)
	}
}

func TestZeroBaseline(t *testing.T) {
	a := write(t, manifest(), reps("pg", "a", []float64{0, 0}, []float64{5000, 5000}))
	b := write(t, manifest(), reps("pg", "a", []float64{10, 12}, []float64{5000, 5000}))
	r, err := Compare(a, b, 0)
	require.NoError(t, err)
	c := find(t, r, Key{Target: "pg", Workload: "a"}, Throughput)
	require.Equal(t, VerdictZeroBaseline, c.Verdict)
	require.True(t, math.IsNaN(c.Delta))
	require.Equal(t, VerdictNoDifference, find(t, r, Key{Target: "pg", Workload: "a"}, P99).Verdict)
}

func TestOnlyInOneRun(t *testing.T) {
	xs, p99s := []float64{1000, 1010}, []float64{5000, 5100}
	withParams := func(trials []results.Trial, ps ...results.Param) []results.Trial {
		for i := range trials {
			trials[i].Params = ps
		}
		return trials
	}
	var ta, tb []results.Trial
	ta = append(ta, reps("pg", "a", xs, p99s)...)
	ta = append(ta, withParams(reps("pg", "b", xs, p99s), results.Param{Key: "threads", Value: "8"}, results.Param{Key: "distribution", Value: "zipfian"})...)
	ta = append(ta, withParams(reps("pg", "b", xs, p99s), results.Param{Key: "threads", Value: "16"})...)
	ta = append(ta, reps("pg", "c", xs, p99s)...)
	tb = append(tb, reps("redis", "a", xs, p99s)...)
	tb = append(tb, withParams(reps("pg", "b", xs, p99s), results.Param{Key: "distribution", Value: "zipfian"}, results.Param{Key: "threads", Value: "8"})...)
	tb = append(tb, withParams(reps("pg", "b", xs, p99s), results.Param{Key: "threads", Value: "32"})...)
	tb = append(tb, reps("pg", "a", xs, p99s)...)

	r, err := Compare(write(t, manifest(), ta), write(t, manifest(), tb), 0)
	require.NoError(t, err)
	var compared []Key
	for _, c := range r.Changes {
		if c.Metric == Throughput {
			compared = append(compared, c.Key)
		}
	}
	require.Equal(t, []Key{{"pg", "a", ""}, {"pg", "b", "distribution=zipfian;threads=8"}}, compared,
		"in A's order; the matrix point matches whatever the order of its axes")
	require.Equal(t, []Key{{"pg", "b", "threads=16"}, {"pg", "c", ""}}, r.OnlyInA)
	require.Equal(t, []Key{{"redis", "a", ""}, {"pg", "b", "threads=32"}}, r.OnlyInB)
	require.Equal(t, "pg b distribution=zipfian;threads=8", compared[1].String())
}

func TestWarnings(t *testing.T) {
	base := func() []results.Trial {
		ts := []results.Trial{load("pg", 1000)}
		ts = append(ts, reps("pg", "a", []float64{1000, 1010}, []float64{5000, 5100})...)
		return append(ts, reps("pg", "b", []float64{1000, 1010}, []float64{5000, 5100})...)
	}
	tests := map[string]struct {
		edit func(m *results.Manifest, ts []results.Trial)
		want []string
	}{
		"only the seed differs": {
			edit: func(m *results.Manifest, ts []results.Trial) { m.Seed = 42 },
		},
		"threads": {
			edit: func(m *results.Manifest, ts []results.Trial) {
				for i := range ts {
					if ts[i].Kind == results.KindRun {
						ts[i].Threads = 16
					}
				}
			},
			want: []string{"threads differ: 8 in A, 16 in B (pg a; pg b)"},
		},
		"target rate": {
			edit: func(m *results.Manifest, ts []results.Trial) { ts[1].TargetRate, ts[2].TargetRate = 500, 500 },
			want: []string{"target rate differs: unthrottled in A, 500 ops/s in B (pg a)"},
		},
		"records loaded": {
			edit: func(m *results.Manifest, ts []results.Trial) { ts[0].Operations = 2000 },
			want: []string{"records loaded differ: 1000 in A, 2000 in B (a different recordcount?) (pg a)"},
		},
		"version, provider and limits": {
			edit: func(m *results.Manifest, ts []results.Trial) {
				m.Targets[0].Version, m.Targets[0].Provider = "17.0", "aws"
				m.Targets[0].CPUs, m.Targets[0].MemoryBytes = 2, 4<<30
			},
			want: []string{
				"target pg: version differs: 16.4 in A, 17.0 in B",
				"target pg: provider differs: docker in A, aws in B",
				"target pg: CPU limit differs: none in A, 2 in B",
				"target pg: memory limit differs: none in A, 4 GiB in B",
			},
		},
		"load generator": {
			edit: func(m *results.Manifest, ts []results.Trial) { m.Loader.CPUs = 4 },
			want: []string{"load generator CPUs differ: 8 in A, 4 in B"},
		},
		"interrupted run": {
			edit: func(m *results.Manifest, ts []results.Trial) {
				m.Status, m.CompletedSteps = results.StatusInterrupted, 3
			},
			want: []string{`B did not complete (status "interrupted"): 3 of 4 steps ran`},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			ma, mb := manifest(), manifest()
			tb := base()
			tt.edit(&mb, tb)
			r, err := Compare(write(t, ma, base()), write(t, mb, tb), 0)
			require.NoError(t, err)
			require.Equal(t, tt.want, r.Warnings)
		})
	}
}

func TestLevel(t *testing.T) {
	d := &results.Data{}
	for _, level := range []float64{-0.5, 1, 95, math.NaN()} {
		_, err := Compare(d, d, level)
		require.ErrorContains(t, err, "want a fraction between 0 and 1", "level %v", level)
	}
	_, err := Compare(nil, d, 0)
	require.Error(t, err)
	r, err := Compare(d, d, 0)
	require.NoError(t, err)
	require.Empty(t, r.Changes)
	require.Equal(t, "A", r.A)
}

// TestSameRun: a run compared with itself (the same directory, or a
// copy with the same start) is warned about; two runs are not.
func TestSameRun(t *testing.T) {
	m := manifest()
	m.Start = time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	a := write(t, m, reps("pg", "a", []float64{1000, 1010, 990}, []float64{5000, 5100, 4900}))
	r, err := Compare(a, a, 0)
	require.NoError(t, err)
	require.Contains(t, r.Warnings[0], "A and B are the same run")
	cp := write(t, m, reps("pg", "a", []float64{1000, 1010, 990}, []float64{5000, 5100, 4900}))
	r, err = Compare(a, cp, 0)
	require.NoError(t, err)
	require.Contains(t, r.Warnings[0], "A and B are the same run", "a copy: same start, same trials")

	m.Start = m.Start.Add(time.Hour)
	other := write(t, m, reps("pg", "a", []float64{1000, 1010, 990}, []float64{5000, 5100, 4900}))
	r, err = Compare(a, other, 0)
	require.NoError(t, err)
	require.Empty(t, r.Warnings)
}
