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
// kept at or above zero, since negative values have no physical meaning;
// the unconstrained fit is run too, and when it would have gone negative
// the result says so and why that happens, rather than printing a
// coefficient nobody can explain (a published YugabyteDB study got a
// negative κ from an online calculator and was left puzzled).
package usl

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Point is one measurement: throughput X at concurrency N.
type Point struct{ N, X float64 }

// Fit is the result of fitting the law to points.
type Fit struct {
	Lambda, Sigma, Kappa float64
	// Standard errors; NaN for a parameter held at its bound (0), where
	// the usual formula would mislead.
	LambdaErr, SigmaErr, KappaErr float64
	// R2 is the coefficient of determination, RSE the residual standard
	// error on N-p degrees of freedom.
	R2, RSE float64
	// Model is "usl", or "amdahl" when the best κ is 0 (no coherency
	// cost: throughput approaches λ/σ and never falls).
	Model string
	// Peak is N* and PeakX the throughput there; NaN without a peak.
	Peak, PeakX float64
	// Unconstrained is the plain least-squares fit, bounds ignored.
	Unconstrained struct{ Lambda, Sigma, Kappa float64 }
	// Notes explain anything a reader should know about the fit.
	Notes []string
	// N is the number of points fitted.
	N int
}

// params are λ, σ, κ.
type params [3]float64

func model(p params, n float64) float64 {
	return p[0] * n / (1 + p[1]*(n-1) + p[2]*n*(n-1))
}

// Predict returns the fitted throughput at concurrency n.
func (f *Fit) Predict(n float64) float64 {
	return model(params{f.Lambda, f.Sigma, f.Kappa}, n)
}

// FitPoints fits the law to pts (repeated N are fine: repetitions).
func FitPoints(pts []Point) (*Fit, error) {
	if err := check(pts); err != nil {
		return nil, err
	}
	start := initial(pts)
	free := [3]bool{true, true, true}
	p, ok := levenbergMarquardt(pts, start, free, true)
	if !ok {
		return nil, errors.New("usl: the fit did not converge")
	}
	f := &Fit{N: len(pts), Model: "usl", Peak: math.NaN(), PeakX: math.NaN()}
	if negligibleKappa(pts, p) {
		// The coherency term does not help: refit Amdahl's law, with κ
		// fixed, so its standard errors use the right degrees of freedom.
		p[2] = 0
		free[2] = false
		if q, ok := levenbergMarquardt(pts, p, free, true); ok {
			p = q
		}
		f.Model = "amdahl"
		f.Notes = append(f.Notes, "κ is 0 (no coherency cost in these points): the fit is Amdahl's law, throughput approaches λ/σ and has no peak")
	}
	if p[1] <= 0 {
		free[1] = false
	}
	f.Lambda, f.Sigma, f.Kappa = p[0], p[1], p[2]
	f.stats(pts, p, free)
	if f.Kappa > 0 && f.Sigma < 1 {
		f.Peak = math.Sqrt((1 - f.Sigma) / f.Kappa)
		f.PeakX = f.Predict(f.Peak)
	}
	if u, ok := levenbergMarquardt(pts, start, [3]bool{true, true, true}, false); ok {
		f.Unconstrained.Lambda, f.Unconstrained.Sigma, f.Unconstrained.Kappa = u[0], u[1], u[2]
		f.explainNegative(pts)
	}
	return f, nil
}

// negligibleKappa reports whether the coherency term changes no point's
// prediction by more than a millionth: an exact Amdahl curve leaves κ at
// a rounding-size positive value rather than at 0.
func negligibleKappa(pts []Point, p params) bool {
	for _, q := range pts {
		if p[2]*q.N*(q.N-1) > 1e-6*(1+p[1]*(q.N-1)) {
			return false
		}
	}
	return true
}

// explainNegative notes when the unconstrained fit went below zero.
func (f *Fit) explainNegative(pts []Point) {
	maxN := 0.0
	for _, p := range pts {
		maxN = math.Max(maxN, p.N)
	}
	if f.Unconstrained.Kappa < 0 {
		why := "throughput grows faster than the law allows at the top of the data: noise, too few points past the peak, or a superlinear effect such as more cache as nodes are added"
		if !math.IsNaN(f.Peak) && maxN < f.Peak {
			why += fmt.Sprintf(" (the sweep stops at %g, before the fitted peak)", maxN)
		}
		f.Notes = append(f.Notes, fmt.Sprintf("unconstrained, κ would be %.3g (negative: %s); it is held at 0", f.Unconstrained.Kappa, why))
	}
	if f.Unconstrained.Sigma < 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("unconstrained, σ would be %.3g (negative: superlinear speed-up at low concurrency, often a depressed first point, e.g. one measured cold or without warm-up); it is held at 0", f.Unconstrained.Sigma))
	}
}

// stats fills R², RSE and the standard errors.
func (f *Fit) stats(pts []Point, p params, free [3]bool) {
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
	f.R2 = 1 - sse/sst
	k := 0
	for _, fr := range free {
		if fr {
			k++
		}
	}
	dof := len(pts) - k
	f.LambdaErr, f.SigmaErr, f.KappaErr = math.NaN(), math.NaN(), math.NaN()
	if dof <= 0 {
		f.RSE = math.NaN()
		return
	}
	s2 := sse / float64(dof)
	f.RSE = math.Sqrt(s2)
	jtj, idx := normalMatrix(pts, p, free)
	var inv mat.Dense
	if err := inv.Inverse(jtj); err != nil {
		return
	}
	se := func(i int) float64 { return math.Sqrt(s2 * inv.At(i, i)) }
	for j, pi := range idx {
		switch pi {
		case 0:
			f.LambdaErr = se(j)
		case 1:
			f.SigmaErr = se(j)
		case 2:
			f.KappaErr = se(j)
		}
	}
}

// jacobianRow is the gradient of the model in λ, σ, κ at n.
func jacobianRow(p params, n float64) [3]float64 {
	d := 1 + p[1]*(n-1) + p[2]*n*(n-1)
	return [3]float64{n / d, -p[0] * n * (n - 1) / (d * d), -p[0] * n * n * (n - 1) / (d * d)}
}

// normalMatrix is JᵀJ over the free parameters, and their indices.
func normalMatrix(pts []Point, p params, free [3]bool) (*mat.Dense, []int) {
	var idx []int
	for i, fr := range free {
		if fr {
			idx = append(idx, i)
		}
	}
	m := mat.NewDense(len(idx), len(idx), nil)
	for _, q := range pts {
		g := jacobianRow(p, q.N)
		for a, i := range idx {
			for b, j := range idx {
				m.Set(a, b, m.At(a, b)+g[i]*g[j])
			}
		}
	}
	return m, idx
}

// levenbergMarquardt minimises the squared residuals over the free
// parameters from start, damping with Marquardt's diagonal scaling
// (λ, σ and κ differ by orders of magnitude). With bounded, σ and κ are
// projected onto [0, ∞) after each step and λ stays positive.
func levenbergMarquardt(pts []Point, start params, free [3]bool, bounded bool) (params, bool) {
	p := start
	sse := func(p params) float64 {
		var s float64
		for _, q := range pts {
			r := q.X - model(p, q.N)
			s += r * r
		}
		return s
	}
	cur := sse(p)
	mu := 1e-3
	for iter := 0; iter < 1000; iter++ {
		jtj, idx := normalMatrix(pts, p, free)
		k := len(idx)
		jtr := make([]float64, k)
		for _, q := range pts {
			g := jacobianRow(p, q.N)
			r := q.X - model(p, q.N)
			for a, i := range idx {
				jtr[a] += g[i] * r
			}
		}
		improved := false
		for tries := 0; tries < 30; tries++ {
			a := mat.DenseCopyOf(jtj)
			for i := 0; i < k; i++ {
				a.Set(i, i, a.At(i, i)*(1+mu)+1e-300)
			}
			var delta mat.VecDense
			if err := delta.SolveVec(a, mat.NewVecDense(k, jtr)); err != nil {
				mu *= 10
				continue
			}
			next := p
			for a, i := range idx {
				next[i] += delta.AtVec(a)
			}
			if bounded {
				next[1], next[2] = math.Max(next[1], 0), math.Max(next[2], 0)
			}
			if next[0] <= 0 || !validDenominators(pts, next) {
				mu *= 10
				continue
			}
			if s := sse(next); s < cur {
				rel := (cur - s) / math.Max(cur, 1e-300)
				p, cur = next, s
				mu = math.Max(mu/10, 1e-12)
				improved = true
				if rel < 1e-14 {
					return p, true
				}
				break
			}
			mu *= 10
		}
		if !improved {
			return p, !math.IsNaN(cur)
		}
	}
	return p, true
}

// validDenominators rejects parameters that put a pole inside the data.
func validDenominators(pts []Point, p params) bool {
	for _, q := range pts {
		if 1+p[1]*(q.N-1)+p[2]*q.N*(q.N-1) <= 0 {
			return false
		}
	}
	return true
}

// initial estimates λ from the best throughput per unit of concurrency,
// then σ and κ from Gunther's linearisation: with C(N) = X/(λN),
// N/C - 1 = σ(N-1) + κN(N-1), a linear least squares with no intercept.
func initial(pts []Point) params {
	lambda := 0.0
	for _, q := range pts {
		lambda = math.Max(lambda, q.X/q.N)
	}
	var a11, a12, a22, b1, b2 float64
	for _, q := range pts {
		c := q.X / (lambda * q.N)
		y := q.N/c - 1
		u, v := q.N-1, q.N*(q.N-1)
		a11, a12, a22 = a11+u*u, a12+u*v, a22+v*v
		b1, b2 = b1+u*y, b2+v*y
	}
	det := a11*a22 - a12*a12
	sigma, kappa := 0.0, 0.0
	if det != 0 {
		sigma = (b1*a22 - b2*a12) / det
		kappa = (a11*b2 - a12*b1) / det
	}
	return params{lambda, math.Max(sigma, 0), math.Max(kappa, 0)}
}

func check(pts []Point) error {
	if len(pts) < 3 {
		return fmt.Errorf("usl: %d points: want at least 3 (better 6 or more, some past the peak)", len(pts))
	}
	distinct := map[float64]bool{}
	for i, q := range pts {
		if !(q.N > 0) || math.IsInf(q.N, 0) {
			return fmt.Errorf("usl: point %d: N=%v: want a positive concurrency", i+1, q.N)
		}
		if !(q.X > 0) || math.IsInf(q.X, 0) {
			return fmt.Errorf("usl: point %d (N=%v): X=%v: want a positive throughput", i+1, q.N, q.X)
		}
		distinct[q.N] = true
	}
	if len(distinct) < 3 {
		return fmt.Errorf("usl: the points have %d distinct values of N: want at least 3", len(distinct))
	}
	return nil
}

// String summarizes the fit for a terminal.
func (f *Fit) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model   %s, %d points, R² %.4f, residual standard error %.4g\n", f.Model, f.N, f.R2, f.RSE)
	fmt.Fprintf(&b, "lambda  %.6g%s  (throughput of one)\n", f.Lambda, pm(f.LambdaErr))
	fmt.Fprintf(&b, "sigma   %.6g%s  (contention)\n", f.Sigma, pm(f.SigmaErr))
	fmt.Fprintf(&b, "kappa   %.6g%s  (coherency)\n", f.Kappa, pm(f.KappaErr))
	if !math.IsNaN(f.Peak) {
		fmt.Fprintf(&b, "peak    %.4g at N = %.4g\n", f.PeakX, f.Peak)
	} else if f.Sigma > 0 {
		fmt.Fprintf(&b, "peak    none; throughput approaches %.4g (λ/σ)\n", f.Lambda/f.Sigma)
	}
	for _, n := range f.Notes {
		fmt.Fprintf(&b, "note    %s\n", n)
	}
	return b.String()
}

func pm(se float64) string {
	if math.IsNaN(se) {
		return " (at its bound: no standard error)"
	}
	return fmt.Sprintf(" ± %.3g", se)
}
