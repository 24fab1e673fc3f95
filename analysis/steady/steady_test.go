package steady

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFit checks the fitted drift and t on series whose answer is known.
func TestFit(t *testing.T) {
	flat := Fit([]float64{100, 100, 100, 100, 100, 100})
	if flat.Drift != 0 || flat.T != 0 || flat.Trending() {
		t.Fatalf("flat series: %+v", flat)
	}
	// 4,000 to 8,000 ops/s over 20 intervals: Cassandra warming up.
	var climb []float64
	for i := range 20 {
		climb = append(climb, 4000+200*float64(i))
	}
	c := Fit(climb)
	if want := 3800.0 / 5900; math.Abs(c.Drift-want) > 1e-9 {
		t.Fatalf("drift %v, want %v", c.Drift, want)
	}
	if !math.IsInf(c.T, 1) || !c.Trending() {
		t.Fatalf("a perfect climb: %+v", c)
	}
	if Fit(climb[:5]).Trending() {
		t.Fatal("five intervals are too few to judge")
	}
}

// TestNoiseIsNotATrend draws noisy flat series and checks that almost
// none is judged trending, while a 50% climb under the same noise is.
func TestNoiseIsNotATrend(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	series := func(rise float64) []float64 {
		xs := make([]float64, 20)
		for i := range xs {
			xs[i] = 1000*(1+rise*float64(i)/19) + r.NormFloat64()*50
		}
		return xs
	}
	flagged := 0
	for range 1000 {
		if Fit(series(0)).Trending() {
			flagged++
		}
	}
	if flagged > 5 {
		t.Fatalf("%d of 1000 flat noisy series judged trending", flagged)
	}
	for range 100 {
		if tr := Fit(series(0.5)); !tr.Trending() {
			t.Fatalf("a 50%% climb under 5%% noise not judged trending: %+v", tr)
		}
	}
}

// TestSettled checks the warm-up's end test on its last window.
func TestSettled(t *testing.T) {
	if Settled([]float64{100, 100, 100, 100}) {
		t.Fatal("four intervals are fewer than the window")
	}
	if !Settled([]float64{10, 50, 100, 101, 99, 100, 102}) {
		t.Fatal("the last five are steady")
	}
	if Settled([]float64{100, 110, 120, 130, 140}) {
		t.Fatal("a 40% climb is not settled")
	}
	if Settled([]float64{100, 60, 140, 60, 140}) {
		t.Fatal("a 35% spread is not settled")
	}
	if Settled([]float64{0, 0, 0, 0, 0}) {
		t.Fatal("nothing measured is not settled")
	}
}

// seriesWithT builds n rates around mean with a drift (the fitted rise
// over the mean) and residuals shaped like a parabola, which is
// orthogonal to both the mean and the slope, scaled so that the slope's
// t statistic is exactly t.
func seriesWithT(n int, mean, drift, t float64) []float64 {
	mid := float64(n-1) / 2
	var sxx, r2 float64
	parabola := make([]float64, n)
	for i := range n {
		d := float64(i) - mid
		sxx += d * d
		parabola[i] = d * d
	}
	// Centre the parabola so that it adds nothing to the mean.
	avg := sxx / float64(n)
	for i := range parabola {
		parabola[i] -= avg
		r2 += parabola[i] * parabola[i]
	}
	slope := drift * mean / float64(n-1)
	// t = slope / sqrt(a²·r2 / (n-2) / sxx)
	a := slope / t * math.Sqrt(float64(n-2)*sxx/r2)
	out := make([]float64, n)
	for i := range out {
		out[i] = mean + slope*(float64(i)-mid) + a*parabola[i]
	}
	return out
}

// TestTrendThresholds pins both gates of Trending from both sides, with
// the documented values written out so that moving a constant fails
// here: a drift beyond 20% counts only with a t of 3 or more, and a t
// far beyond 3 counts only with a drift beyond 20%.
func TestTrendThresholds(t *testing.T) {
	for name, tc := range map[string]struct {
		drift, t float64
		want     bool
	}{
		"t at the gate":           {0.30, 3.0 * 1.001, true},
		"t just below the gate":   {0.30, 3.0 * 0.999, false},
		"t of 0.5":                {0.30, 0.5, false},
		"drift just beyond 20%":   {0.20 * 1.001, 50, true},
		"drift just within 20%":   {0.20 * 0.999, 50, false},
		"a falling series counts": {-0.30, -3.0 * 1.001, true},
		// A large drift counts on weaker evidence: +62% of the mean at
		// t = 2.8 (Cassandra's workload A in one 6-second window).
		"+62% at t 2.8":                  {0.62, 2.8, true},
		"drift at 50%, t at 2":           {0.50 * 1.001, 2.0 * 1.001, true},
		"drift just under 50%, t of 2.8": {0.50 * 0.999, 2.8, false},
		"drift of 62%, t just under 2":   {0.62, 2.0 * 0.999, false},
		"a large fall counts too":        {-0.62, -2.8, true},
	} {
		t.Run(name, func(t *testing.T) {
			xs := seriesWithT(12, 1000, tc.drift, tc.t)
			tr := Fit(xs)
			if math.Abs(tr.T-tc.t) > 1e-6*math.Abs(tc.t) || math.Abs(tr.Drift-tc.drift) > 1e-9 {
				t.Fatalf("the series is not what it was built to be: %+v", tr)
			}
			if tr.Trending() != tc.want {
				t.Fatalf("%+v: trending %v, want %v", tr, tr.Trending(), tc.want)
			}
		})
	}
	if Fit(seriesWithT(5, 1000, 0.5, 50)).Trending() {
		t.Fatal("five intervals are too few to judge")
	}
	if !Fit(seriesWithT(6, 1000, 0.5, 50)).Trending() {
		t.Fatal("six are enough")
	}
}

// TestSettledThresholds pins the warm-up's window rules from both sides.
func TestSettledThresholds(t *testing.T) {
	// The documented values, written out: a drift and a CV of 10% over
	// the last five intervals. A straight line over the window has a CV
	// of about 0.4 x its drift, so the drift gate decides.
	line := func(drift float64) []float64 {
		xs := make([]float64, 5)
		for i := range xs {
			xs[i] = 1000 * (1 + drift*(float64(i)/4-0.5))
		}
		return xs
	}
	if !Settled(line(0.10 * 0.999)) {
		t.Fatal("a drift just within the window's limit is settled")
	}
	if Settled(line(0.10 * 1.001)) {
		t.Fatal("a drift just beyond it is not")
	}
	// No drift, alternating spread: the CV gate decides.
	spread := func(cv float64) []float64 {
		// Deviations +d -d +d -d 0 around 1000: sd = d*sqrt(4/4) = d.
		d := cv * 1000
		return []float64{1000 + d, 1000 - d, 1000 + d, 1000 - d, 1000}
	}
	if !Settled(spread(0.10 * 0.999)) {
		t.Fatal("a spread just within the limit is settled")
	}
	if Settled(spread(0.10 * 1.001)) {
		t.Fatal("a spread just beyond it is not")
	}
}
