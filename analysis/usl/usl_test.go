package usl

import (
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSPECSDM91 fits the dataset the R package usl ships (Gunther,
// Guerrilla Capacity Planning, 2007: a Sun SPARCcenter 2000 in SPEC
// SDM91) and compares with the coefficients, standard errors and peak
// that package publishes in its README and tests.
func TestSPECSDM91(t *testing.T) {
	f, err := os.Open("testdata/specsdm91.csv")
	require.NoError(t, err)
	defer f.Close()
	pts, err := ReadCSV(f, "specsdm91.csv")
	require.NoError(t, err)
	fit, err := FitPoints(pts)
	require.NoError(t, err)
	require.Equal(t, "usl", fit.Model)
	require.InEpsilon(t, 89.9952330, fit.Lambda, 1e-4)
	require.InEpsilon(t, 0.0277285, fit.Sigma, 1e-4)
	require.InEpsilon(t, 0.0001044, fit.Kappa, 1e-3)
	require.InEpsilon(t, 14.2134894, fit.LambdaErr, 1e-3)
	require.InEpsilon(t, 0.0091217, fit.SigmaErr, 1e-3)
	require.InEpsilon(t, 0.0000199, fit.KappaErr, 1e-2)
	require.InEpsilon(t, 82.8, fit.RSE, 1e-3)
	require.InEpsilon(t, 96.51956, fit.Peak, 1e-4)
	require.InEpsilon(t, 1884, fit.PeakX, 1e-3)
	// fitted(u) in the package's tests, printed to 3 digits.
	for i, want := range []float64{90, 1078, 1541, 1850, 1879, 1822, 1646} {
		require.InDelta(t, want, fit.Predict(pts[i].N), 0.5+want*0.001, "N=%v", pts[i].N)
	}
}

// TestExactSmallDataset is the package's coef test: the points follow
// σ = κ = 0.02, λ = 1 to four decimals.
func TestExactSmallDataset(t *testing.T) {
	pts := []Point{{1, 1}, {2, 1.8868}, {4, 3.0769}, {6, 3.5294}, {8, 3.5398}, {10, 3.3557}}
	fit, err := FitPoints(pts)
	require.NoError(t, err)
	require.InDelta(t, 0.02, fit.Sigma, 5e-5)
	require.InDelta(t, 0.02, fit.Kappa, 5e-5)
	require.InDelta(t, 1.00, fit.Lambda, 5e-4)
}

func TestRecoversSyntheticCoefficients(t *testing.T) {
	truth := params{1200, 0.08, 0.0015}
	var pts []Point
	for _, n := range []float64{1, 2, 4, 8, 16, 24, 32, 48, 64} {
		pts = append(pts, Point{n, model(truth, n)})
	}
	fit, err := FitPoints(pts)
	require.NoError(t, err)
	require.InEpsilon(t, truth[0], fit.Lambda, 1e-6)
	require.InEpsilon(t, truth[1], fit.Sigma, 1e-6)
	require.InEpsilon(t, truth[2], fit.Kappa, 1e-6)
	require.InDelta(t, 1, fit.R2, 1e-9)
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
		var pts []Point
		for _, n := range []float64{1, 2, 4, 8, 16, 32, 48, 64, 96} {
			for r := 0; r < 3; r++ {
				pts = append(pts, Point{n, model(truth, n) * (1 + 0.03*rng.NormFloat64())})
			}
		}
		fit, err := FitPoints(pts)
		require.NoError(t, err)
		require.InEpsilon(t, truth[0], fit.Lambda, 0.1)
		require.InDelta(t, truth[1], fit.Sigma, 0.02)
		require.InDelta(t, truth[2], fit.Kappa, 0.0005)
		if math.Abs(fit.Kappa-truth[2]) <= 3*fit.KappaErr && math.Abs(fit.Sigma-truth[1]) <= 3*fit.SigmaErr {
			within++
		}
	}
	require.GreaterOrEqual(t, within, seeds*9/10, "standard errors are honest")
}

func TestAmdahl(t *testing.T) {
	var pts []Point
	for _, n := range []float64{1, 2, 4, 8, 16, 32} {
		pts = append(pts, Point{n, 100 * n / (1 + 0.1*(n-1))})
	}
	fit, err := FitPoints(pts)
	require.NoError(t, err)
	require.Equal(t, "amdahl", fit.Model)
	require.Equal(t, 0.0, fit.Kappa)
	require.True(t, math.IsNaN(fit.KappaErr))
	require.True(t, math.IsNaN(fit.Peak))
	require.InEpsilon(t, 0.1, fit.Sigma, 1e-6)
	require.Contains(t, fit.String(), "approaches 1000")
}

// TestSuperlinearTopExplainsNegativeKappa mimics a sweep that grows
// faster at the top than at the bottom: the constrained κ is 0 and a
// note says why the unconstrained one went negative.
func TestSuperlinearTopExplainsNegativeKappa(t *testing.T) {
	pts := []Point{{1, 100}, {2, 190}, {4, 350}, {8, 640}, {16, 1250}, {32, 2600}}
	fit, err := FitPoints(pts)
	require.NoError(t, err)
	require.Equal(t, 0.0, fit.Kappa)
	require.Less(t, fit.Unconstrained.Kappa, 0.0)
	found := false
	for _, n := range fit.Notes {
		if strings.Contains(n, "κ would be") && strings.Contains(n, "too few points past the peak") {
			found = true
		}
	}
	require.True(t, found, "notes: %v", fit.Notes)
}

func TestBadInput(t *testing.T) {
	for name, pts := range map[string][]Point{
		"two points":      {{1, 1}, {2, 2}},
		"zero N":          {{0, 1}, {2, 2}, {3, 3}},
		"negative X":      {{1, 1}, {2, -2}, {3, 3}},
		"NaN X":           {{1, 1}, {2, math.NaN()}, {3, 3}},
		"two distinct Ns": {{1, 1}, {1, 1.1}, {2, 2}, {2, 2.1}},
	} {
		_, err := FitPoints(pts)
		require.Error(t, err, name)
	}
}

func TestReadCSV(t *testing.T) {
	pts, err := ReadCSV(strings.NewReader("run,Threads,ops_sec\na,1,10\nb,2,19.5\n"), "x.csv")
	require.NoError(t, err)
	require.Equal(t, []Point{{1, 10}, {2, 19.5}}, pts)
	_, err = ReadCSV(strings.NewReader("n,x\n1,10\n2,abc\n"), "bad.csv")
	require.ErrorContains(t, err, `bad.csv:3: column x: "abc" is not a number`)
	_, err = ReadCSV(strings.NewReader(""), "empty.csv")
	require.ErrorContains(t, err, "empty.csv: empty file")
}
