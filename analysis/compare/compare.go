// Package compare is the engine of "dbarena compare A B": it matches the
// measured trials of two results directories by target, workload and
// matrix point, takes each side's repetitions as samples, and says for
// throughput and latency whether B differs from A by more than the
// repetitions' own spread, with a confidence interval on the relative
// change (computed on the log of the ratio, so it never goes below
// -100%).
//
// The test is Welch's: the two runs' variances are not assumed equal,
// since a new version or another machine changes the noise as well as
// the mean. A change is called faster or slower only when its interval
// excludes zero; a single repetition gives no interval at all, and the
// report says so rather than guessing. Trials that were interrupted or
// failed are left out with a note, and differences between the runs that
// make them incomparable (threads, target rate, records loaded, database
// version, provider) are listed as warnings. Different seeds are fine:
// repetitions differ in seed by design.
//
// Like the report, it reads result files, never live objects, so any two
// results directories can be compared.
package compare

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dbarena/dbarena/results"
)

// DefaultLevel is the confidence level used when Compare is given 0.
const DefaultLevel = 0.95

// Decisive is the smallest relative change a comparison must be able to
// rule out before it says "no significant difference": an interval that
// holds 0 and reaches past ±10% says the runs may differ by that much,
// which is no finding of sameness.
const Decisive = 0.10

// Verdicts of a Change.
const (
	VerdictFaster         = "faster"
	VerdictSlower         = "slower"
	VerdictNoDifference   = "no significant difference"
	VerdictFewRepetitions = "not enough repetitions"
	// VerdictUndecided is given when the interval holds 0 but also a
	// change of Decisive or more: the runs may differ by that much, and
	// more repetitions would tell.
	VerdictUndecided = "cannot decide: too few repetitions"
	// VerdictZeroBaseline is given when A's mean is 0, so that a change
	// relative to it means nothing.
	VerdictZeroBaseline = "no relative change: A is 0"
)

// Key identifies comparable trials across two runs: target, workload and
// matrix point (repetitions are the samples).
type Key struct {
	Target, Workload string
	// Params is the matrix point as "k=v;k=v", sorted by key so that
	// reordering the matrix axes in the spec does not break matching.
	Params string
}

// String is the key as the report prints it: "postgres a threads=8".
func (k Key) String() string {
	var parts []string
	for _, s := range []string{k.Target, k.Workload, k.Params} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

func keyOf(t *results.Trial) Key {
	ps := append([]results.Param(nil), t.Params...)
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Key < ps[j].Key })
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Key + "=" + p.Value
	}
	return Key{Target: t.Target, Workload: t.Workload, Params: strings.Join(parts, ";")}
}

// Metric is a figure compared across runs.
type Metric string

// Metrics compared; latencies are those of all operation types merged.
const (
	Throughput Metric = "throughput"
	P50        Metric = "p50"
	P99        Metric = "p99"
	P999       Metric = "p999"
	Mean       Metric = "mean"
)

// Metrics returns the metrics Compare reports, in the order it reports
// them.
func Metrics() []Metric { return []Metric{Throughput, P50, P99, P999, Mean} }

// LowerIsBetter reports whether a drop in m is an improvement: true for
// latencies.
func (m Metric) LowerIsBetter() bool { return m != Throughput }

// Unit is m's unit as recorded in trials.csv.
func (m Metric) Unit() string {
	if m == Throughput {
		return "ops/s"
	}
	return "µs"
}

func (m Metric) of(t *results.Trial) float64 {
	switch m {
	case Throughput:
		return t.Throughput
	case P50:
		return t.Latency.P50
	case P99:
		return t.Latency.P99
	case P999:
		return t.Latency.P999
	case Mean:
		return t.Latency.Mean
	}
	return math.NaN()
}

// Change is one metric of one key compared across the two runs.
type Change struct {
	Key    Key
	Metric Metric
	// A and B summarize each side's usable repetitions.
	A, B Summary
	// Delta is (meanB - meanA) / meanA, as a fraction (NaN when a side
	// has no value or A's mean is 0).
	Delta float64
	// Low and High bound Delta's confidence interval at Level (NaN when
	// a side has fewer than two repetitions).
	Low, High float64
	Level     float64
	// Verdict is one of the Verdict constants.
	Verdict string
	// Notes qualify the numbers: repetitions left out, errors, validity
	// flags, a missing interval.
	Notes []string
}

// Report is the comparison of run B against run A.
type Report struct {
	// A and B name the two runs (their directories).
	A, B string
	// Changes has one entry per key found in both runs and metric, keys
	// in the order A ran them.
	Changes []Change
	// OnlyInA and OnlyInB are keys measured in one run only.
	OnlyInA, OnlyInB []Key
	// Warnings say why the runs may not be comparable at all.
	Warnings []string
	// Level is the confidence level of the intervals.
	Level float64
}

// Compare compares run b against run a at the confidence level (0 means
// DefaultLevel).
func Compare(a, b *results.Data, level float64) (*Report, error) {
	if a == nil || b == nil {
		return nil, errors.New("compare: missing results")
	}
	if level == 0 {
		level = DefaultLevel
	}
	if !(level > 0 && level < 1) {
		return nil, fmt.Errorf("compare: confidence level %v: want a fraction between 0 and 1, such as 0.95", level)
	}
	ga, gb := group(a.Trials, results.KindRun), group(b.Trials, results.KindRun)
	r := &Report{A: name(a, "A"), B: name(b, "B"), Level: level}
	for _, k := range ga.order {
		tb, ok := gb.trials[k]
		if !ok {
			r.OnlyInA = append(r.OnlyInA, k)
			continue
		}
		r.Changes = append(r.Changes, compareKey(k, ga.trials[k], tb, level)...)
	}
	for _, k := range gb.order {
		if _, ok := ga.trials[k]; !ok {
			r.OnlyInB = append(r.OnlyInB, k)
		}
	}
	r.Warnings = comparability(a, b, ga, gb)
	return r, nil
}

func name(d *results.Data, fallback string) string {
	if d.Dir != "" {
		return d.Dir
	}
	return fallback
}

// grouped holds one run's trials of one kind by key, keys in the order
// the run first met them (its plan order, which a reader expects, rather
// than "threads=16" sorting before "threads=2").
type grouped struct {
	order  []Key
	trials map[Key][]results.Trial
}

func group(trials []results.Trial, kind string) grouped {
	g := grouped{trials: map[Key][]results.Trial{}}
	for _, t := range trials {
		if t.Kind != kind {
			continue
		}
		k := keyOf(&t)
		if _, ok := g.trials[k]; !ok {
			g.order = append(g.order, k)
		}
		g.trials[k] = append(g.trials[k], t)
	}
	return g
}

// compareKey compares every metric of one key.
func compareKey(k Key, ta, tb []results.Trial, level float64) []Change {
	keptA, notesA := usable("A", ta)
	keptB, notesB := usable("B", tb)
	keyNotes := append(notesA, notesB...)
	var out []Change
	for _, m := range Metrics() {
		xa, missA := values(keptA, m)
		xb, missB := values(keptB, m)
		c := Change{Key: k, Metric: m, A: summarize(xa), B: summarize(xb), Level: level}
		c.Notes = append(c.Notes, keyNotes...)
		c.Notes = append(c.Notes, missing("A", m, missA, len(keptA))...)
		c.Notes = append(c.Notes, missing("B", m, missB, len(keptB))...)
		estimate(&c)
		out = append(out, c)
	}
	return out
}

// estimate fills in c's change, interval and verdict from its summaries.
func estimate(c *Change) {
	c.Delta, c.Low, c.High = math.NaN(), math.NaN(), math.NaN()
	switch {
	case c.A.N == 0 || c.B.N == 0:
		c.Verdict = VerdictFewRepetitions
		return
	case c.A.Mean == 0:
		c.Verdict = VerdictZeroBaseline
		c.Notes = append(c.Notes, fmt.Sprintf("%s: A's mean is 0, so a relative change means nothing", c.Metric))
		return
	}
	c.Delta = c.B.Mean/c.A.Mean - 1
	if c.A.N < 2 || c.B.N < 2 {
		c.Verdict = VerdictFewRepetitions
		c.Notes = append(c.Notes, oneRepNote(c))
		return
	}
	iv := relativeCI(c.A, c.B, c.Level)
	c.Delta, c.Low, c.High = iv.Delta, iv.Low, iv.High
	c.Verdict = verdict(iv, c.Metric.LowerIsBetter())
	if c.Verdict == VerdictNoDifference && (c.Low < -Decisive || c.High > Decisive) {
		// The row's interval says how far the change may go.
		c.Verdict = VerdictUndecided
	}
}

// oneRepNote says why c has no interval. Write leaves it out of the
// notes, since c's row says the same.
func oneRepNote(c *Change) string {
	return fmt.Sprintf("%s: %s: no confidence interval; change %+.1f%%", c.Metric, oneRep(c.A.N, c.B.N), 100*c.Delta)
}

func oneRep(nA, nB int) string {
	switch {
	case nA < 2 && nB < 2:
		return "1 repetition in each run"
	case nA < 2:
		return "1 repetition in A"
	default:
		return "1 repetition in B"
	}
}

// values returns m's value in each trial, leaving out the NaNs of an
// unmeasured figure (an empty cell in trials.csv), and how many it left
// out.
func values(trials []results.Trial, m Metric) (xs []float64, missing int) {
	for i := range trials {
		v := m.of(&trials[i])
		if math.IsNaN(v) {
			missing++
			continue
		}
		xs = append(xs, v)
	}
	return xs, missing
}

func missing(side string, m Metric, n, total int) []string {
	if n == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s: no value in %d of %d repetitions of %s", m, n, total, side)}
}

// usable keeps the completed trials of one side and says, in notes, what
// it left out and what the kept ones were flagged with.
func usable(side string, trials []results.Trial) ([]results.Trial, []string) {
	var kept []results.Trial
	var out counts
	for _, t := range trials {
		if t.Status == results.StatusCompleted {
			kept = append(kept, t)
			continue
		}
		status := t.Status
		if status == "" {
			status = "no status"
		}
		out.add(status, 1)
	}
	var notes []string
	if len(out.order) > 0 {
		notes = append(notes, fmt.Sprintf("%s: %d of %d repetitions left out (%s)", side, out.total(), len(trials), out.String()))
	}
	return kept, append(notes, flagNotes(side, kept)...)
}

// flagNotes counts the kept trials with errors and with each validity
// flag's kind: the details (a CPU figure, a count) differ per repetition.
func flagNotes(side string, kept []results.Trial) []string {
	var notes []string
	n := len(kept)
	var failed, withErrors int64
	var flags counts
	for _, t := range kept {
		if t.Errors > 0 {
			withErrors++
			failed += t.Errors
		}
		seen := map[results.FlagKind]bool{}
		for _, f := range t.Flags {
			kind := f.Kind()
			// Errors are counted from the figures above; an interrupted
			// trial is not kept.
			if kind == results.FlagErrors || kind == results.FlagInterrupted || seen[kind] {
				continue
			}
			seen[kind] = true
			flags.add(string(kind), 1)
		}
	}
	if withErrors > 0 {
		notes = append(notes, fmt.Sprintf("%s has errors in %d of %d repetitions (%d failed operations)", side, withErrors, n, failed))
	}
	for _, kind := range flags.order {
		if results.FlagKind(kind) == results.FlagClientBound {
			notes = append(notes, fmt.Sprintf("%s was client-bound in %d of %d repetitions", side, flags.n[kind], n))
			continue
		}
		notes = append(notes, fmt.Sprintf("%s: %q in %d of %d repetitions", side, kind, flags.n[kind], n))
	}
	return notes
}

// counts tallies labels in the order first met.
type counts struct {
	order []string
	n     map[string]int
}

func (c *counts) add(label string, k int) {
	if c.n == nil {
		c.n = map[string]int{}
	}
	if _, ok := c.n[label]; !ok {
		c.order = append(c.order, label)
	}
	c.n[label] += k
}

func (c *counts) total() int {
	t := 0
	for _, k := range c.n {
		t += k
	}
	return t
}

// String is "1 interrupted, 2 failed".
func (c *counts) String() string {
	parts := make([]string, len(c.order))
	for i, l := range c.order {
		parts[i] = fmt.Sprintf("%d %s", c.n[l], l)
	}
	return strings.Join(parts, ", ")
}
