package usl

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"
)

// The expected values in this file are the ones the R package usl
// (github.com/smoeding/usl) publishes: in its README and in the
// transcripts of its tests (tests/*.Rout.save). Each is compared at the
// precision it was printed.

// readPoints reads a CSV file from testdata.
func readPoints(t *testing.T, file string) []Point {
	t.Helper()
	f, err := os.Open("testdata/" + file)
	require.NoError(t, err)
	defer f.Close()
	pts, err := ReadCSV(f, file)
	require.NoError(t, err)
	return pts
}

// halfUnit is half a unit in the last digit of printed, a number as R
// printed it ("0.0277285", "1.044e-04", "1078"), or in its sixth
// significant digit when it shows more: solvers agree only to their
// convergence tolerance, and two of R's own (nls with the port algorithm
// and nlsr's nlxb) already differ in the seventh digit on SPEC SDM91.
func halfUnit(t *testing.T, printed string) float64 {
	t.Helper()
	want, err := strconv.ParseFloat(printed, 64)
	require.NoError(t, err)
	mant, exp := printed, 0
	if i := strings.IndexAny(printed, "eE"); i >= 0 {
		mant = printed[:i]
		exp, err = strconv.Atoi(printed[i+1:])
		require.NoError(t, err)
	}
	decimals := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		decimals = len(mant) - i - 1
	}
	unit := math.Pow(10, float64(exp-decimals))
	if want != 0 {
		sixth := math.Pow(10, math.Floor(math.Log10(math.Abs(want)))-5)
		unit = math.Max(unit, sixth)
	}
	return unit / 2
}

// requirePrinted asserts that got reads as printed at the precision shown.
func requirePrinted(t *testing.T, printed string, got float64, what string) {
	t.Helper()
	want, err := strconv.ParseFloat(printed, 64)
	require.NoError(t, err)
	require.InDelta(t, want, got, halfUnit(t, printed)*(1+1e-9), "%s: published %s, got %.10g", what, printed, got)
}

// requireSignif asserts that got rounds to want at digits significant
// digits, as R's signif(got, digits) does.
func requireSignif(t *testing.T, want, got float64, digits int, what string) {
	t.Helper()
	unit := math.Pow(10, math.Floor(math.Log10(math.Abs(want)))-float64(digits-1))
	require.InDelta(t, want, got, unit/2, "%s: signif(%.10g, %d) is not %g", what, got, digits, want)
}

// TestSPECSDM91 fits the SPEC SDM91 dataset and checks every figure the
// package publishes for it.
func TestSPECSDM91(t *testing.T) {
	pts := readPoints(t, "specsdm91.csv")
	fit, err := FitPoints(pts)
	require.NoError(t, err)
	require.Equal(t, ModelUSL, fit.Model)
	require.Equal(t, 7, fit.N)
	require.Equal(t, 4, fit.DF, "tests/df-residual.Rout.save")

	t.Run("README summary", func(t *testing.T) {
		for _, c := range []struct {
			what, printed string
			got           float64
		}{
			{"alpha (sigma)", "0.0277285", fit.Sigma},
			{"beta (kappa)", "0.0001044", fit.Kappa},
			{"gamma (lambda)", "89.9952330", fit.Lambda},
			{"alpha std. error", "0.0091217", fit.SigmaErr},
			{"beta std. error", "0.0000199", fit.KappaErr},
			{"gamma std. error", "14.2134894", fit.LambdaErr},
			{"residual standard error", "82.8", fit.RSE},
			{"limit (Amdahl asymptote)", "3246", fit.Lambda / fit.Sigma},
			{"peak throughput", "1884", fit.PeakX},
			{"peak load", "96.52", fit.Peak},
			{"optimal load", "36.06", 1 / fit.Sigma},
			{"optimal throughput", "1542", fit.Predict(1 / fit.Sigma)},
		} {
			requirePrinted(t, c.printed, c.got, c.what)
		}
	})

	t.Run("summary.Rout.save", func(t *testing.T) {
		for _, c := range []struct {
			what, printed string
			got           float64
		}{
			{"alpha", "2.773e-02", fit.Sigma},
			{"beta", "1.044e-04", fit.Kappa},
			{"gamma", "9.000e+01", fit.Lambda},
			{"alpha std. error", "9.122e-03", fit.SigmaErr},
			{"beta std. error", "1.988e-05", fit.KappaErr},
			{"gamma std. error", "1.421e+01", fit.LambdaErr},
			{"residual standard error", "82.85", fit.RSE},
		} {
			requirePrinted(t, c.printed, c.got, c.what)
		}
	})

	t.Run("peak, limit and optimum tests", func(t *testing.T) {
		// peak-, limit- and optimal-scalability.R compare with all.equal
		// at a relative tolerance of 1e-4.
		require.InEpsilon(t, 96.51956, fit.Peak, 1e-4)
		require.InEpsilon(t, 3245.589, fit.Lambda/fit.Sigma, 1e-4)
		require.InEpsilon(t, 36.06401, 1/fit.Sigma, 1e-4)
	})

	t.Run("fitted and residuals", func(t *testing.T) {
		fitted := []string{"90", "1078", "1541", "1850", "1879", "1822", "1646"}
		residuals := []string{"-25.10", "-81.66", "111.09", "3.05", "-49.99", "-46.60", "56.00"}
		for i, p := range pts {
			requirePrinted(t, fitted[i], fit.Predict(p.N), "fitted at N="+strconv.FormatFloat(p.N, 'g', -1, 64))
			requirePrinted(t, residuals[i], p.X-fit.Predict(p.N), "residual at N="+strconv.FormatFloat(p.N, 'g', -1, 64))
		}
	})

	t.Run("nlxb method", func(t *testing.T) {
		// usl-nlxb.Rout.save prints signif(coef, 2).
		requireSignif(t, 0.028, fit.Sigma, 2, "alpha")
		requireSignif(t, 0.0001, fit.Kappa, 2, "beta")
		requireSignif(t, 90, fit.Lambda, 2, "gamma")
	})

	t.Run("String", func(t *testing.T) {
		// dbarena analyze usl prints this, and its test looks for these.
		s := fit.String()
		require.Contains(t, s, "model   usl, 7 points")
		require.Contains(t, s, "sigma   0.0277")
		require.Contains(t, s, "peak    1884 at N = 96.52")
	})
}

// TestRaytracerFirstRows fits the first six and the first five rows of
// the ray-tracer dataset, as the package's confint and warn-accuracy
// tests do.
func TestRaytracerFirstRows(t *testing.T) {
	pts := readPoints(t, "raytracer.csv")

	t.Run("rows 1-6, confint.Rout.save", func(t *testing.T) {
		fit, err := FitPoints(pts[:6])
		require.NoError(t, err)
		require.Equal(t, ModelUSL, fit.Model)
		requirePrinted(t, "0.02444", fit.Sigma, "alpha")
		requirePrinted(t, "0.00163", fit.Kappa, "beta")
		requirePrinted(t, "20.85605", fit.Lambda, "gamma")
		// The package's interval is estimate ± SE·qt(level, n-1): the
		// printed bounds pin the standard errors to three digits or more.
		q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(pts[:6]) - 1)}.Quantile(0.95)
		for _, c := range []struct {
			what, lo, hi string
			est, se      float64
		}{
			{"alpha", "0.00754", "0.04135", fit.Sigma, fit.SigmaErr},
			{"beta", "0.00110", "0.00215", fit.Kappa, fit.KappaErr},
			{"gamma", "19.26717", "22.44492", fit.Lambda, fit.LambdaErr},
		} {
			requirePrinted(t, c.lo, c.est-q*c.se, c.what+" 2.5 %")
			requirePrinted(t, c.hi, c.est+q*c.se, c.what+" 97.5 %")
		}
	})

	t.Run("rows 1-5, warn-accuracy.Rout.save", func(t *testing.T) {
		fit, err := FitPoints(pts[:5])
		require.NoError(t, err)
		requirePrinted(t, "0.028", fit.Sigma, "alpha")
		requirePrinted(t, "0.001", fit.Kappa, "beta")
		requirePrinted(t, "21.059", fit.Lambda, "gamma")
		requireNote(t, fit, "only 5 points")
	})
}

// TestRaytracerAll fits all eleven rows. The package publishes no
// coefficients for them (its vignette computes them when it is built),
// so the expected values come from R 4.2.2's nls(algorithm = "port")
// with lower bounds 0, the solver behind the package's method "nls":
// lambda 21.84884277, sigma 0.05777078, kappa 0; and without bounds
// lambda 24.7661797350, sigma 0.0781478851, kappa -0.0002011216. The
// throughput keeps rising to 64 processors, so κ lands on its bound:
// we report Amdahl's law and explain the negative unconstrained κ.
func TestRaytracerAll(t *testing.T) {
	fit, err := FitPoints(readPoints(t, "raytracer.csv"))
	require.NoError(t, err)
	require.Equal(t, ModelAmdahl, fit.Model)
	requirePrinted(t, "21.84884277", fit.Lambda, "lambda")
	requirePrinted(t, "0.05777078", fit.Sigma, "sigma")
	require.Zero(t, fit.Kappa)
	require.True(t, math.IsNaN(fit.KappaErr), "no standard error for a parameter at its bound")
	require.True(t, math.IsNaN(fit.Peak))
	require.Equal(t, 9, fit.DF, "Amdahl's law has two parameters")
	requirePrinted(t, "24.7661797350", fit.Unconstrained.Lambda, "unconstrained lambda")
	requirePrinted(t, "0.0781478851", fit.Unconstrained.Sigma, "unconstrained sigma")
	requirePrinted(t, "-0.0002011216", fit.Unconstrained.Kappa, "unconstrained kappa")
	requireNote(t, fit, "Amdahl's law")
	requireNote(t, fit, "κ would be -0.000201")
	requireNote(t, fit, "highest at the largest N measured, 64")
}

// TestSmallExactDataset is the data frame of the package's coef and
// usl-nls tests: the law with σ = κ = 0.02 and λ = 1, rounded to four
// decimals; coef.Rout.save prints signif(alpha, 3) and signif(beta, 3).
func TestSmallExactDataset(t *testing.T) {
	fit, err := FitPoints(readPoints(t, "coef.csv"))
	require.NoError(t, err)
	requireSignif(t, 0.02, fit.Sigma, 3, "alpha")
	requireSignif(t, 0.02, fit.Kappa, 3, "beta")
	requireSignif(t, 1.00, fit.Lambda, 3, "gamma")
}

// TestHalfUnit pins the precision the published values are compared at.
func TestHalfUnit(t *testing.T) {
	for _, c := range []struct {
		printed string
		want    float64
	}{
		{"0.0277285", 5e-8},
		{"1.044e-04", 5e-8},
		{"9.000e+01", 0.005},
		{"1078", 0.5},
		{"-25.10", 0.005},
		{"89.9952330", 5e-5}, // ten digits shown, six compared
	} {
		t.Run(c.printed, func(t *testing.T) {
			require.InEpsilon(t, c.want, halfUnit(t, c.printed), 1e-9)
		})
	}
}
