package report

import (
	"fmt"
	"math"

	"github.com/dbarena/dbarena/analysis/saturation"
	"github.com/dbarena/dbarena/analysis/usl"
)

// uslFit fits the Universal Scalability Law to a sweep's points.
func uslFit(pts []saturation.Point) (*usl.Fit, error) {
	in := make([]usl.Point, len(pts))
	for i, p := range pts {
		in[i] = usl.Point{N: p.N, X: p.X}
	}
	return usl.FitPoints(in)
}

// fitCurve returns the fitted throughput curve, or nil when the points
// cannot be fitted.
func fitCurve(pts []saturation.Point) func(float64) float64 {
	f, err := uslFit(pts)
	if err != nil {
		return nil
	}
	return f.Predict
}

// fitSummary says what the fit found, or why there is none.
func fitSummary(pts []saturation.Point) string { return fitSummaryOf(pts, "thread", "threads") }

// fitSummaryOf is fitSummary for an axis of unit (one) and units (many):
// threads for client sweeps, nodes for horizontal scaling.
func fitSummaryOf(pts []saturation.Point, unit, units string) string {
	f, err := uslFit(pts)
	if err != nil {
		return "no fit: " + err.Error()
	}
	s := fmt.Sprintf("%s: λ %s ops/s per %s, σ %s, κ %s, R² %.3f", f.Model, fmtSig(f.Lambda), unit, fmtCoef(f.Sigma, f.SigmaErr),
		fmtCoef(f.Kappa, f.KappaErr), f.R2)
	if !math.IsNaN(f.Peak) && !math.IsInf(f.Peak, 0) && f.Peak > 0 {
		s += fmt.Sprintf("; peak %s ops/s at %.0f %s", fmtRate(f.PeakX), f.Peak, units)
	} else {
		s += "; no peak (no coherency cost: throughput approaches λ/σ)"
	}
	for _, n := range f.Notes {
		s += ". " + n
	}
	return s
}

// fmtCoef writes a coefficient with its standard error when it has one.
func fmtCoef(v, se float64) string {
	if math.IsNaN(se) || se == 0 {
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.3g ± %.2g", v, se)
}
