package report

// What limits the verdict's confidence, and what would decide what it
// leaves undecided.

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/dbarena/dbarena/analysis/decide"
	"github.com/dbarena/dbarena/analysis/steady"
	"github.com/dbarena/dbarena/internal/plural"
	"github.com/dbarena/dbarena/results"
)

// A repetition is far outside its siblings when its throughput is at
// least outlierGap away from the cell's median (on the log scale) and at
// least outlierFactor times as far as any sibling: one slow repetition
// among steady ones, not a wide spread. Both sides are pinned by tests.
const (
	outlierGap    = 0.25
	outlierFactor = 2.0
	// causeCPU is how much more CPU, in percent of a core, something
	// must have taken during the repetition than during its siblings
	// (their median) to be named its cause.
	causeCPU = 20.0
)

// Finding is one row's comparison on one figure, as the verdict judges
// it.
type Finding struct {
	// Row is the workload at its matrix point ("a", "a · threads=8");
	// Figure "throughput" or "p99".
	Row, Figure string
	// Outcome is "lead", "equivalent", "cannot tell", "no interval" or
	// "not compared" (p99s read at different loads).
	Outcome string
	// Leader is the target ahead: the established leader of a lead,
	// else the one whose mean is better ("" when none).
	Leader string
	// Workload and Params identify the row as its trials do, so that a
	// run can add repetitions of this row alone.
	Workload string
	Params   []results.Param
	// Repetitions is the fewest any target has of the row; Needed, for
	// "cannot tell", the repetitions a side that would likely decide it
	// at the spread seen (decide.Judgement.Needed: above
	// decide.MaxNeeded when repeating cannot).
	Repetitions, Needed int
}

// Decided reports whether the finding is a lead or equivalence.
func (f Finding) Decided() bool { return f.Outcome == "lead" || f.Outcome == "equivalent" }

// Findings are the verdict's judgements of every row compared on two
// targets or more: throughput, then p99, row by row.
func Findings(d *results.Data) []Finding {
	s := summarize(d)
	var out []Finding
	for _, r := range s.rows {
		if r.measured < 2 {
			continue
		}
		for _, f := range []struct {
			figure string
			j      judgement
		}{{"throughput", r.throughputJudgement(r.rule)}, {"p99", r.p99Judgement(r.rule)}} {
			if f.j.lead == leadNone {
				continue
			}
			fd := Finding{Row: r.label, Figure: f.figure, Outcome: outcomeOf(f.j.lead),
				Workload: r.workload, Params: r.params, Repetitions: r.fewest(), Needed: f.j.j.Needed}
			if f.j.best >= 0 && f.j.lead != leadEquivalent && f.j.lead != leadUnlike {
				fd.Leader = s.targets[f.j.best]
			}
			out = append(out, fd)
		}
	}
	return out
}

// outcomeOf names a lead as Finding does.
func outcomeOf(l lead) string {
	switch l {
	case leadEstablished:
		return "lead"
	case leadEquivalent:
		return "equivalent"
	case leadIndistinct:
		return "cannot tell"
	case leadUnlike:
		return "not compared"
	}
	return "no interval"
}

// Undecided lists the rows (workloads at their matrix points) whose
// throughput comparison is not decided: the repetitions cannot tell, or
// a side has too few of them for an interval. It is the verdict's
// judgement: run.repetitions: auto adds rounds of these rows until it is
// empty.
func Undecided(d *results.Data) []Finding {
	var out []Finding
	for _, f := range Findings(d) {
		if f.Figure == "throughput" && !f.Decided() {
			out = append(out, f)
		}
	}
	return out
}

// fewest is the fewest repetitions with a throughput any target has of
// the row.
func (r *row) fewest() int {
	n := -1
	for _, c := range r.cells {
		if n < 0 || c.n < n {
			n = c.n
		}
	}
	return max(n, 0)
}

// limits are the verdict's lines on what limits its confidence: targets
// whose warm-up never settled, repetitions far outside their siblings
// and their cause, rounds stopped by the budget, targets that ran apart.
func limits(s *summary, d *results.Data) []string {
	var out []string
	for _, t := range d.Manifest.Targets {
		if pw := t.Prewarm; pw != nil && !pw.Settled && len(pw.Blocks) > 0 {
			out = append(out, fmt.Sprintf("%s's warm-up was still moving at its limit (%s; last blocks %s ops/s): its trials may describe a database still warming up (a JIT compiling, caches filling), or a machine that would not keep still",
				t.Name, fmtSeconds(float64(len(pw.Blocks))*pw.BlockSeconds), lastBlocks(pw.Blocks, 3)))
		}
	}
	for _, o := range outliers(d, s) {
		out = append(out, o.String())
	}
	if r := d.Manifest.Run; r != nil {
		if r.RepetitionsAuto && r.Stopped != "" && strings.Contains(r.Stopped, "budget") {
			out = append(out, "the rounds stopped at the budget: "+r.Stopped)
		}
		if r.Apart != "" && len(s.targets) > 1 {
			out = append(out, "the targets ran one after another ("+r.Apart+"): a machine that drifted meanwhile reads as a difference between them")
		}
	}
	return out
}

// lastBlocks writes the last n block rates: "1,919, 4,558, 724".
func lastBlocks(xs []float64, n int) string {
	var parts []string
	for _, x := range xs[max(len(xs)-n, 0):] {
		parts = append(parts, fmtRate(x))
	}
	return strings.Join(parts, ", ")
}

// advice says, for each workload the throughput comparison leaves
// undecided, why (the spread, a drift across the rounds, a repetition
// far outside its siblings) and what would decide it: about how many
// rounds, from the spread seen.
func advice(s *summary, d *results.Data) []string {
	var out []string
	far := map[string][]outlier{}
	for _, o := range outliers(d, s) {
		far[o.row] = append(far[o.row], o)
	}
	for _, r := range s.rows {
		if r.measured < 2 {
			continue
		}
		j := r.throughputJudgement(r.rule)
		if j.lead != leadIndistinct {
			continue
		}
		var why []string
		for _, i := range []int{j.best, j.other} {
			c := &r.cells[i]
			why = append(why, fmt.Sprintf("%s ±%.0f%% over %s", s.targets[i], 100*c.std/c.mean, plural.Count(c.n, "repetition")))
			if tr := steady.Fit(c.roundRates()); tr.Trending() {
				why = append(why, fmt.Sprintf("%s drifted %+.0f%% across the rounds", s.targets[i], 100*tr.Drift))
			}
		}
		for _, o := range far[r.label] {
			why = append(why, o.trial.ID+" far outside its siblings")
		}
		what := "more rounds would decide it"
		switch {
		case j.j.Needed > decide.MaxNeeded && nearMargin(j.j.Ratio, j.j.Margin):
			what = fmt.Sprintf("more than %d repetitions a side would be needed at this spread, the ratio being near the ±%s margin's edge: find what spreads them (the limits above)", decide.MaxNeeded, marginText(s))
		case j.j.Needed > decide.MaxNeeded:
			what = fmt.Sprintf("more than %d repetitions a side would be needed at this spread: find what spreads them (the limits above)", decide.MaxNeeded)
		case j.j.Needed > 0:
			what = fmt.Sprintf("about %d repetitions a side would decide it, at this spread (run.repetitions: auto with a run.budget that holds them)", j.j.Needed)
		}
		out = append(out, fmt.Sprintf("%s: cannot tell (%s): %s", r.label, strings.Join(why, "; "), what))
	}
	return out
}

// nearMargin reports whether a ratio lies between half and twice the
// equivalence margin from 1x, on the log scale: where neither a lead nor
// equivalence comes within reach of a few more repetitions.
func nearMargin(ratio, margin float64) bool {
	d, m := math.Abs(math.Log(ratio)), math.Log(1+margin)
	return d >= m/2 && d <= 2*m
}

// roundRates are the cell's throughputs in the order its repetitions
// ran.
func (c *cell) roundRates() []float64 {
	ts := slices.Clone(c.trials)
	slices.SortFunc(ts, func(a, b *results.Trial) int { return a.Start.Compare(b.Start) })
	var xs []float64
	for _, t := range ts {
		if finite(t.Throughput) {
			xs = append(xs, t.Throughput)
		}
	}
	return xs
}

// outlier is a repetition far outside its siblings, and what the
// system metrics say of it.
type outlier struct {
	row   string
	trial *results.Trial
	// ratio is its throughput over its siblings' median.
	ratio, median float64
	cause         string
}

// String says "postgres.c.rep3 at 4,082 ops/s, 0.27x its siblings'
// median of 15,074: other processes took 65% of the machine (its
// siblings: 8%)".
func (o outlier) String() string {
	return fmt.Sprintf("%s at %s ops/s, %s its siblings' median of %s: %s", o.trial.ID, fmtRate(o.trial.Throughput), fmtRatio(o.ratio), fmtRate(o.median), o.cause)
}

// outliers finds the repetitions far outside their siblings in every
// cell of three or more, with their cause.
func outliers(d *results.Data, s *summary) []outlier {
	var out []outlier
	for _, r := range s.rows {
		for i := range r.cells {
			c := &r.cells[i]
			var xs []float64
			var ts []*results.Trial
			for _, t := range c.trials {
				if finite(t.Throughput) && t.Throughput > 0 {
					xs, ts = append(xs, t.Throughput), append(ts, t)
				}
			}
			for _, k := range farOutside(xs) {
				sib := slices.Delete(slices.Clone(ts), k, k+1)
				var rest []float64
				for _, t := range sib {
					rest = append(rest, t.Throughput)
				}
				m := median(rest)
				out = append(out, outlier{row: r.label, trial: ts[k], ratio: ts[k].Throughput / m, median: m, cause: causeOf(d, ts[k], sib)})
			}
		}
	}
	return out
}

// farOutside returns the indexes of xs (positive, three or more) far
// outside the others: at least outlierGap from their median on the log
// scale and at least outlierFactor times as far as any other value.
func farOutside(xs []float64) []int {
	if len(xs) < 3 {
		return nil
	}
	m := median(xs)
	dist := make([]float64, len(xs))
	for i, x := range xs {
		dist[i] = math.Abs(math.Log(x / m))
	}
	var out []int
	for i := range xs {
		if dist[i] < math.Log(1+outlierGap) {
			continue
		}
		far := true
		for j := range xs {
			if j != i && dist[i] < outlierFactor*dist[j] {
				far = false
				break
			}
		}
		if far {
			out = append(out, i)
		}
	}
	return out
}

// median of xs (not empty).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// causeOf says what the system metrics show of a repetition beside its
// siblings: its interference flag, or more CPU taken by processes
// outside the benchmark, or a database that used less CPU; else that
// none was found.
func causeOf(d *results.Data, t *results.Trial, siblings []*results.Trial) string {
	for _, f := range t.Flags {
		if f.Kind() == results.FlagInterfered {
			return f.Details()
		}
	}
	mine := usageOf(d, t)
	var others, db []float64
	for _, sib := range siblings {
		u := usageOf(d, sib)
		others, db = append(others, u.others), append(db, u.db)
	}
	if finite(mine.others) && len(others) > 0 {
		if m := median(others); mine.others-m >= causeCPU {
			return fmt.Sprintf("other processes took %.0f%% of the machine's CPU meanwhile (its siblings: %.0f%%)", mine.others, m)
		}
	}
	if finite(mine.db) && len(db) > 0 {
		if m := median(db); m-mine.db >= causeCPU {
			return fmt.Sprintf("the database used %.0f%% CPU (its siblings: %.0f%%): it waited on something other than its CPU", mine.db, m)
		}
	}
	return "no cause found in the system metrics"
}

// trialUsage is a trial's mean CPU over its measured window: its
// database hosts', and what the machine spent outside the benchmark.
type trialUsage struct{ db, others float64 }

// usageOf reads a trial's window (the samples that began inside it)
// from sysmetrics.csv's rows.
func usageOf(d *results.Data, t *results.Trial) trialUsage {
	hosts := map[string]bool{}
	for _, ti := range d.Manifest.Targets {
		if ti.Name == t.Target {
			for _, h := range ti.Hosts {
				hosts[h] = true
			}
		}
	}
	from := t.End.Add(-t.Duration).Add(time.Second)
	var machine, loader, dbs, mine []float64
	bySecond := map[time.Time]bool{}
	for i := range d.Sys {
		x := &d.Sys[i]
		if x.Time.Before(from) || x.Time.After(t.End) || !finite(x.CPUPercent) {
			continue
		}
		bySecond[x.Time.Truncate(time.Second)] = true
		switch {
		case x.Role == "machine":
			machine = append(machine, x.CPUPercent)
		case x.Role == "loader":
			loader = append(loader, x.CPUPercent)
		case x.Role == "database":
			dbs = append(dbs, x.CPUPercent)
			if hosts[x.Host] {
				mine = append(mine, x.CPUPercent)
			}
		}
	}
	u := trialUsage{db: math.NaN(), others: math.NaN()}
	n := float64(len(bySecond))
	if len(mine) > 0 {
		u.db = sum(mine) / n
	}
	if len(machine) > 0 {
		u.others = math.Max((sum(machine)-sum(loader)-sum(dbs))/float64(len(machine)), 0)
	}
	return u
}

func sum(xs []float64) float64 {
	var t float64
	for _, x := range xs {
		t += x
	}
	return t
}
