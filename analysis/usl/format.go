package usl

import (
	"fmt"
	"math"
	"strings"
)

// String summarizes the fit for a terminal: one line per coefficient
// with its standard error, the peak, and the notes.
func (f *Fit) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model   %s, %d points, R² %.4f, residual standard error %.4g on %d degrees of freedom\n",
		f.Model, f.N, f.R2, f.RSE, f.DF)
	fmt.Fprintf(&b, "lambda  %.6g%s  (throughput of one)\n", f.Lambda, pm(f.LambdaErr, f.Lambda))
	fmt.Fprintf(&b, "sigma   %.6g%s  (contention)\n", f.Sigma, pm(f.SigmaErr, f.Sigma))
	fmt.Fprintf(&b, "kappa   %.6g%s  (coherency)\n", f.Kappa, pm(f.KappaErr, f.Kappa))
	switch {
	case !math.IsNaN(f.Peak):
		fmt.Fprintf(&b, "peak    %.4g at N = %.4g\n", f.PeakX, f.Peak)
	case f.Kappa == 0 && f.Sigma > 0:
		fmt.Fprintf(&b, "peak    none; throughput approaches %.4g (λ/σ)\n", f.Lambda/f.Sigma)
	case f.Kappa == 0:
		fmt.Fprintf(&b, "peak    none; throughput grows linearly\n")
	default:
		fmt.Fprintf(&b, "peak    none; throughput is highest at N = 1\n")
	}
	for _, n := range f.Notes {
		fmt.Fprintf(&b, "note    %s\n", n)
	}
	return b.String()
}

// pm writes a standard error, or why there is none.
func pm(se, v float64) string {
	switch {
	case !math.IsNaN(se):
		return fmt.Sprintf(" ± %.3g", se)
	case v == 0:
		return " (at its bound: no standard error)"
	default:
		return " (no standard error)"
	}
}
