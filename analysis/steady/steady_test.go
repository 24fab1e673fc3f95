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
