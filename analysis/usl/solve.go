package usl

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// params are λ, σ, κ, in that order.
type params [3]float64

// Parameter indices into params.
const (
	iLambda = iota
	iSigma
	iKappa
)

// model is the law itself, X(n) = λn / (1 + σ(n-1) + κn(n-1)).
func model(p params, n float64) float64 {
	return p[iLambda] * n / (1 + p[iSigma]*(n-1) + p[iKappa]*n*(n-1))
}

// jacobianRow is the gradient of the model in λ, σ, κ at n.
func jacobianRow(p params, n float64) [3]float64 {
	d := 1 + p[iSigma]*(n-1) + p[iKappa]*n*(n-1)
	return [3]float64{n / d, -p[iLambda] * n * (n - 1) / (d * d), -p[iLambda] * n * n * (n - 1) / (d * d)}
}

// problem is one least-squares problem: the points, which parameters
// may move (the others stay at their start), and whether σ and κ are
// held at or above 0.
type problem struct {
	pts     []Point
	free    [3]bool
	bounded bool
}

// sse is the residual sum of squares at p.
func (pr problem) sse(p params) float64 {
	var s float64
	for _, q := range pr.pts {
		r := q.X - model(p, q.N)
		s += r * r
	}
	return s
}

// feasible rejects a non-positive λ and parameters that put a pole of
// the model at or inside the data: the law is only meaningful where its
// denominator is positive.
func (pr problem) feasible(p params) bool {
	if !(p[iLambda] > 0) {
		return false
	}
	for _, q := range pr.pts {
		if !(1+p[iSigma]*(q.N-1)+p[iKappa]*q.N*(q.N-1) > 0) {
			return false
		}
	}
	return true
}

// normal returns JᵀJ and Jᵀr over all three parameters.
func (pr problem) normal(p params) (jtj [3][3]float64, jtr [3]float64) {
	for _, q := range pr.pts {
		g := jacobianRow(p, q.N)
		r := q.X - model(p, q.N)
		for i := range 3 {
			jtr[i] += g[i] * r
			for j := range 3 {
				jtj[i][j] += g[i] * g[j]
			}
		}
	}
	return jtj, jtr
}

// active returns the indices the next step may move: the free ones, less
// a bounded σ or κ that sits at 0 while the descent direction (+Jᵀr)
// points below it. Leaving such a parameter out, rather than stepping
// and clipping, lets the others take a proper Gauss-Newton step, so the
// solver settles on the boundary instead of creeping along it.
func (pr problem) active(p params, jtr [3]float64) []int {
	var idx []int
	for i, fr := range pr.free {
		if !fr {
			continue
		}
		if pr.bounded && i != iLambda && p[i] <= 0 && jtr[i] <= 0 {
			continue
		}
		idx = append(idx, i)
	}
	return idx
}

// solve minimises the residual sum of squares from start by
// Levenberg-Marquardt with Marquardt's diagonal scaling, which matters
// here because λ, σ and κ differ by many orders of magnitude (SPEC SDM91:
// 90, 0.028, 0.0001). Bounds are kept by the active set above and by
// projecting σ and κ onto [0, ∞) after each step. It returns the
// solution, its SSE, and false when start is not feasible or the SSE
// is not a number.
func (pr problem) solve(start params) (params, float64, bool) {
	p := start
	if pr.bounded {
		p[iSigma], p[iKappa] = math.Max(p[iSigma], 0), math.Max(p[iKappa], 0)
	}
	if !pr.feasible(p) {
		return p, math.Inf(1), false
	}
	cur := pr.sse(p)
	mu := 1e-3
	for range 500 {
		jtj, jtr := pr.normal(p)
		idx := pr.active(p, jtr)
		if len(idx) == 0 {
			break
		}
		next, s, ok := pr.step(p, cur, jtj, jtr, idx, &mu)
		if !ok {
			break // no damping finds a better point: a minimum
		}
		// The SSE falls quadratically near the minimum, so a change at
		// rounding level under light damping means there is nothing left
		// to gain; under heavy damping the step was merely short.
		done := cur-s <= 1e-15*cur && mu <= 1
		p, cur = next, s
		if done {
			break
		}
	}
	return p, cur, !math.IsNaN(cur)
}

// step tries ever stronger damping until a step over idx lowers the SSE
// below cur; it returns that point and its SSE, or false.
//
// The damped system (JᵀJ + μ·diag JᵀJ)δ = Jᵀr is solved scaled to a unit
// diagonal: unscaled, JᵀJ for a sweep to N = 512 spans twenty orders of
// magnitude, and a solver that judges conditioning on the raw matrix
// refuses every step.
func (pr problem) step(p params, cur float64, jtj [3][3]float64, jtr [3]float64, idx []int, mu *float64) (params, float64, bool) {
	k := len(idx)
	d := make([]float64, k)
	for r, i := range idx {
		// A floor keeps a zero column (a parameter the data cannot see)
		// from dividing by zero.
		d[r] = math.Sqrt(math.Max(jtj[i][i], 1e-300))
	}
	for range 40 {
		a := mat.NewSymDense(k, nil)
		b := mat.NewVecDense(k, nil)
		for r, i := range idx {
			b.SetVec(r, jtr[i]/d[r])
			for c := r; c < k; c++ {
				a.SetSym(r, c, jtj[i][idx[c]]/(d[r]*d[c]))
			}
			a.SetSym(r, r, 1+*mu)
		}
		var ch mat.Cholesky
		var y mat.VecDense
		if !ch.Factorize(a) || ch.SolveVecTo(&y, b) != nil {
			*mu *= 10
			continue
		}
		next := p
		for r, i := range idx {
			next[i] += y.AtVec(r) / d[r]
		}
		if pr.bounded {
			next[iSigma], next[iKappa] = math.Max(next[iSigma], 0), math.Max(next[iKappa], 0)
		}
		if pr.feasible(next) {
			if s := pr.sse(next); s < cur {
				*mu = math.Max(*mu/10, 1e-12)
				return next, s, true
			}
		}
		*mu *= 10
	}
	return p, cur, false
}

// best solves from each start and keeps the lowest SSE. Several starts
// cost microseconds on a sweep of a dozen points and guard against a
// start that lands in a flat region of the SSE.
func (pr problem) best(starts []params) (params, bool) {
	var sol params
	bestSSE, found := math.Inf(1), false
	for _, s := range starts {
		p, sse, ok := pr.solve(s)
		if ok && sse < bestSSE {
			sol, bestSSE, found = p, sse, true
		}
	}
	return sol, found
}

// starts returns starting points: λ from the best throughput per unit of
// concurrency and from the point at the smallest N, each with σ and κ
// from Gunther's linearisation (clamped at 0 when bounded), plus a
// near-linear start that does not depend on the linearisation at all.
func starts(pts []Point, bounded bool) []params {
	maxRate, lowN, lowX := 0.0, math.Inf(1), 0.0
	for _, q := range pts {
		maxRate = math.Max(maxRate, q.X/q.N)
		if q.N < lowN {
			lowN, lowX = q.N, q.X
		}
	}
	var out []params
	for _, lambda := range []float64{maxRate, lowX / lowN} {
		s, k := linearised(pts, lambda)
		if bounded {
			s, k = math.Max(s, 0), math.Max(k, 0)
		}
		out = append(out, params{lambda, s, k})
	}
	return append(out, params{maxRate, 0, 0})
}

// linearised estimates σ and κ for a given λ by Gunther's transform:
// with the capacity C(N) = X/(λN), N/C - 1 = σ(N-1) + κN(N-1) is linear
// in σ and κ, solved here as least squares without an intercept.
func linearised(pts []Point, lambda float64) (sigma, kappa float64) {
	var a11, a12, a22, b1, b2 float64
	for _, q := range pts {
		y := lambda*q.N*q.N/q.X - 1 // N/C(N) - 1
		u, v := q.N-1, q.N*(q.N-1)
		a11, a12, a22 = a11+u*u, a12+u*v, a22+v*v
		b1, b2 = b1+u*y, b2+v*y
	}
	det := a11*a22 - a12*a12
	if det == 0 || math.IsNaN(det) {
		return 0, 0
	}
	return (b1*a22 - b2*a12) / det, (a11*b2 - a12*b1) / det
}
