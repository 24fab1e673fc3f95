package compare

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Summary describes one side's repetitions of one metric.
type Summary struct {
	// N is the number of repetitions that had a value.
	N int
	// Mean is their mean (NaN when N is 0), StdDev their sample standard
	// deviation, with N-1 in the denominator (NaN when N < 2: one
	// repetition says nothing about the spread).
	Mean, StdDev float64
}

func summarize(xs []float64) Summary {
	s := Summary{N: len(xs), Mean: math.NaN(), StdDev: math.NaN()}
	switch len(xs) {
	case 0:
	case 1:
		s.Mean = xs[0]
	default:
		s.Mean, s.StdDev = stat.MeanStdDev(xs, nil)
	}
	return s
}

// interval is the relative change of B's mean over A's with its
// confidence interval.
type interval struct {
	Delta, Low, High float64
	// DF is the Welch-Satterthwaite degrees of freedom (+Inf when neither
	// side varies, so that there is nothing to estimate).
	DF float64
}

// relativeCI returns Delta = meanB / meanA - 1 and a Welch confidence
// interval for it at level, computed on the log of the ratio and mapped
// back. Both sides need two repetitions or more and a non-zero mean in A.
//
// Why the log of the ratio: a ratio of positive figures lives on
// (0, +Inf), and an interval computed on the ratio itself is symmetric
// around it, so a noisy tail latency printed "+4.9% [-136.0%, +145.8%]":
// a lower bound no latency can reach. On the log scale the interval is
// symmetric, and mapped back it is asymmetric as a ratio's should be and
// can never go below -100%.
//
// Why centred on log(meanB/meanA) rather than on the difference of mean
// log values: the number the table prints is the ratio of arithmetic
// means (the throughput a reader would quote). An interval on mean log
// values is one for the ratio of geometric means, a different quantity,
// so a row could read "+10.0% [+10.2%, +14.1%]": its own point estimate
// outside its interval. Centred on the printed ratio it always holds it.
//
// The standard error comes from the delta method: to first order
//
//	Var(log R) ≈ Var(meanB)/meanB² + Var(meanA)/meanA²,
//
// which keeps A's uncertainty as well as B's. Each side contributes one
// term, the square of its mean's relative standard error,
//
//	vA = sA² / (nA·meanA²),   vB = sB² / (nB·meanB²),
//
// and, as in Welch's test, the variances are not assumed equal: the
// degrees of freedom are Welch-Satterthwaite's for this sum,
//
//	df = (vA + vB)² / (vA²/(nA-1) + vB²/(nB-1)),
//
// and the interval is exp(log R ± t(1-(1-level)/2, df)·sqrt(vA + vB)) - 1.
func relativeCI(a, b Summary, level float64) interval {
	r := b.Mean / a.Mean
	iv := interval{Delta: r - 1, DF: math.Inf(1)}
	lo, hi, df := ratioInterval(a, b, level)
	iv.Low, iv.High = lo-1, hi-1
	if df > 0 {
		iv.DF = df
	}
	return iv
}

// RatioInterval is the confidence interval at level of b.Mean / a.Mean,
// computed as relativeCI's is (a Welch t interval on the log ratio).
// ok is false unless both sides have two or more repetitions and
// positive means. The report's verdict gives its ratios with it.
func RatioInterval(a, b Summary, level float64) (low, high float64, ok bool) {
	if a.N < 2 || b.N < 2 || !(a.Mean > 0) || !(b.Mean > 0) || math.IsNaN(a.StdDev) || math.IsNaN(b.StdDev) {
		return 0, 0, false
	}
	low, high, _ = ratioInterval(a, b, level)
	return low, high, true
}

// ratioInterval is the interval of r = b.Mean/a.Mean and the
// Welch-Satterthwaite degrees of freedom (0 when there is nothing to
// estimate: B all zero, or no noise on either side, where the interval
// is the point).
func ratioInterval(a, b Summary, level float64) (low, high, df float64) {
	r := b.Mean / a.Mean
	if r <= 0 {
		// Every repetition of B measured 0 (the figures are never
		// negative): the ratio is 0 whatever A's noise, and its log
		// has no interval.
		return r, r, 0
	}
	vA := a.StdDev * a.StdDev / (float64(a.N) * a.Mean * a.Mean)
	vB := b.StdDev * b.StdDev / (float64(b.N) * b.Mean * b.Mean)
	se := math.Sqrt(vA + vB)
	if se == 0 {
		// Identical repetitions on both sides: the data show no noise,
		// so the interval is the point itself.
		return r, r, 0
	}
	df = (vA + vB) * (vA + vB) / (vA*vA/float64(a.N-1) + vB*vB/float64(b.N-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-level)/2)
	return math.Exp(math.Log(r) - t*se), math.Exp(math.Log(r) + t*se), df
}

// verdict reads an interval: a change counts only when the interval
// excludes 0. For latency, lower is better, so a significant drop is
// "faster".
func verdict(iv interval, lowerIsBetter bool) string {
	up, down := VerdictFaster, VerdictSlower
	if lowerIsBetter {
		up, down = down, up
	}
	switch {
	case iv.Low > 0:
		return up
	case iv.High < 0:
		return down
	default:
		return VerdictNoDifference
	}
}
