package usl

import (
	"fmt"
	"math"
)

// unconstrained runs the fit over free with the bounds on σ and κ lifted,
// records it in f.Unconstrained and explains a coefficient that went
// negative. It starts from the constrained solution as well as from the
// unclamped linearisation, which already points below zero when the
// data do.
func (f *Fit) unconstrained(pts []Point, free [3]bool, constrained params) {
	st := []params{constrained}
	for _, s := range starts(pts, false) {
		if !free[iKappa] {
			s[iKappa] = 0
		}
		st = append(st, s)
	}
	u, ok := problem{pts: pts, free: free}.best(st)
	if !ok {
		u = params{math.NaN(), math.NaN(), math.NaN()}
		f.Notes = append(f.Notes, "the unconstrained fit did not converge, so it cannot tell whether σ or κ would have gone negative")
	}
	f.Unconstrained.Lambda, f.Unconstrained.Sigma, f.Unconstrained.Kappa = u[iLambda], u[iSigma], u[iKappa]
	if ok {
		f.explainNegative(pts)
	}
}

// explainNegative notes an unconstrained σ or κ below zero and the likely
// reason, taken from the shape of the data where it can be: a negative
// coefficient is a symptom of the measurements, not a property of the
// system, and an unexplained one is what leaves readers of USL studies
// puzzled.
func (f *Fit) explainNegative(pts []Point) {
	if f.Unconstrained.Kappa < 0 {
		why := "throughput grows faster than the law allows at the top of the data: noise, too few points past the peak, " +
			"or a real superlinear effect such as more cache or memory as nodes are added"
		if n, rising := stillRising(pts); rising {
			why += fmt.Sprintf(" (here throughput is highest at the largest N measured, %g: no point shows a fall past a peak)", n)
		}
		f.Notes = append(f.Notes, fmt.Sprintf("unconstrained, κ would be %.3g, which no real system has; it means %s. %s", f.Unconstrained.Kappa, why, held("κ", f.Kappa)))
	}
	if f.Unconstrained.Sigma < 0 {
		why := "a speed-up faster than linear at low concurrency, most often because the first point is depressed " +
			"(measured cold, before warm-up, or limited by the client at N = 1)"
		if lo, hi, ratio, ok := superlinearStart(pts); ok {
			why += fmt.Sprintf(" (here throughput per unit of N is %.3g times higher at N = %g than at N = %g)", ratio, hi, lo)
		}
		f.Notes = append(f.Notes, fmt.Sprintf("unconstrained, σ would be %.3g, which no real system has; it means %s. %s", f.Unconstrained.Sigma, why, held("σ", f.Sigma)))
	}
}

// held says what the bounded fit made of a coefficient the unconstrained
// one put below zero: usually 0, but with the other one held at 0 it
// can come out positive.
func held(name string, v float64) string {
	if v == 0 {
		return name + " is held at 0"
	}
	return fmt.Sprintf("with the bounds, %s is %.3g", name, v)
}

// stillRising reports whether the highest throughput (mean over
// repetitions) is at the largest N, and that N.
func stillRising(pts []Point) (float64, bool) {
	means := meanByN(pts)
	maxN, bestN, bestX := 0.0, 0.0, 0.0
	for n, x := range means {
		maxN = math.Max(maxN, n)
		if x > bestX || (x == bestX && n > bestN) {
			bestN, bestX = n, x
		}
	}
	return maxN, bestN == maxN
}

// superlinearStart compares throughput per unit of N (mean over
// repetitions) at the smallest N with the best one elsewhere; ok when
// the best is more than 1% higher.
func superlinearStart(pts []Point) (lo, hi, ratio float64, ok bool) {
	means := meanByN(pts)
	lo = math.Inf(1)
	for n := range means {
		lo = math.Min(lo, n)
	}
	base := means[lo] / lo
	best := base
	for n, x := range means {
		if x/n > best || (x/n == best && n < hi) {
			hi, best = n, x/n
		}
	}
	return lo, hi, best / base, best > 1.01*base
}

// meanByN averages the throughput of repetitions at the same N.
func meanByN(pts []Point) map[float64]float64 {
	sum, cnt := map[float64]float64{}, map[float64]float64{}
	for _, q := range pts {
		sum[q.N] += q.X
		cnt[q.N]++
	}
	for n := range sum {
		sum[n] /= cnt[n]
	}
	return sum
}
