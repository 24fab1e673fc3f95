package generator

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// FNV-1a 64-bit parameters.
const (
	fnvOffsetBasis64 = 0xCBF29CE484222325
	fnvPrime64       = 1099511628211
)

// FNVHash64 is YCSB's Utils.fnvhash64: FNV-1a over the eight bytes of v,
// least significant first, made non-negative the way Java's Math.abs does
// (so, as in Java, a hash equal to math.MinInt64 stays negative). It decides
// YCSB's key names and must not change.
func FNVHash64(v int64) int64 {
	h := uint64(fnvOffsetBasis64)
	u := uint64(v)
	for i := 0; i < 8; i++ {
		h ^= u & 0xff
		h *= fnvPrime64
		u >>= 8
	}
	s := int64(h)
	if s < 0 {
		s = -s
	}
	return s
}

// Discrete chooses an index with probability proportional to its weight:
// YCSB's DiscreteGenerator, used for the operation mix. Safe for concurrent
// use.
type Discrete struct {
	cum []float64
}

// NewDiscrete returns a chooser over the given weights.
func NewDiscrete(weights []float64) (*Discrete, error) {
	d := &Discrete{cum: make([]float64, len(weights))}
	sum := 0.0
	for i, w := range weights {
		if !(w >= 0) || w > 1e300 {
			return nil, fmt.Errorf("discrete: weight %d is %g: want a finite number >= 0", i, w)
		}
		sum += w
		d.cum[i] = sum
	}
	if sum <= 0 {
		return nil, fmt.Errorf("discrete: no positive weight among %v", weights)
	}
	for i := range d.cum {
		d.cum[i] /= sum
	}
	return d, nil
}

// Next returns the chosen index. Zero-weight entries are never chosen.
func (d *Discrete) Next(r *rand.Rand) int {
	u := r.Float64()
	last := 0
	for i, c := range d.cum {
		if i > 0 && c == d.cum[i-1] {
			continue // zero weight
		}
		if c > 0 {
			last = i
		}
		if u < c {
			return i
		}
	}
	// Rounding left u at or above the last cumulative value.
	return last
}

// ackWindow is the number of run-phase inserts that may be outstanding
// (handed out, not yet acknowledged) at once; YCSB's value.
const ackWindow = 1 << 20

// AcknowledgedCounter hands out run-phase insert key numbers and tracks
// which of them have completed, as YCSB's AcknowledgedCounterGenerator:
// Last returns the highest value below which every value handed out has
// been acknowledged, so readers never choose a key whose insert has not
// finished. Safe for concurrent use.
type AcknowledgedCounter struct {
	next   atomic.Int64
	limit  atomic.Int64
	mu     sync.Mutex
	window []bool
}

// NewAcknowledgedCounter returns a counter whose first value is start.
func NewAcknowledgedCounter(start int64) *AcknowledgedCounter {
	c := &AcknowledgedCounter{window: make([]bool, ackWindow)}
	c.next.Store(start)
	c.limit.Store(start - 1)
	return c
}

// Next implements Int; the random source is not used.
func (c *AcknowledgedCounter) Next(*rand.Rand) int64 { return c.next.Add(1) - 1 }

// Last returns the acknowledged limit.
func (c *AcknowledgedCounter) Last() int64 { return c.limit.Load() }

// Acknowledge marks v as completed and advances the limit over every
// contiguous completed value.
func (c *AcknowledgedCounter) Acknowledge(v int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	limit := c.limit.Load()
	if v <= limit {
		return fmt.Errorf("acknowledged counter: %d acknowledged twice", v)
	}
	if v-limit > ackWindow {
		return fmt.Errorf("acknowledged counter: %d is more than %d ahead of the acknowledged limit %d", v, ackWindow, limit)
	}
	if c.window[v&(ackWindow-1)] {
		return fmt.Errorf("acknowledged counter: %d acknowledged twice", v)
	}
	c.window[v&(ackWindow-1)] = true
	for {
		slot := (limit + 1) & (ackWindow - 1)
		if !c.window[slot] {
			break
		}
		c.window[slot] = false
		limit++
	}
	c.limit.Store(limit)
	return nil
}
