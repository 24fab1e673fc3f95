package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// TestRatioInterval checks the interval of a ratio of means: centred on
// the ratio in log space, above zero however noisy, and absent with one
// repetition.
func TestRatioInterval(t *testing.T) {
	a := &cell{n: 3, mean: 200, std: 10}
	b := &cell{n: 3, mean: 100, std: 5}
	lo, hi, ok := ratioInterval(a, b)
	require.True(t, ok)
	require.InDelta(t, 2, math.Sqrt(lo*hi), 1e-9, "the log interval is centred on the ratio")
	require.Less(t, lo, 2.0)
	require.Greater(t, hi, 2.0)
	// 5% noise on each side, 3 repetitions: df about 4, t about 2.78,
	// a log standard error of sqrt(2 * 0.05^2 / 3).
	se := math.Sqrt(2 * 0.05 * 0.05 / 3)
	require.InDelta(t, math.Log(hi/2)/se, 2.776, 0.01)

	noisy := &cell{n: 2, mean: 100, std: 90}
	lo, _, ok = ratioInterval(a, noisy)
	require.True(t, ok)
	require.Positive(t, lo, "a ratio's interval never reaches zero")

	_, _, ok = ratioInterval(a, &cell{n: 1, mean: 100, std: math.NaN()})
	require.False(t, ok, "one repetition: no interval")
}

// TestGroupWarnings folds one kind's warnings on many trials into one
// line naming them, and keeps the run's status first.
func TestGroupWarnings(t *testing.T) {
	var ws []warning
	for _, id := range []string{"pg.c.1", "pg.c.2", "redis.c.1", "redis.c.2", "redis.b.1"} {
		ws = append(ws, warning{Subject: id, Text: string(results.Flagf(results.FlagHostSaturated, "this machine was at %s", id))})
	}
	ws = append(ws, warning{Subject: "pg.b.1", Text: string(results.ErrorsFlag(1, 10))},
		warning{Subject: "manifest", Text: "note"}, warning{Subject: "run", Text: "interrupted"})
	got := groupWarnings(ws)
	require.Len(t, got, 4)
	require.Equal(t, "run", got[0].Subject)
	require.Equal(t, "host-saturated on 5 trials (pg.c.1, pg.c.2, redis.c.1 and 2 more)", got[1].Subject)
	require.Equal(t, "first: this machine was at pg.c.1", got[1].Text)
	require.Equal(t, "pg.b.1", got[2].Subject)
	require.Equal(t, "manifest", got[3].Subject)
}

// TestVerdictSeparatesLatencyLeaders: a target that loses on throughput
// but wins on p99 is named as the p99 leader.
func TestVerdictSeparatesLatencyLeaders(t *testing.T) {
	v := Verdict(fullFixture().write(t))
	lines := strings.Split(v, "\n")
	// a's 1.8x and c's 2.0x are leads, each side's spread moderated
	// by the target's other workloads; cassandra's 1.09x on b is none.
	require.Equal(t, "throughput: postgres faster on 2 of 3 workloads; cannot tell on 1 (b)", lines[0],
		"cassandra's lead on b is no lead")
	require.Regexp(t, `^p99 latency \(read at \d+ workers on every target\): `, lines[1], "read at one concurrency")
	require.Regexp(t, `1\.09x\* \[[\d.]+x, [\d.]+x\] postgres: cannot tell`, v, "the client-bound trial's ratio is marked")
}

// twoTargets is a summary of one workload measured on targets a and b
// with the given cells.
func twoTargets(a, b cell) *summary {
	r := &row{key: "w", workload: "w", label: "w", cells: []cell{a, b}}
	r.rank()
	return &summary{targets: []string{"a", "b"}, rows: []*row{r}, reps: max(a.n, b.n)}
}

// TestLeadOf: a target leads a workload only where every ratio's
// interval at analysis/decide's level excludes 1x; the runner-up within
// the margin (its 90% interval inside ±5%) makes the row equivalent;
// each rule on both sides.
func TestLeadOf(t *testing.T) {
	tests := []struct {
		name  string
		cells []cell
		want  lead
	}{
		{"interval excludes 1x", []cell{{n: 5, mean: 150, std: 5}, {n: 5, mean: 100, std: 5}}, leadEstablished},
		{"excludes 1x at 95%, not at 99.5%", []cell{{n: 3, mean: 115, std: 5.75}, {n: 3, mean: 100, std: 5}}, leadIndistinct},
		{"interval includes 1x", []cell{{n: 3, mean: 120, std: 12}, {n: 3, mean: 100, std: 12}}, leadIndistinct},
		{"equivalent: within 5%", []cell{{n: 5, mean: 101, std: 0.5}, {n: 5, mean: 100, std: 0.5}}, leadEquivalent},
		{"4% apart, interval past 5%", []cell{{n: 3, mean: 104, std: 2}, {n: 3, mean: 100, std: 2}}, leadIndistinct},
		{"one repetition", []cell{{n: 1, mean: 200, std: math.NaN()}, {n: 1, mean: 100, std: math.NaN()}}, leadUnconfirmed},
		{"one repetition on one side", []cell{{n: 2, mean: 200, std: 5}, {n: 1, mean: 100, std: math.NaN()}}, leadUnconfirmed},
		{"within 5%, one repetition: no interval", []cell{{n: 1, mean: 104, std: math.NaN()}, {n: 1, mean: 100, std: math.NaN()}}, leadUnconfirmed},
		{"the third target's interval includes 1x", []cell{{n: 3, mean: 200, std: 2}, {n: 3, mean: 150, std: 2}, {n: 3, mean: 120, std: 100}}, leadIndistinct},
		{"the third target has one repetition", []cell{{n: 3, mean: 200, std: 2}, {n: 3, mean: 150, std: 2}, {n: 1, mean: 120, std: math.NaN()}}, leadUnconfirmed},
		{"the other measured 0 ops/s twice", []cell{{n: 2, mean: 100, std: 5}, {n: 2, mean: 0, std: 0}}, leadEstablished},
		{"the other measured 0 ops/s once", []cell{{n: 2, mean: 100, std: 5}, {n: 1, mean: 0, std: math.NaN()}}, leadUnconfirmed},
		{"one target measured", []cell{{n: 3, mean: 100, std: 5}, {}}, leadNone},
		{"every target at 0 ops/s", []cell{{n: 2, mean: 0, std: 0}, {n: 2, mean: 0, std: 0}}, leadEquivalent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &row{cells: tc.cells}
			r.rank()
			require.Equal(t, tc.want, r.leadOf())
		})
	}
}

// p99Cell is a cell of n repetitions whose p99s have the given mean
// and sample standard deviation (the throughput is there so it counts
// as measured).
func p99Cell(n int, p99, std float64) cell {
	return cell{n: n, mean: 100, std: 1, p99n: n, p99std: std, lat: results.Latency{P99: p99}}
}

// TestP99LeadOf: the lowest p99 leads only more than 5% below every
// other and with every ratio's interval above 1x, as the throughput's
// lead; each rule on both sides of its threshold.
func TestP99LeadOf(t *testing.T) {
	tests := []struct {
		name  string
		cells []cell
		want  lead
		best  int
	}{
		{"interval excludes 1x", []cell{p99Cell(5, 1500, 50), p99Cell(5, 1000, 50)}, leadEstablished, 1},
		{"interval includes 1x", []cell{p99Cell(3, 1200, 120), p99Cell(3, 1000, 120)}, leadIndistinct, 1},
		{"equivalent", []cell{p99Cell(5, 1010, 5), p99Cell(5, 1000, 5)}, leadEquivalent, 1},
		{"4% apart, interval past 5%", []cell{p99Cell(3, 1040, 20), p99Cell(3, 1000, 20)}, leadIndistinct, 1},
		{"one repetition", []cell{p99Cell(1, 3000, math.NaN()), p99Cell(1, 1000, math.NaN())}, leadUnconfirmed, 1},
		{"the first target lowest", []cell{p99Cell(5, 1000, 50), p99Cell(5, 1500, 50)}, leadEstablished, 0},
		{"one target measured", []cell{p99Cell(3, 1000, 50), {}}, leadNone, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &row{cells: tc.cells}
			r.rank()
			l, best := r.p99LeadOf()
			require.Equal(t, tc.want, l)
			require.Equal(t, tc.best, best)
		})
	}
	// The headline's line says so.
	s := &summary{targets: []string{"a", "b"}, reps: 3}
	for i, cs := range [][]cell{{p99Cell(5, 1500, 50), p99Cell(5, 1000, 50)}, {p99Cell(3, 1200, 120), p99Cell(3, 1000, 120)}} {
		r := &row{key: string(rune('p' + i)), label: string(rune('p' + i)), cells: cs}
		r.rank()
		s.rows = append(s.rows, r)
	}
	_, p99, _ := strings.Cut(headline(s, &results.Data{}), "\n")
	p99, _, _ = strings.Cut(p99, "\n")
	require.Equal(t, "p99 latency: b lower on 1 of 2 workloads; cannot tell on 1 (q)", p99)
}

// TestHeadlineSaysWhatTheIntervalsSay: "fastest" only where the leads
// are established; "cannot tell" where an interval includes 1x, naming
// the workloads; "unconfirmed" with one repetition; equivalence apart.
func TestHeadlineSaysWhatTheIntervalsSay(t *testing.T) {
	sure := []cell{{n: 5, mean: 150, std: 5}, {n: 5, mean: 100, std: 5}}
	unsure := []cell{{n: 3, mean: 120, std: 12}, {n: 3, mean: 100, std: 12}}
	once := []cell{{n: 1, mean: 320, std: math.NaN()}, {n: 1, mean: 100, std: math.NaN()}}
	same := []cell{{n: 5, mean: 100, std: 0.5}, {n: 5, mean: 101, std: 0.5}}
	behind := []cell{{n: 5, mean: 100, std: 5}, {n: 5, mean: 150, std: 5}}
	tests := []struct {
		name string
		rows [][]cell
		want string
	}{
		{"established", [][]cell{sure}, "a is fastest on the one workload measured on more than one target"},
		{"established on both", [][]cell{sure, sure}, "a is fastest on all 2 workloads"},
		{"established, split", [][]cell{sure, behind, sure}, "a is fastest on 2 of 3 workloads, b on 1"},
		{"interval includes 1x", [][]cell{unsure}, "cannot tell on the one workload measured on more than one target (p)"},
		{"one of each", [][]cell{sure, unsure}, "a faster on 1 of 2 workloads; cannot tell on 1 (q)"},
		{"one repetition", [][]cell{once, once}, "a ahead on all 2 workloads, unconfirmed: no confidence interval"},
		{"equivalent", [][]cell{same, same}, "equivalent within ±5% on all 2 workloads"},
		{"all kinds", [][]cell{behind, same, unsure, once}, "b faster on 1 of 4 workloads; equivalent within ±5% on 1; cannot tell on 1 (r); unconfirmed on 1 (no confidence interval; a ahead on 1)"},
		{"unconfirmed first", [][]cell{once, unsure}, "cannot tell on 1 of 2 workloads (q); unconfirmed on 1 (no confidence interval; a ahead on 1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &summary{targets: []string{"a", "b"}}
			for i, cs := range tc.rows {
				r := &row{key: string(rune('p' + i)), label: string(rune('p' + i)), cells: append([]cell(nil), cs...)}
				r.rank()
				s.rows = append(s.rows, r)
				for _, c := range cs {
					s.reps = max(s.reps, c.n)
				}
			}
			line, _, _ := strings.Cut(headline(s, &results.Data{}), "\n")
			require.Equal(t, "throughput: "+tc.want, line)
		})
	}
}

// TestBestOnlyWhereTheLeadIsEstablished: the table's best mark is on the
// top target of a row whose lead is established, and nowhere else; the
// top cell of any other row says why it is not marked.
func TestBestOnlyWhereTheLeadIsEstablished(t *testing.T) {
	tests := []struct {
		name  string
		cells []cell
		best  bool
		note  string
	}{
		{"interval excludes 1x", []cell{{n: 5, mean: 150, std: 5}, {n: 5, mean: 100, std: 5}}, true, ""},
		{"interval includes 1x", []cell{{n: 3, mean: 120, std: 12}, {n: 3, mean: 100, std: 12}}, false, "(cannot tell: the interval holds 1x)"},
		{"one repetition", []cell{{n: 1, mean: 320, std: math.NaN()}, {n: 1, mean: 100, std: math.NaN()}}, false, "(lead unconfirmed: 1 repetition)"},
		{"within 5%", []cell{{n: 5, mean: 101, std: 0.1}, {n: 5, mean: 100, std: 0.1}}, false, "(equivalent within the margin)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := twoTargets(tc.cells[0], tc.cells[1])
			v := rowOf(s, s.rows[0])
			require.Equal(t, tc.best, v.Cells[0].Best)
			require.Equal(t, tc.note, v.Cells[0].ShareCI)
			require.False(t, v.Cells[1].Best, "the runner-up is never best")
		})
	}

	// The page of a run of one repetition marks no target best, though
	// postgres is ahead on every workload.
	fx := fullFixture()
	for _, target := range []string{"postgres", "cassandra"} {
		for wl, rates := range fx.rates[target] {
			fx.rates[target][wl] = rates[:1]
		}
	}
	var buf bytes.Buffer
	require.NoError(t, Render(&buf, fx.write(t)))
	html := buf.String()
	require.NotContains(t, html, `<span class="tag">best</span>`)
	require.NotContains(t, html, `class="num first rate best"`)
	require.Equal(t, 3, strings.Count(html, "(lead unconfirmed: 1 repetition)"))
	requireHas(t, html, "throughput: postgres ahead on 2 of 3 workloads, cassandra on 1, unconfirmed: no confidence interval")
}
