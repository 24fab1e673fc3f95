// Package usl fits Neil Gunther's Universal Scalability Law,
//
//	X(N) = λN / (1 + σ(N-1) + κN(N-1)),
//
// to throughput X measured at concurrency N (clients, threads or nodes):
// λ is the throughput of one, σ the contention (the serial share, as in
// Amdahl's law) and κ the coherency cost (crosstalk that makes throughput
// fall past a peak at N* = sqrt((1-σ)/κ)).
//
// The fit is nonlinear least squares (Levenberg-Marquardt) with σ and κ
// kept at or above zero, since negative values have no physical meaning.
// When κ's best value under that bound is 0 the result is Amdahl's law,
// and says so. The unconstrained fit is run too, and when it would have
// gone negative the result says so and why that happens, rather than
// printing a coefficient nobody can explain (a published YugabyteDB
// study got a negative κ from an online calculator and was left
// puzzled).
//
// On SPEC SDM91 and the ray-tracer benchmark, the datasets the R package
// usl ships, the coefficients, standard errors, residual standard error
// and peak agree with the ones that package publishes, at the precision
// it prints them (up to six significant digits; see the tests).
package usl

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Point is one measurement: throughput X at concurrency N.
type Point struct{ N, X float64 }

// Model names, as found in Fit.Model.
const (
	ModelUSL    = "usl"
	ModelAmdahl = "amdahl"
)

// Fit is the result of fitting the law to points.
type Fit struct {
	// Lambda is the throughput at N = 1, Sigma the contention, Kappa the
	// coherency cost.
	Lambda, Sigma, Kappa float64
	// Standard errors, from s²(JᵀJ)⁻¹ with the Jacobian J at the
	// solution. NaN for a parameter held at its bound (0), where that
	// formula describes a parameter that is not free and would mislead,
	// and for all of them when there are no residual degrees of freedom.
	LambdaErr, SigmaErr, KappaErr float64
	// R2 is the coefficient of determination, RSE the residual standard
	// error s = sqrt(RSS/DF).
	R2, RSE float64
	// DF is the residual degrees of freedom: the points less the
	// parameters estimated, not counting one held at its bound.
	DF int
	// Model is ModelUSL, or ModelAmdahl when κ is 0: no coherency cost,
	// throughput approaches λ/σ and never falls.
	Model string
	// Peak is N* = sqrt((1-σ)/κ) and PeakX the throughput there; NaN
	// without a peak (κ = 0, or σ >= 1).
	Peak, PeakX float64
	// Unconstrained is the plain least-squares fit with the bounds on σ
	// and κ lifted (κ stays 0 for FitAmdahl); NaN when it failed.
	Unconstrained struct{ Lambda, Sigma, Kappa float64 }
	// Notes explain, in plain words, anything a reader should know
	// about the fit: the fallback to Amdahl's law, a coefficient the
	// unconstrained fit would have made negative and why, a peak that
	// is an extrapolation.
	Notes []string
	// N is the number of points fitted.
	N int
	// cov is s²(JᵀJ)⁻¹ over the estimated parameters (zero rows and
	// columns for the others), for prediction intervals; covOK says it
	// could be computed.
	cov   [3][3]float64
	covOK bool
}

// Interval is the prediction interval at level (0.9: 90%) for one new
// measurement at concurrency n: the fitted value ± t(DF) sqrt(s² +
// gᵀCg), with g the model's gradient in the parameters at n and C their
// covariance (the delta method). It widens away from the points, and
// ok is false when the fit has no residual degrees of freedom or its
// parameters could not be told apart: a curve through every point says
// nothing of its own error.
func (f *Fit) Interval(n, level float64) (lo, hi float64, ok bool) {
	if !f.covOK || f.DF <= 0 || !(level > 0 && level < 1) || !(n > 0) {
		return math.NaN(), math.NaN(), false
	}
	p := params{f.Lambda, f.Sigma, f.Kappa}
	g := jacobianRow(p, n)
	v := f.RSE * f.RSE
	for i := range 3 {
		for j := range 3 {
			v += g[i] * f.cov[i][j] * g[j]
		}
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(f.DF)}.Quantile((1 + level) / 2)
	x, h := f.Predict(n), t*math.Sqrt(math.Max(v, 0))
	return x - h, x + h, true
}

// Predict returns the fitted throughput at concurrency n.
func (f *Fit) Predict(n float64) float64 {
	return model(params{f.Lambda, f.Sigma, f.Kappa}, n)
}

// FitPoints fits the law to pts, which need at least 3 distinct values of
// N (repeated N are repetitions and all count). When the best κ ≥ 0 is
// 0 the result is Amdahl's law, with a note.
func FitPoints(pts []Point) (*Fit, error) {
	if err := check(pts, 3); err != nil {
		return nil, err
	}
	scaled, c := rescale(pts)
	f, err := fitPoints(scaled)
	if err != nil {
		return nil, err
	}
	if err := f.scale(c); err != nil {
		return nil, err
	}
	if f.Model == ModelAmdahl {
		f.Notes = append([]string{"κ's best value (with κ ≥ 0) is 0: no coherency cost shows in these points, so this is Amdahl's law" + limitPhrase(f)}, f.Notes...)
	}
	return f, nil
}

// rescale divides every throughput by the largest, so that the fit's
// squares neither underflow (throughputs near 1e-300 gave a NaN R²) nor
// overflow, and returns that factor. The law is linear in λ: scaling X
// scales λ, its error, the residuals and the peak's X by the same factor
// and leaves σ, κ and R² as they are.
func rescale(pts []Point) ([]Point, float64) {
	c := 0.0
	for _, q := range pts {
		c = math.Max(c, q.X)
	}
	out := make([]Point, len(pts))
	for i, q := range pts {
		out[i] = Point{N: q.N, X: q.X / c}
	}
	return out, c
}

// scale puts a fit of points rescaled by c back in their units. It
// fails when λ does not fit in a float64 there: points spanning hundreds
// of orders of magnitude make a curve no measurement describes.
func (f *Fit) scale(c float64) error {
	f.Lambda *= c
	f.LambdaErr *= c
	for i := range 3 {
		f.cov[iLambda][i] *= c
		f.cov[i][iLambda] *= c
	}
	f.RSE *= c
	f.PeakX *= c
	f.Unconstrained.Lambda *= c
	if math.IsInf(f.Lambda, 0) || math.IsNaN(f.Lambda) {
		return fmt.Errorf("usl: %d points: the fitted λ is beyond a float64 in the points' units (their throughputs span too many orders of magnitude to be one system's)", f.N)
	}
	return nil
}

// fitPoints is FitPoints of checked, rescaled points, without the note
// that quotes λ.
func fitPoints(pts []Point) (*Fit, error) {
	all := [3]bool{true, true, true}
	p, ok := problem{pts: pts, free: all, bounded: true}.best(starts(pts, true))
	if !ok {
		return nil, fmt.Errorf("usl: %d points: the fit did not converge", len(pts))
	}
	if p[iKappa] > 0 && !negligibleKappa(pts, p) {
		f := finish(pts, p, all, ModelUSL)
		f.unconstrained(pts, all, p)
		return f, nil
	}
	// κ's best value is 0: refit with κ fixed, so the result is Amdahl's
	// law exactly and its degrees of freedom count two parameters.
	free := [3]bool{true, true, false}
	p[iKappa] = 0
	if q, ok := (problem{pts: pts, free: free, bounded: true}).best([]params{p}); ok {
		p = q
	}
	f := finish(pts, p, free, ModelAmdahl)
	f.unconstrained(pts, all, p)
	return f, nil
}

// FitAmdahl fits Amdahl's law, the law with κ fixed at 0, to pts, which
// need at least 2 distinct values of N: for sweeps too short to show a
// coherency cost, or to compare with FitPoints.
func FitAmdahl(pts []Point) (*Fit, error) {
	if err := check(pts, 2); err != nil {
		return nil, err
	}
	pts, c := rescale(pts)
	free := [3]bool{true, true, false}
	var st []params
	for _, s := range starts(pts, true) {
		st = append(st, params{s[iLambda], s[iSigma], 0})
	}
	p, ok := problem{pts: pts, free: free, bounded: true}.best(st)
	if !ok {
		return nil, fmt.Errorf("usl: %d points: the Amdahl fit did not converge", len(pts))
	}
	f := finish(pts, p, free, ModelAmdahl)
	f.unconstrained(pts, free, p)
	if err := f.scale(c); err != nil {
		return nil, err
	}
	f.Notes = append([]string{"Amdahl's law, as asked: κ is fixed at 0" + limitPhrase(f)}, f.Notes...)
	return f, nil
}

// limitPhrase says where an Amdahl curve levels off.
func limitPhrase(f *Fit) string {
	if f.Sigma > 0 {
		return fmt.Sprintf("; throughput approaches λ/σ = %.4g and has no peak", f.Lambda/f.Sigma)
	}
	return "; σ is 0 too, so the fitted curve is linear scaling, X = λN"
}

// negligibleKappa reports whether the coherency term changes no point's
// prediction by more than a millionth. An exact Amdahl curve leaves κ at
// a rounding-size positive value rather than at 0, and a coherency cost
// that small is not one anybody could measure.
func negligibleKappa(pts []Point, p params) bool {
	for _, q := range pts {
		if p[iKappa]*q.N*(q.N-1) > 1e-6*(1+p[iSigma]*(q.N-1)) {
			return false
		}
	}
	return true
}

// finish builds the Fit for the solution p of a fit over the free
// parameters: statistics, peak and the notes that depend on them.
func finish(pts []Point, p params, free [3]bool, name string) *Fit {
	f := &Fit{N: len(pts), Model: name, Lambda: p[iLambda], Sigma: p[iSigma], Kappa: p[iKappa]}
	// A σ held at its bound is not estimated: leave it out of the
	// degrees of freedom and the covariance, like κ in Amdahl's law.
	est := free
	if p[iSigma] <= 0 {
		est[iSigma] = false
	}
	f.stats(pts, p, est)
	f.Peak, f.PeakX = math.NaN(), math.NaN()
	maxN := 0.0
	for _, q := range pts {
		maxN = math.Max(maxN, q.N)
	}
	switch {
	case f.Kappa > 0 && f.Sigma < 1:
		f.Peak = math.Sqrt((1 - f.Sigma) / f.Kappa)
		f.PeakX = f.Predict(f.Peak)
		if f.Peak > maxN {
			f.Notes = append(f.Notes, fmt.Sprintf("the peak at N = %.4g lies beyond the largest N measured (%g): it is an extrapolation", f.Peak, maxN))
		}
	case f.Sigma >= 1:
		f.Notes = append(f.Notes, fmt.Sprintf("σ is %.3g, at least 1: throughput never rises above its value at N = 1, so there is no peak", f.Sigma))
	}
	switch {
	case f.DF <= 0:
		f.Notes = append(f.Notes, fmt.Sprintf("%d points for %d parameters: the curve passes through every point, so there are no standard errors", f.N, f.N-f.DF))
	case len(pts) < 6:
		f.Notes = append(f.Notes, fmt.Sprintf("only %d points: the coefficients are rough; 6 or more, some past the peak, pin them down", f.N))
	}
	return f
}

// stats fills R², the residual standard error, the degrees of freedom
// and the standard errors of the estimated parameters est.
func (f *Fit) stats(pts []Point, p params, est [3]bool) {
	var sse, mean, sst float64
	for _, q := range pts {
		mean += q.X
	}
	mean /= float64(len(pts))
	for _, q := range pts {
		r := q.X - model(p, q.N)
		sse += r * r
		sst += (q.X - mean) * (q.X - mean)
	}
	f.R2 = math.NaN() // all X equal: nothing to explain
	if sst > 0 {
		f.R2 = 1 - sse/sst
	}
	var idx []int
	for i, e := range est {
		if e {
			idx = append(idx, i)
		}
	}
	f.DF = len(pts) - len(idx)
	f.LambdaErr, f.SigmaErr, f.KappaErr = math.NaN(), math.NaN(), math.NaN()
	f.RSE = math.NaN()
	if f.DF <= 0 {
		return
	}
	s2 := sse / float64(f.DF)
	f.RSE = math.Sqrt(s2)
	cov, err := covariance(pts, p, idx, s2)
	if err != nil {
		f.Notes = append(f.Notes, "the parameters cannot be told apart in these points (the Jacobian is singular): no standard errors")
		return
	}
	se := make([]float64, len(idx))
	for a, i := range idx {
		se[a] = math.Sqrt(cov.At(a, a))
		for b, j := range idx {
			f.cov[i][j] = cov.At(a, b)
		}
	}
	f.covOK = true
	for k, i := range idx {
		switch i {
		case iLambda:
			f.LambdaErr = se[k]
		case iSigma:
			f.SigmaErr = se[k]
		case iKappa:
			f.KappaErr = se[k]
		}
	}
}

// check validates the points for a fit of minDistinct parameters.
func check(pts []Point, minDistinct int) error {
	if len(pts) < minDistinct {
		return fmt.Errorf("usl: %d points: want at least %d (better 6 or more, some past the peak)", len(pts), minDistinct)
	}
	var ns []float64
	for i, q := range pts {
		if !(q.N > 0) || math.IsInf(q.N, 0) {
			return fmt.Errorf("usl: point %d: N=%v: want a positive, finite concurrency", i+1, q.N)
		}
		if !(q.X > 0) || math.IsInf(q.X, 0) {
			return fmt.Errorf("usl: point %d (N=%v): X=%v: want a positive, finite throughput", i+1, q.N, q.X)
		}
		ns = append(ns, q.N)
	}
	slices.Sort(ns)
	ns = slices.Compact(ns)
	switch {
	case len(ns) == 1:
		return fmt.Errorf("usl: all %d points have N=%v: the law needs throughput at several concurrencies", len(pts), ns[0])
	case len(ns) < minDistinct:
		return fmt.Errorf("usl: only %d distinct values of N %v: %d parameters need at least %d (FitAmdahl, with κ = 0, needs 2)", len(ns), ns, minDistinct, minDistinct)
	}
	return nil
}

// covariance returns s²(JᵀJ)⁻¹ over the parameters idx. JᵀJ is scaled
// to unit diagonal before it is inverted: λ, σ and κ differ by orders of
// magnitude, and unscaled the matrix looks near-singular when it is only
// badly scaled.
func covariance(pts []Point, p params, idx []int, s2 float64) (*mat.Dense, error) {
	k := len(idx)
	jtj, _ := problem{pts: pts}.normal(p)
	d := make([]float64, k)
	for a, i := range idx {
		d[a] = math.Sqrt(jtj[i][i])
		if !(d[a] > 0) {
			return nil, errors.New("usl: a parameter has no effect on the fit")
		}
	}
	m := mat.NewDense(k, k, nil)
	for a, i := range idx {
		for b, j := range idx {
			m.Set(a, b, jtj[i][j]/(d[a]*d[b]))
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(m); err != nil {
		return nil, fmt.Errorf("usl: invert JᵀJ: %w", err)
	}
	cov := mat.NewDense(k, k, nil)
	for a := range idx {
		for b := range idx {
			cov.Set(a, b, s2*inv.At(a, b)/(d[a]*d[b]))
		}
	}
	return cov, nil
}
