// Package steady judges whether a series of per-interval throughputs is
// steady: no trend across it and little spread. The experiment flags a
// measured trial that is not (its mean describes a moving target, such
// as a JVM still compiling), and a warm-up "until steady" ends when the
// last intervals are.
//
// The test is a least-squares line through the rates against their
// interval number. Its drift is the line's rise over the whole series as
// a fraction of the mean: +0.5 means the rate grew by half the mean from
// the first interval to the last. A drift counts only when the slope is
// also clearly not noise: its t statistic (slope over its standard
// error) is at least MinT.
package steady

import "math"

// Defaults of the judgement, documented in docs/guide/experiments.md.
const (
	// MaxDrift is the largest drift over the measured window that still
	// counts as steady: 20% of the mean.
	MaxDrift = 0.20
	// MinT is the t statistic a slope needs to count as a trend rather
	// than noise (about p < 0.01 for ten or more intervals).
	MinT = 3.0
	// LargeDrift is a drift that is not steady on weaker evidence, a t
	// statistic of LargeT: Cassandra's workload A climbed from 11,907 to
	// 21,155 ops/s inside one 6-second window, +62% of its mean at t =
	// 2.8 (p about 0.05 on six intervals), and passed the rule above.
	// Noise alone rarely draws a line that steep: it would need a
	// coefficient of variation near 20%, itself no steady window.
	LargeDrift = 0.50
	LargeT     = 2.0
	// MinIntervals is the fewest intervals a judgement is made on.
	MinIntervals = 6
	// Window is how many of the last intervals a warm-up until steady
	// looks at, and MaxWindowDrift and MaxWindowCV what they may show:
	// a drift and a coefficient of variation of at most 10%.
	Window         = 5
	MaxWindowDrift = 0.10
	MaxWindowCV    = 0.10
)

// Trend is the least-squares trend of a series.
type Trend struct {
	// N is the number of intervals, Mean their mean rate.
	N    int
	Mean float64
	// Drift is the fitted line's rise from the first interval to the
	// last, over the mean.
	Drift float64
	// T is the slope's t statistic (+Inf for a perfect line, 0 for a
	// flat or too short series).
	T float64
	// CV is the coefficient of variation: standard deviation over mean.
	CV float64
}

// Fit fits the trend of rates (one per interval, in time order).
func Fit(rates []float64) Trend {
	n := len(rates)
	tr := Trend{N: n}
	if n == 0 {
		return tr
	}
	var sx, sy float64
	for i, y := range rates {
		sx += float64(i)
		sy += y
	}
	mx, my := sx/float64(n), sy/float64(n)
	tr.Mean = my
	var sxx, sxy, syy float64
	for i, y := range rates {
		dx, dy := float64(i)-mx, y-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if my <= 0 || n < 3 || sxx == 0 {
		return tr
	}
	tr.CV = math.Sqrt(syy/float64(n-1)) / my
	slope := sxy / sxx
	tr.Drift = slope * float64(n-1) / my
	// The residuals' variance about the line, with n-2 degrees of
	// freedom, gives the slope's standard error.
	rss := math.Max(syy-slope*sxy, 0)
	se := math.Sqrt(rss / float64(n-2) / sxx)
	switch {
	case se > 0:
		tr.T = slope / se
	case slope != 0:
		tr.T = math.Inf(int(math.Copysign(1, slope)))
	}
	return tr
}

// Trending reports whether the series moved by more than MaxDrift of
// its mean over its length with a slope that is not noise (MinT), or by
// LargeDrift or more with a t of LargeT: the size of a trend counts as
// well as its evidence. A series shorter than MinIntervals is never
// judged trending.
func (t Trend) Trending() bool {
	if t.N < MinIntervals {
		return false
	}
	d, tt := math.Abs(t.Drift), math.Abs(t.T)
	return d > MaxDrift && (tt >= MinT || (d >= LargeDrift && tt >= LargeT))
}

// Settled reports whether the last Window rates are steady enough to end
// a warm-up: a drift and a spread within MaxWindowDrift and MaxWindowCV.
func Settled(rates []float64) bool {
	if len(rates) < Window {
		return false
	}
	t := Fit(rates[len(rates)-Window:])
	return t.Mean > 0 && math.Abs(t.Drift) <= MaxWindowDrift && t.CV <= MaxWindowCV
}
