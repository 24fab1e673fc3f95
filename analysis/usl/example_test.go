package usl_test

import (
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/analysis/usl"
)

// Fitting the SPEC SDM91 measurements (simulated users, scripts per
// hour) from a CSV: the coefficients match the R package usl's.
func ExampleFitPoints() {
	const data = `# SPEC SDM91, Sun SPARCcenter 2000
load,throughput
1,64.9
18,995.9
36,1652.4
72,1853.2
108,1828.9
144,1775.0
216,1702.2
`
	pts, err := usl.ReadCSV(strings.NewReader(data), "specsdm91.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	fit, err := usl.FitPoints(pts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(fit)
	fmt.Printf("at 250 users: %.0f scripts per hour\n", fit.Predict(250))
	// Output:
	// model   usl, 7 points, R² 0.9896, residual standard error 82.85 on 4 degrees of freedom
	// lambda  89.9952 ± 14.2  (throughput of one)
	// sigma   0.0277285 ± 0.00912  (contention)
	// kappa   0.000104365 ± 1.99e-05  (coherency)
	// peak    1884 at N = 96.52
	// at 250 users: 1562 scripts per hour
}

// A sweep whose throughput still rises faster than linearly at the top
// gets Amdahl's law, and notes that say why the unconstrained fit would
// have had a negative κ.
func ExampleFitPoints_negativeKappa() {
	pts := []usl.Point{{N: 1, X: 100}, {N: 2, X: 190}, {N: 4, X: 350}, {N: 8, X: 640}, {N: 16, X: 1250}, {N: 32, X: 2600}}
	fit, err := usl.FitPoints(pts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(fit)
	// Output:
	// model   amdahl, 6 points, R² 0.9991, residual standard error 28.17 on 5 degrees of freedom
	// lambda  80.7326 ± 0.762  (throughput of one)
	// sigma   0 (at its bound: no standard error)  (contention)
	// kappa   0 (at its bound: no standard error)  (coherency)
	// peak    none; throughput grows linearly
	// note    κ's best value (with κ ≥ 0) is 0: no coherency cost shows in these points, so this is Amdahl's law; σ is 0 too, so the fitted curve is linear scaling, X = λN
	// note    unconstrained, κ would be -0.000448, which no real system has; it means throughput grows faster than the law allows at the top of the data: noise, too few points past the peak, or a real superlinear effect such as more cache or memory as nodes are added (here throughput is highest at the largest N measured, 32: no point shows a fall past a peak). κ is held at 0
}
