package usl

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireNote asserts that one of the fit's notes contains part.
func requireNote(t *testing.T, f *Fit, part string) {
	t.Helper()
	for _, n := range f.Notes {
		if strings.Contains(n, part) {
			return
		}
	}
	require.Failf(t, "note not found", "no note contains %q; notes: %q", part, f.Notes)
}

// sweep evaluates the law with p at ns, reps times each.
func sweep(p params, reps int, ns ...float64) []Point {
	var pts []Point
	for _, n := range ns {
		for range reps {
			pts = append(pts, Point{n, model(p, n)})
		}
	}
	return pts
}

func TestRecoversExactCoefficients(t *testing.T) {
	for _, c := range []struct {
		name  string
		truth params
		pts   []Point
	}{
		{"database sweep", params{1200, 0.08, 0.0015}, sweep(params{1200, 0.08, 0.0015}, 1, 1, 2, 4, 8, 16, 24, 32, 48, 64)},
		{"small kappa, wide range", params{5000, 0.02, 1e-5}, sweep(params{5000, 0.02, 1e-5}, 1, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512)},
		{"no N=1 point", params{300, 0.05, 0.002}, sweep(params{300, 0.05, 0.002}, 1, 4, 8, 16, 32, 48, 64)},
		{"repetitions", params{80, 0.1, 0.01}, sweep(params{80, 0.1, 0.01}, 3, 1, 2, 3, 5, 8, 13)},
		{"fractional N", params{1, 0.3, 0.05}, sweep(params{1, 0.3, 0.05}, 1, 0.5, 1, 1.5, 2.5, 4, 6)},
	} {
		t.Run(c.name, func(t *testing.T) {
			fit, err := FitPoints(c.pts)
			require.NoError(t, err)
			require.Equal(t, ModelUSL, fit.Model)
			require.InEpsilon(t, c.truth[iLambda], fit.Lambda, 1e-6)
			require.InEpsilon(t, c.truth[iSigma], fit.Sigma, 1e-6)
			require.InEpsilon(t, c.truth[iKappa], fit.Kappa, 1e-6)
			require.InDelta(t, 1, fit.R2, 1e-9)
			require.InEpsilon(t, math.Sqrt((1-c.truth[iSigma])/c.truth[iKappa]), fit.Peak, 1e-6)
			require.InEpsilon(t, model(c.truth, fit.Peak), fit.PeakX, 1e-6)
			require.Equal(t, len(c.pts)-3, fit.DF)
		})
	}
}

// TestRecoversWithNoise is a property test: 3% multiplicative noise on
// three repetitions per point, 50 seeds; the truth lies within three
// standard errors nearly always and the fit is never wildly off.
func TestRecoversWithNoise(t *testing.T) {
	truth := params{1000, 0.05, 0.001}
	within := 0
	const seeds = 50
	for seed := uint64(1); seed <= seeds; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		pts := sweep(truth, 3, 1, 2, 4, 8, 16, 32, 48, 64, 96)
		for i := range pts {
			pts[i].X *= 1 + 0.03*rng.NormFloat64()
		}
		fit, err := FitPoints(pts)
		require.NoError(t, err)
		require.InEpsilon(t, truth[iLambda], fit.Lambda, 0.1)
		require.InDelta(t, truth[iSigma], fit.Sigma, 0.02)
		require.InDelta(t, truth[iKappa], fit.Kappa, 0.0005)
		if math.Abs(fit.Kappa-truth[iKappa]) <= 3*fit.KappaErr && math.Abs(fit.Sigma-truth[iSigma]) <= 3*fit.SigmaErr {
			within++
		}
	}
	require.GreaterOrEqual(t, within, seeds*9/10, "standard errors are honest")
}

func TestAmdahlFallback(t *testing.T) {
	for _, c := range []struct {
		name  string
		sigma float64
		limit string
	}{
		{"contention", 0.1, "approaches 1000"},
		{"linear", 0, "grows linearly"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fit, err := FitPoints(sweep(params{100, c.sigma, 0}, 1, 1, 2, 4, 8, 16, 32))
			require.NoError(t, err)
			require.Equal(t, ModelAmdahl, fit.Model)
			require.Zero(t, fit.Kappa)
			require.True(t, math.IsNaN(fit.KappaErr))
			require.True(t, math.IsNaN(fit.Peak))
			require.True(t, math.IsNaN(fit.PeakX))
			require.InEpsilon(t, 100, fit.Lambda, 1e-6)
			require.InDelta(t, c.sigma, fit.Sigma, 1e-6*math.Max(c.sigma, 1e-3))
			requireNote(t, fit, "κ's best value (with κ ≥ 0) is 0")
			require.Contains(t, fit.String(), c.limit)
		})
	}
}

func TestFitAmdahl(t *testing.T) {
	t.Run("two points", func(t *testing.T) {
		fit, err := FitAmdahl([]Point{{1, 100}, {10, 500}})
		require.NoError(t, err)
		require.Equal(t, ModelAmdahl, fit.Model)
		require.InEpsilon(t, 100, fit.Lambda, 1e-9)
		require.InEpsilon(t, 1.0/9, fit.Sigma, 1e-6) // 500 = 100·10/(1+9σ)
		require.Zero(t, fit.DF)
		require.True(t, math.IsNaN(fit.LambdaErr))
		require.True(t, math.IsNaN(fit.RSE))
		requireNote(t, fit, "no standard errors")
	})
	t.Run("USL-shaped points", func(t *testing.T) {
		pts := sweep(params{1200, 0.08, 0.0015}, 1, 1, 2, 4, 8, 16, 24, 32, 48, 64)
		fit, err := FitAmdahl(pts)
		require.NoError(t, err)
		require.Zero(t, fit.Kappa)
		require.Zero(t, fit.Unconstrained.Kappa, "κ stays fixed in the unconstrained Amdahl fit")
		require.Less(t, fit.R2, 0.99, "a curve that falls is a poor Amdahl fit")
		requireNote(t, fit, "as asked")
	})
}

// TestSuperlinearTopExplainsNegativeKappa is a sweep that grows faster
// at the top than at the bottom, as with more cache per node: the
// constrained κ is 0 and a note says why the unconstrained one went
// negative.
func TestSuperlinearTopExplainsNegativeKappa(t *testing.T) {
	pts := []Point{{1, 100}, {2, 190}, {4, 350}, {8, 640}, {16, 1250}, {32, 2600}}
	fit, err := FitPoints(pts)
	require.NoError(t, err)
	require.Equal(t, ModelAmdahl, fit.Model)
	require.Zero(t, fit.Kappa)
	require.Less(t, fit.Unconstrained.Kappa, 0.0)
	requireNote(t, fit, "κ would be")
	requireNote(t, fit, "too few points past the peak")
	requireNote(t, fit, "superlinear effect such as more cache")
	require.Contains(t, fit.String(), "note    unconstrained, κ would be")
}

// TestSuperlinearStartExplainsNegativeSigma is a sweep whose throughput
// per client rises from N = 1 to N = 8 (what a cold or throttled first
// point looks like), generated from the law with σ = -0.03: the
// unconstrained fit recovers that σ, the constrained one holds σ at 0,
// and a note explains it.
func TestSuperlinearStartExplainsNegativeSigma(t *testing.T) {
	truth := params{100, -0.03, 0.002}
	pts := sweep(truth, 1, 1, 2, 4, 8, 12, 16, 24, 32)
	fit, err := FitPoints(pts)
	require.NoError(t, err)
	require.InEpsilon(t, truth[iSigma], fit.Unconstrained.Sigma, 1e-6)
	require.InEpsilon(t, truth[iKappa], fit.Unconstrained.Kappa, 1e-6)
	require.Zero(t, fit.Sigma)
	require.Greater(t, fit.Kappa, 0.0)
	require.True(t, math.IsNaN(fit.SigmaErr), "σ at its bound has no standard error")
	require.False(t, math.IsNaN(fit.KappaErr))
	require.False(t, math.IsNaN(fit.LambdaErr))
	require.Equal(t, len(pts)-2, fit.DF, "σ held at 0 is not estimated")
	requireNote(t, fit, "σ would be -0.03")
	requireNote(t, fit, "warm-up")
	requireNote(t, fit, "higher at N = 8 than at N = 1")
	require.Contains(t, fit.String(), "sigma   0 (at its bound: no standard error)")
}

func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		fit  func([]Point) (*Fit, error)
		pts  []Point
		want string
	}{
		{"no points", FitPoints, nil, "0 points: want at least 3"},
		{"two points", FitPoints, []Point{{1, 1}, {2, 2}}, "2 points: want at least 3"},
		{"zero N", FitPoints, []Point{{1, 1}, {0, 1}, {2, 2}}, "point 2: N=0: want a positive"},
		{"negative N", FitPoints, []Point{{-1, 1}, {1, 1}, {2, 2}}, "point 1: N=-1"},
		{"NaN N", FitPoints, []Point{{1, 1}, {2, 2}, {math.NaN(), 3}}, "point 3: N=NaN"},
		{"infinite N", FitPoints, []Point{{1, 1}, {2, 2}, {math.Inf(1), 3}}, "point 3: N=+Inf"},
		{"zero X", FitPoints, []Point{{1, 1}, {2, 0}, {3, 3}}, "point 2 (N=2): X=0: want a positive"},
		{"negative X", FitPoints, []Point{{1, 1}, {2, -2}, {3, 3}}, "X=-2"},
		{"NaN X", FitPoints, []Point{{1, 1}, {2, math.NaN()}, {3, 3}}, "X=NaN"},
		{"all N equal", FitPoints, []Point{{4, 1}, {4, 1.1}, {4, 0.9}}, "all 3 points have N=4"},
		{"two distinct N", FitPoints, []Point{{1, 1}, {1, 1.1}, {2, 2}, {2, 2.1}}, "only 2 distinct values of N [1 2]: 3 parameters need at least 3 (FitAmdahl"},
		{"Amdahl, one point", FitAmdahl, []Point{{1, 1}}, "1 points: want at least 2"},
		{"Amdahl, all N equal", FitAmdahl, []Point{{2, 1}, {2, 1.2}}, "all 2 points have N=2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.fit(c.pts)
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestString(t *testing.T) {
	fit, err := FitPoints(sweep(params{1000, 0.05, 0.002}, 1, 1, 2, 4, 8))
	require.NoError(t, err)
	s := fit.String()
	require.Contains(t, s, "model   usl, 4 points, R² 1.0000")
	require.Contains(t, s, "on 1 degrees of freedom")
	require.Contains(t, s, "lambda  1000 ± ")
	require.Contains(t, s, "peak    7")
	require.Contains(t, s, "note    the peak at N = 21.79 lies beyond the largest N measured (8): it is an extrapolation")
	require.Contains(t, s, "note    only 4 points")
}

// TestNoBetterPointThanTheFit is a property test over 300 random
// problems: λ from 0.01 to 10⁶, σ from 10⁻⁴ to 1 (sometimes 0), κ from
// 10⁻⁷ to 0.1 (sometimes 0), five shapes of sweep, noise from none to
// 20%. The fit's SSE is never above that of the true coefficients (a
// feasible point, so a fit above it missed the minimum), the
// unconstrained SSE never above the constrained one, and exact data
// give the truth back.
func TestNoBetterPointThanTheFit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	grids := [][]float64{{1, 2, 4, 8, 16, 32, 64}, {1, 2, 3, 4, 5, 6}, {4, 8, 16, 32, 64, 128, 256}, {1, 10, 100, 1000},
		{1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128}}
	for range 300 {
		truth := params{math.Pow(10, rng.Float64()*8-2), math.Pow(10, rng.Float64()*4-4), math.Pow(10, rng.Float64()*6-7)}
		if rng.IntN(4) == 0 {
			truth[iKappa] = 0
		}
		if rng.IntN(6) == 0 {
			truth[iSigma] = 0
		}
		ns := grids[rng.IntN(len(grids))]
		noise := []float64{0, 0.01, 0.05, 0.2}[rng.IntN(4)]
		var pts []Point
		scale := 0.0
		for _, n := range ns {
			x := model(truth, n) * math.Max(0.05, 1+noise*rng.NormFloat64())
			pts = append(pts, Point{n, x})
			scale += x * x
		}
		fit, err := FitPoints(pts)
		require.NoError(t, err)
		pr := problem{pts: pts}
		got := pr.sse(params{fit.Lambda, fit.Sigma, fit.Kappa})
		slack := 1e-20 * scale // rounding, for exact data
		require.LessOrEqual(t, got, pr.sse(truth)*(1+1e-7)+slack, "truth %v, sweep %v, noise %v", truth, ns, noise)
		u := pr.sse(params{fit.Unconstrained.Lambda, fit.Unconstrained.Sigma, fit.Unconstrained.Kappa})
		require.LessOrEqual(t, u, got*(1+1e-9)+slack, "truth %v, sweep %v, noise %v", truth, ns, noise)
		if noise == 0 {
			require.InEpsilon(t, truth[iLambda], fit.Lambda, 1e-6, "truth %v, sweep %v", truth, ns)
			if truth[iKappa] == 0 {
				require.Equal(t, ModelAmdahl, fit.Model, "truth %v, sweep %v", truth, ns)
			} else {
				require.InEpsilon(t, truth[iKappa], fit.Kappa, 1e-5, "truth %v, sweep %v", truth, ns)
			}
		}
	}
}

// TestFitIsScaleFree fits noisy points in their units, and the same
// points times 1e-300 and 1e300: σ, κ, R² and the peak's N are the same,
// and λ, its error, the residual error and the peak's X scale with the
// points (near 1e-300 the squares underflowed and R² came out NaN).
func TestFitIsScaleFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	base := sweep(params{1200, 0.08, 0.0015}, 2, 1, 2, 4, 8, 16, 32, 48, 64)
	for i := range base {
		base[i].X *= 1 + 0.03*rng.NormFloat64()
	}
	ref, err := FitPoints(base)
	require.NoError(t, err)
	refA, err := FitAmdahl(base[:8])
	require.NoError(t, err)
	for _, c := range []float64{1e-300, 1e300} {
		pts := make([]Point, len(base))
		for i, q := range base {
			pts[i] = Point{q.N, q.X * c}
		}
		f, err := FitPoints(pts)
		require.NoError(t, err)
		require.False(t, math.IsNaN(f.R2), "R² at scale %g", c)
		require.InDelta(t, ref.R2, f.R2, 1e-6)
		require.InEpsilon(t, ref.Sigma, f.Sigma, 1e-6)
		require.InEpsilon(t, ref.Kappa, f.Kappa, 1e-6)
		require.InEpsilon(t, ref.Peak, f.Peak, 1e-6)
		for _, v := range [][2]float64{{ref.Lambda, f.Lambda}, {ref.LambdaErr, f.LambdaErr}, {ref.RSE, f.RSE}, {ref.PeakX, f.PeakX}} {
			require.InEpsilon(t, v[0]*c, v[1], 1e-6)
		}
		a, err := FitAmdahl(pts[:8])
		require.NoError(t, err)
		require.InEpsilon(t, refA.Lambda*c, a.Lambda, 1e-6)
		require.InDelta(t, refA.R2, a.R2, 1e-6)
		require.Contains(t, a.Notes[0], "throughput approaches λ/σ = ")
	}
}

// TestIntervalCoverage draws points from a known curve with noise, fits
// them and checks that 90% prediction intervals hold a new draw about
// 90% of the time, at a measured N and at one beyond the points.
func TestIntervalCoverage(t *testing.T) {
	truth := params{1000, 0.05, 0.002}
	rng := rand.New(rand.NewPCG(1, 2))
	ns := []float64{1, 2, 4, 8, 12, 16, 24}
	const noise = 40.0
	draw := func(n float64) float64 { return model(truth, n) + noise*rng.NormFloat64() }
	for _, at := range []float64{8, 32} {
		held, tries := 0, 0
		var width float64
		for range 400 {
			var pts []Point
			for _, n := range ns {
				pts = append(pts, Point{N: n, X: draw(n)})
			}
			f, err := FitPoints(pts)
			require.NoError(t, err)
			lo, hi, ok := f.Interval(at, 0.9)
			require.True(t, ok)
			require.Less(t, lo, hi)
			tries++
			width += hi - lo
			if x := draw(at); lo <= x && x <= hi {
				held++
			}
		}
		share := float64(held) / float64(tries)
		t.Logf("N=%v: 90%% intervals held %.1f%% of new draws, mean width %.0f", at, 100*share, width/float64(tries))
		require.InDelta(t, 0.9, share, 0.06, "N=%v", at)
		if at == 8 {
			require.Less(t, width/float64(tries), 2*1.645*noise*1.5, "inside the points the interval is about the noise's")
		} else {
			require.Greater(t, width/float64(tries), 2*1.645*noise*1.2, "beyond the points it widens")
		}
	}
}

// TestIntervalNeedsDegreesOfFreedom: a curve through every point gives
// no interval, and a bad level none either.
func TestIntervalNeedsDegreesOfFreedom(t *testing.T) {
	f, err := FitAmdahl([]Point{{1, 100}, {2, 180}})
	require.NoError(t, err)
	_, _, ok := f.Interval(4, 0.9)
	require.False(t, ok, "2 points, 2 parameters")
	f, err = FitAmdahl([]Point{{1, 100}, {2, 180}, {4, 290}, {8, 420}})
	require.NoError(t, err)
	lo, hi, ok := f.Interval(4, 0.9)
	require.True(t, ok)
	require.Less(t, lo, f.Predict(4))
	require.Greater(t, hi, f.Predict(4))
	for _, level := range []float64{0, 1, -1, math.NaN()} {
		_, _, ok = f.Interval(4, level)
		require.False(t, ok, "level %v", level)
	}
	// Rescaled points (throughputs of 1e6) give the same relative width.
	g, err := FitAmdahl([]Point{{1, 100e6}, {2, 180e6}, {4, 290e6}, {8, 420e6}})
	require.NoError(t, err)
	lo2, hi2, ok := g.Interval(4, 0.9)
	require.True(t, ok)
	require.InEpsilon(t, (hi-lo)*1e6, hi2-lo2, 1e-6)
}
