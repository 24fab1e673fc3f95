package generator

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// ZipfianConstant is YCSB's default skew (theta) for zipfian choosers.
const ZipfianConstant = 0.99

// Scrambled zipfian constants from YCSB: the underlying zipfian spans ten
// billion items whose zeta at theta 0.99 is precomputed, so no run pays for
// summing ten billion terms.
const (
	scrambledItemCount = 10_000_000_000
	scrambledZetan     = 26.46902820178302
)

// Zipfian draws from [min, max] with item i (counted from min) chosen with
// probability roughly proportional to 1/(i+1)^theta, by the method of Gray
// et al., "Quickly Generating Billion-Record Synthetic Databases" (SIGMOD
// 1994), as YCSB's ZipfianGenerator does.
//
// Next is safe for concurrent use. NextN, which follows a changing item
// count, updates the generator: an instance that uses it belongs to one
// worker.
type Zipfian struct {
	base, items  int64
	theta, alpha float64
	zeta2theta   float64
	zetan, eta   float64
	halfPowTheta float64
	countForZeta int64
}

// NewZipfian returns a zipfian generator over [min, max] with skew theta.
// It sums max-min+1 terms: about 10 ms per million items.
func NewZipfian(min, max int64, theta float64) (*Zipfian, error) {
	if err := checkZipfian(min, max, theta); err != nil {
		return nil, err
	}
	return newZipfian(min, max, theta, Zeta(max-min+1, theta)), nil
}

// NewZipfianWithZeta is NewZipfian with zeta(max-min+1, theta) given.
func NewZipfianWithZeta(min, max int64, theta, zetan float64) (*Zipfian, error) {
	if err := checkZipfian(min, max, theta); err != nil {
		return nil, err
	}
	if !(zetan >= 1) {
		return nil, fmt.Errorf("zipfian: zeta %g: want a value >= 1", zetan)
	}
	return newZipfian(min, max, theta, zetan), nil
}

func checkZipfian(min, max int64, theta float64) error {
	if max < min {
		return fmt.Errorf("zipfian: upper bound %d is below lower bound %d", max, min)
	}
	if !(theta > 0 && theta < 1) {
		return fmt.Errorf("zipfian: constant (theta) %g: want a value in (0, 1)", theta)
	}
	return nil
}

func newZipfian(min, max int64, theta, zetan float64) *Zipfian {
	z := &Zipfian{base: min, items: max - min + 1, theta: theta, alpha: 1 / (1 - theta), zetan: zetan}
	z.zeta2theta = Zeta(2, theta)
	z.halfPowTheta = math.Pow(0.5, theta)
	z.countForZeta = z.items
	z.eta = z.computeEta()
	return z
}

// computeEta uses the item count the generator was built with, also after
// NextN has changed the count: YCSB does the same, and matching it keeps
// the "latest" distribution identical.
func (z *Zipfian) computeEta() float64 {
	return (1 - math.Pow(2/float64(z.items), 1-z.theta)) / (1 - z.zeta2theta/z.zetan)
}

// Zeta returns the sum over i = 1..n of 1/i^theta.
func Zeta(n int64, theta float64) float64 { return zetaFrom(0, n, theta, 0) }

// zetaFrom adds the terms i = from+1..n to sum.
func zetaFrom(from, n int64, theta, sum float64) float64 {
	for i := from; i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum
}

// Next implements Int.
func (z *Zipfian) Next(r *rand.Rand) int64 { return z.draw(r, z.items) }

// NextN draws over the first itemCount items, updating zeta when the count
// changed since the previous call: incrementally when it grew, from scratch
// when it shrank.
func (z *Zipfian) NextN(r *rand.Rand, itemCount int64) int64 {
	if itemCount != z.countForZeta {
		if itemCount > z.countForZeta {
			z.zetan = zetaFrom(z.countForZeta, itemCount, z.theta, z.zetan)
		} else {
			z.zetan = Zeta(itemCount, z.theta)
		}
		z.countForZeta = itemCount
		z.eta = z.computeEta()
	}
	return z.draw(r, itemCount)
}

func (z *Zipfian) draw(r *rand.Rand, itemCount int64) int64 {
	u := r.Float64()
	uz := u * z.zetan
	if uz < 1 {
		return z.base
	}
	if uz < 1+z.halfPowTheta {
		return z.base + 1
	}
	// x^alpha as exp(alpha*ln x): math.Pow handles every special case of
	// its arguments and costs twice as much; here x is in (0, 1].
	return z.base + int64(float64(itemCount)*math.Exp(z.alpha*math.Log(z.eta*u-z.eta+1)))
}

// Clone returns an independent copy, for giving each worker its own
// stateful generator without summing zeta again.
func (z *Zipfian) Clone() *Zipfian {
	c := *z
	return &c
}

// ScrambledZipfian is YCSB's ScrambledZipfianGenerator: zipfian popularity,
// but with the popular items spread over [min, max] by hashing, so that they
// are not clustered at the low end of the key space. Safe for concurrent
// use.
type ScrambledZipfian struct {
	min, itemCount int64
	gen            *Zipfian
}

// NewScrambledZipfian returns YCSB's scrambled zipfian over [min, max] with
// theta 0.99.
func NewScrambledZipfian(min, max int64) (*ScrambledZipfian, error) {
	return NewScrambledZipfianTheta(min, max, ZipfianConstant)
}

// NewScrambledZipfianTheta is NewScrambledZipfian with another skew. With
// theta 0.99 it uses YCSB's precomputed ten-billion-item zipfian; otherwise
// it sums zeta over max-min+1 items.
func NewScrambledZipfianTheta(min, max int64, theta float64) (*ScrambledZipfian, error) {
	if max < min {
		return nil, fmt.Errorf("scrambled zipfian: upper bound %d is below lower bound %d", max, min)
	}
	s := &ScrambledZipfian{min: min, itemCount: max - min + 1}
	var err error
	if theta == ZipfianConstant {
		s.gen, err = NewZipfianWithZeta(0, scrambledItemCount, theta, scrambledZetan)
	} else {
		s.gen, err = NewZipfian(0, s.itemCount-1, theta)
	}
	if err != nil {
		return nil, fmt.Errorf("scrambled %w", err)
	}
	return s, nil
}

// Next implements Int.
func (s *ScrambledZipfian) Next(r *rand.Rand) int64 {
	return s.min + FNVHash64(s.gen.Next(r))%s.itemCount
}

// SkewedLatest favours the most recently inserted records: YCSB's
// SkewedLatestGenerator draws last - zipfian(last), where last is the
// newest acknowledged record. It belongs to one worker.
type SkewedLatest struct {
	basis LastValuer
	zipf  *Zipfian
}

// NewSkewedLatest returns a generator skewed towards basis.Last().
func NewSkewedLatest(basis LastValuer) *SkewedLatest {
	items := basis.Last()
	if items < 1 {
		items = 1
	}
	// Theta is in range: this cannot fail.
	z, _ := NewZipfian(0, items-1, ZipfianConstant)
	return &SkewedLatest{basis: basis, zipf: z}
}

// Clone returns an independent copy sharing the basis, without summing zeta
// again.
func (s *SkewedLatest) Clone() *SkewedLatest {
	return &SkewedLatest{basis: s.basis, zipf: s.zipf.Clone()}
}

// Next implements Int.
func (s *SkewedLatest) Next(r *rand.Rand) int64 {
	last := s.basis.Last()
	if last <= 0 {
		return 0
	}
	return last - s.zipf.NextN(r, last)
}
