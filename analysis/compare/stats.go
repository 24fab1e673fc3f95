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

// relativeCI returns Delta = (meanB - meanA) / meanA and a Welch
// confidence interval for it at level. Both sides need two repetitions
// or more and a non-zero mean in A.
//
// Why the delta method rather than a t interval on log ratios: the number
// the table prints is the ratio of arithmetic means (the throughput a
// reader would quote), and the delta method gives an interval for
// exactly that number, centred on it. An interval on mean log values is
// one for the ratio of geometric means, a different quantity, so a row
// could read "+10.0% [+10.2%, +14.1%]": its own point estimate outside
// its interval. The price is symmetry: the log interval would be
// asymmetric, as a ratio's should be. That matters only when the
// standard error is a sizeable fraction of the change, and repetitions of
// a benchmark usually agree within a few per cent, where the first-order
// error is far smaller than the uncertainty of the t quantile itself
// with three to five repetitions.
//
// Why not the Welch interval for meanB - meanA divided by meanA: that
// treats A's mean as exact. The delta method's first-order expansion of
// R = meanB/meanA,
//
//	Var(R) ≈ Var(meanB)/meanA² + meanB²·Var(meanA)/meanA⁴,
//
// keeps A's uncertainty, and reduces to that interval when A does not
// vary. Each side contributes one variance term,
//
//	vB = sB² / (nB·meanA²),   vA = R²·sA² / (nA·meanA²),
//
// and, as in Welch's test, the variances are not assumed equal: the
// degrees of freedom are Welch-Satterthwaite's for this sum,
//
//	df = (vA + vB)² / (vA²/(nA-1) + vB²/(nB-1)),
//
// and the interval is Delta ± t(1-(1-level)/2, df)·sqrt(vA + vB).
func relativeCI(a, b Summary, level float64) interval {
	r := b.Mean / a.Mean
	iv := interval{Delta: r - 1}
	mA2 := a.Mean * a.Mean
	vB := b.StdDev * b.StdDev / (float64(b.N) * mA2)
	vA := r * r * a.StdDev * a.StdDev / (float64(a.N) * mA2)
	se := math.Sqrt(vA + vB)
	if se == 0 {
		// Identical repetitions on both sides: the data show no noise,
		// so the interval is the point itself.
		iv.Low, iv.High, iv.DF = iv.Delta, iv.Delta, math.Inf(1)
		return iv
	}
	iv.DF = (vA + vB) * (vA + vB) / (vA*vA/float64(a.N-1) + vB*vB/float64(b.N-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: iv.DF}.Quantile(1 - (1-level)/2)
	iv.Low, iv.High = iv.Delta-t*se, iv.Delta+t*se
	return iv
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
