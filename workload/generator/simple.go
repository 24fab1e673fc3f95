package generator

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
)

// Constant always returns its value.
type Constant struct{ v int64 }

// NewConstant returns a generator of v.
func NewConstant(v int64) *Constant { return &Constant{v: v} }

// Next implements Int.
func (c *Constant) Next(*rand.Rand) int64 { return c.v }

// Uniform draws uniformly from [lo, hi].
type Uniform struct{ lo, n int64 }

// NewUniform returns a uniform generator over [lo, hi].
func NewUniform(lo, hi int64) (*Uniform, error) {
	if hi < lo {
		return nil, fmt.Errorf("uniform: upper bound %d is below lower bound %d", hi, lo)
	}
	return &Uniform{lo: lo, n: hi - lo + 1}, nil
}

// Next implements Int.
func (u *Uniform) Next(r *rand.Rand) int64 { return u.lo + r.Int64N(u.n) }

// Hotspot draws from a hot set at the low end of [lo, hi] with probability
// hotOpnFraction and from the rest otherwise, uniformly within each: YCSB's
// HotspotIntegerGenerator.
type Hotspot struct {
	lo, hot, cold int64
	opn           float64
}

// NewHotspot returns a hotspot generator whose hot set is the first
// hotsetFraction of [lo, hi].
func NewHotspot(lo, hi int64, hotsetFraction, hotOpnFraction float64) (*Hotspot, error) {
	if hi < lo {
		return nil, fmt.Errorf("hotspot: upper bound %d is below lower bound %d", hi, lo)
	}
	if !(hotsetFraction >= 0 && hotsetFraction <= 1) {
		return nil, fmt.Errorf("hotspot: hotspotdatafraction %g: want a fraction in [0, 1]", hotsetFraction)
	}
	if !(hotOpnFraction >= 0 && hotOpnFraction <= 1) {
		return nil, fmt.Errorf("hotspot: hotspotopnfraction %g: want a fraction in [0, 1]", hotOpnFraction)
	}
	n := hi - lo + 1
	hot := int64(float64(n) * hotsetFraction)
	return &Hotspot{lo: lo, hot: hot, cold: n - hot, opn: hotOpnFraction}, nil
}

// Next implements Int. An empty hot or cold set sends every draw to the
// other one.
func (h *Hotspot) Next(r *rand.Rand) int64 {
	if h.cold == 0 || (h.hot > 0 && r.Float64() < h.opn) {
		return h.lo + r.Int64N(h.hot)
	}
	return h.lo + h.hot + r.Int64N(h.cold)
}

// Exponential draws from an exponential distribution: YCSB's
// ExponentialGenerator, where percentile% of draws fall below rangeVal.
type Exponential struct{ gamma float64 }

// NewExponential returns a generator for which percentile percent of the
// draws are below rangeVal.
func NewExponential(percentile, rangeVal float64) (*Exponential, error) {
	if !(percentile > 0 && percentile < 100) {
		return nil, fmt.Errorf("exponential: exponential.percentile %g: want a value in (0, 100)", percentile)
	}
	if !(rangeVal > 0) || math.IsInf(rangeVal, 0) {
		return nil, fmt.Errorf("exponential: range %g (recordcount x exponential.frac): want a positive number", rangeVal)
	}
	return &Exponential{gamma: -math.Log(1-percentile/100) / rangeVal}, nil
}

// NewExponentialMean returns a generator with the given mean.
func NewExponentialMean(mean float64) (*Exponential, error) {
	if !(mean > 0) || math.IsInf(mean, 0) {
		return nil, fmt.Errorf("exponential: mean %g: want a positive number", mean)
	}
	return &Exponential{gamma: 1 / mean}, nil
}

// Next implements Int.
func (e *Exponential) Next(r *rand.Rand) int64 {
	// 1-Float64 is in (0, 1]: the logarithm is finite.
	return int64(-math.Log(1-r.Float64()) / e.gamma)
}

// Sequential hands out lo, lo+1, ..., hi and starts again, as one sequence
// shared by every worker (YCSB's SequentialGenerator). Safe for concurrent
// use; the random source is not used.
type Sequential struct {
	lo, n int64
	next  atomic.Int64
}

// NewSequential returns a sequence over [lo, hi].
func NewSequential(lo, hi int64) (*Sequential, error) {
	if hi < lo {
		return nil, fmt.Errorf("sequential: upper bound %d is below lower bound %d", hi, lo)
	}
	return &Sequential{lo: lo, n: hi - lo + 1}, nil
}

// Next implements Int.
func (s *Sequential) Next(*rand.Rand) int64 {
	return s.lo + (s.next.Add(1)-1)%s.n
}

// Counter hands out start, start+1, ... to all workers. Safe for concurrent
// use; the random source is not used.
type Counter struct{ next atomic.Int64 }

// NewCounter returns a counter whose first value is start.
func NewCounter(start int64) *Counter {
	c := &Counter{}
	c.next.Store(start)
	return c
}

// Next implements Int.
func (c *Counter) Next(*rand.Rand) int64 { return c.next.Add(1) - 1 }

// Last returns the last value handed out (start-1 before the first).
func (c *Counter) Last() int64 { return c.next.Load() - 1 }
