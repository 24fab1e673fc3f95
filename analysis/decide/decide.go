// Package decide judges a comparison of two alternatives from their
// repeated measurements, and says one of three things: one leads (its
// interval of the ratio excludes 1x), the two are equivalent within a
// margin (two one-sided tests: the interval lies inside ±margin), or the
// measurements cannot tell, with how many repetitions would likely
// decide. A wrong answer stated with confidence is worse than none, so a
// lead must clear a stricter level than one look at 95% would ask: the
// verdict looks at the same comparison after every round of a budgeted
// run (Rule.Level is chosen for that, see DefaultLevel), and it makes
// two claims per workload (throughput and p99).
//
// The statistics are those of analysis/compare's run-to-run changes: a
// Welch t interval on the log of the ratio of the means, whose standard
// error comes from the delta method, mapped back, so that an interval of
// a ratio never goes below zero and is as asymmetric as a ratio's
// should be.
//
//	j := decide.Judge(decide.Summarize(a), decide.Summarize(b), decide.Rule{})
//	switch j.Outcome {
//	case decide.Lead:       // B/A = j.Ratio, j.Low..j.High excludes 1
//	case decide.Equivalent: // j.EqLow..j.EqHigh inside 1 ± margin
//	case decide.Undecided:  // j.Needed repetitions a side would likely tell
//	}
package decide

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Defaults of a Rule, documented in docs/guide/repeatability.md.
const (
	// DefaultLevel is the confidence a lead's interval is computed at.
	// A budgeted run looks at each comparison after every round from
	// the third, and a verdict makes two claims per workload: a
	// simulated A/A comparison (TestFalseWinners: identical
	// alternatives on six workloads, lognormal noise of 3% to 10% on
	// throughput and 10% to 30% on p99, throughput judged after rounds 3
	// to 8 until every workload is decided, p99 at the end) named a
	// winner in 8% to 9% of workloads at 95% unmoderated; with leads at
	// 99.5% and moderated spreads in 0.7% to 0.8%, while a 1.6x
	// difference was found in 3 to 3.5 rounds and 1.3x in 97% of runs
	// at 10% noise.
	DefaultLevel = 0.995
	// DefaultMargin is the equivalence margin: two alternatives within
	// ±5% of each other are equivalent for a user choosing between them,
	// and run-to-run noise on a shared machine is of that order.
	DefaultMargin = 0.05
	// EquivalenceLevel is the two one-sided tests' interval: each side
	// at 5%, which is a 90% interval.
	EquivalenceLevel = 0.90
	// MaxNeeded caps the estimate of repetitions that would decide:
	// beyond it, the comparison is as good as undecidable by repeating.
	MaxNeeded = 100
)

// Outcome is what a comparison concluded.
type Outcome string

// Outcomes of Judge.
const (
	// Lead: the interval of the ratio excludes 1x.
	Lead Outcome = "lead"
	// Equivalent: the equivalence interval lies within ±Margin.
	Equivalent Outcome = "equivalent"
	// Undecided: neither; more repetitions may tell (Needed).
	Undecided Outcome = "cannot tell"
	// NoInterval: a side has fewer than two repetitions, or no positive
	// mean, so there is no interval to judge by.
	NoInterval Outcome = "no interval"
)

// Summary describes one alternative's repetitions of one figure.
type Summary struct {
	// N is the number of repetitions; Mean their mean (NaN for none)
	// and StdDev their sample standard deviation (NaN for fewer than
	// two).
	N            int
	Mean, StdDev float64
	// PriorCV and PriorDF, when PriorDF > 0, moderate the spread: the
	// alternative's coefficient of variation over its other
	// comparisons (its other workloads), worth PriorDF degrees of
	// freedom (at most DefaultPriorDF). See Moderate.
	PriorCV, PriorDF float64
}

// DefaultPriorDF is the weight, in degrees of freedom, of the spread an
// alternative showed on its other comparisons beside its own on this
// one: three repetitions have two degrees of freedom, and their 99.5%
// t quantile is 14.1, where six give 4.3. The machine's noise (steal, a
// neighbour, drift) is one per target, so its other workloads say much
// of what this one's spread will be (Smyth's moderated t, 2004). A
// workload never counts as less spread than it showed (Moderate); one
// far noisier than the target's others is still judged a little too
// sure: simulated (TestFalseWinners), a workload at 30% noise among
// others at 5% named a false winner in 4.0% of A/A runs, the others in
// 0.7%.
const DefaultPriorDF = 4

// Prior pools the spreads an alternative showed on its other
// comparisons into the prior of one more: their squared coefficients of
// variation weighted by their degrees of freedom, worth at most
// DefaultPriorDF. Summaries of fewer than two repetitions add nothing;
// with none, df is 0 (no prior).
func Prior(others []Summary) (cv, df float64) {
	var sum, n float64
	for _, o := range others {
		if c := o.CV(); o.N >= 2 && !math.IsNaN(c) {
			sum += float64(o.N-1) * c * c
			n += float64(o.N - 1)
		}
	}
	if n == 0 {
		return 0, 0
	}
	return math.Sqrt(sum / n), math.Min(n, DefaultPriorDF)
}

// Moderate returns s's squared coefficient of variation and its degrees
// of freedom: its own (N-1 of them), or, with a prior, the weighted mean
// of the prior's and its own, with both degrees of freedom.
func (s Summary) Moderate() (cv2, df float64) {
	cv := s.StdDev / s.Mean
	cv2, df = cv*cv, float64(s.N-1)
	if s.PriorDF > 0 && s.PriorCV >= 0 {
		// Never below its own spread: a workload noisier than the
		// target's others keeps its own, with the others' degrees of
		// freedom added.
		cv2 = max((s.PriorDF*s.PriorCV*s.PriorCV+df*cv2)/(s.PriorDF+df), cv2)
		df += s.PriorDF
	}
	return cv2, df
}

// Summarize summarizes xs, leaving out values that are not finite.
func Summarize(xs []float64) Summary {
	var kept []float64
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			kept = append(kept, x)
		}
	}
	s := Summary{N: len(kept), Mean: math.NaN(), StdDev: math.NaN()}
	switch len(kept) {
	case 0:
	case 1:
		s.Mean = kept[0]
	default:
		s.Mean, s.StdDev = stat.MeanStdDev(kept, nil)
	}
	return s
}

// CV is the summary's coefficient of variation (NaN when unknown).
func (s Summary) CV() float64 {
	if s.N < 2 || !(s.Mean > 0) {
		return math.NaN()
	}
	return s.StdDev / s.Mean
}

// Rule is how Judge decides. Zero fields take the defaults.
type Rule struct {
	// Level is the confidence of a lead's interval (DefaultLevel).
	Level float64
	// Margin is the equivalence margin, a fraction (DefaultMargin).
	Margin float64
}

func (r Rule) withDefaults() Rule {
	if !(r.Level > 0 && r.Level < 1) {
		r.Level = DefaultLevel
	}
	if !(r.Margin > 0) {
		r.Margin = DefaultMargin
	}
	return r
}

// Judgement is the comparison of B against A.
type Judgement struct {
	Outcome Outcome
	// Ratio is B's mean over A's (NaN without both).
	Ratio float64
	// Low and High bound Ratio at the rule's Level; EqLow and EqHigh at
	// EquivalenceLevel. All NaN without an interval.
	Low, High, EqLow, EqHigh float64
	// Level and Margin are the rule's, as applied.
	Level, Margin float64
	// Needed is, for an undecided comparison, an estimate of the
	// repetitions each side would need for the interval to decide, from
	// the spread seen and the ratio measured; 0 when decided, and
	// MaxNeeded+1 when more than MaxNeeded would (the ratio sits on the
	// margin's edge, or the spread is too wide).
	Needed int
}

// Judge compares b against a. Equivalence is judged first: a ratio of
// 1.02 [1.01, 1.03] is a lead by its interval and equivalent by the
// margin, and "equivalent within ±5%" is the answer a reader needs.
func Judge(a, b Summary, r Rule) Judgement {
	r = r.withDefaults()
	nan := math.NaN()
	j := Judgement{Outcome: NoInterval, Ratio: nan, Low: nan, High: nan, EqLow: nan, EqHigh: nan, Level: r.Level, Margin: r.Margin}
	if a.N > 0 && b.N > 0 && a.Mean > 0 && b.Mean >= 0 {
		j.Ratio = b.Mean / a.Mean
	}
	lo, hi, ok := RatioInterval(a, b, r.Level)
	if !ok {
		return j
	}
	j.Low, j.High = lo, hi
	j.EqLow, j.EqHigh, _ = RatioInterval(a, b, EquivalenceLevel)
	switch {
	case Within(j.EqLow, j.EqHigh, r.Margin):
		j.Outcome = Equivalent
	case j.Low > 1 || j.High < 1:
		j.Outcome = Lead
	default:
		j.Outcome = Undecided
		j.Needed = needed(a, b, r)
	}
	return j
}

// Within reports whether the interval [lo, hi] of a ratio lies inside
// the equivalence margin: 1/(1+margin) to 1+margin, symmetric on the
// log scale, so that A against B and B against A agree.
func Within(lo, hi, margin float64) bool {
	return lo >= 1/(1+margin) && hi <= 1+margin
}

// RatioInterval is the confidence interval at level of b.Mean / a.Mean:
// a Welch t interval on the log of the ratio, centred on the ratio of
// the means (the figure a reader quotes), its standard error from the
// delta method,
//
//	Var(log R) ≈ sA²/(nA·meanA²) + sB²/(nB·meanB²),
//
// with Welch-Satterthwaite's degrees of freedom. ok is false unless
// both sides have two or more repetitions and positive means. When
// neither side varies the interval is the point.
func RatioInterval(a, b Summary, level float64) (low, high float64, ok bool) {
	if a.N < 2 || b.N < 2 || !(a.Mean > 0) || !(b.Mean > 0) || math.IsNaN(a.StdDev) || math.IsNaN(b.StdDev) {
		return math.NaN(), math.NaN(), false
	}
	r := b.Mean / a.Mean
	se, df := logSE(a, b)
	if se == 0 {
		return r, r, true
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-level)/2)
	return math.Exp(math.Log(r) - t*se), math.Exp(math.Log(r) + t*se), true
}

// logSE is the standard error of the log ratio and its
// Welch-Satterthwaite degrees of freedom, each side's spread moderated
// by its prior (Summary.Moderate).
func logSE(a, b Summary) (se, df float64) {
	ca, da := a.Moderate()
	cb, db := b.Moderate()
	vA, vB := ca/float64(a.N), cb/float64(b.N)
	se = math.Sqrt(vA + vB)
	if se == 0 {
		return 0, math.Inf(1)
	}
	df = (vA + vB) * (vA + vB) / (vA*vA/da + vB*vB/db)
	return se, df
}

// needed estimates the repetitions per side at which the comparison
// would decide if the ratio and each side's coefficient of variation
// stayed as measured: the fewest n whose interval, lead or equivalence,
// would clear its bound. Both bounds only come nearer as n grows, so a
// binary search finds it.
func needed(a, b Summary, r Rule) int {
	ca, _ := a.Moderate()
	cb, _ := b.Moderate()
	d := math.Abs(math.Log(b.Mean / a.Mean))
	eqRoom := math.Log(1+r.Margin) - d
	decides := func(n int) bool {
		se := math.Sqrt((ca + cb) / float64(n))
		df := float64(2*n-2) + a.PriorDF + b.PriorDF
		return (d > 0 && quantile(r.Level, df)*se < d) || (eqRoom > 0 && quantile(EquivalenceLevel, df)*se < eqRoom)
	}
	lo, hi := max(a.N, b.N)+1, MaxNeeded
	if !decides(hi) {
		return MaxNeeded + 1
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if decides(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// quantile is Student's t two-sided critical value at level.
func quantile(level, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-level)/2)
}
