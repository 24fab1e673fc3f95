// Package capacity answers how much a deployment can serve: the highest
// rate it sustains at a latency objective, searched for probe by probe
// (open loop, so the latency of every probe is free of coordinated
// omission). The search only decides which rate to offer next and what
// the probes so far prove; running a probe is the caller's.
package capacity

import (
	"errors"
	"fmt"
	"math"

	"github.com/dbarena/dbarena/results"
)

// Outcome is what a probe says of its rate.
type Outcome int

// Outcomes of a probe.
const (
	// Met: every latency bound held, the achieved rate kept up with
	// the offered one, and errors stayed within the policy.
	Met Outcome = iota
	// Missed: the database missed a bound or could not keep up.
	Missed
	// Unfair: the probe proves nothing of the database: the client or
	// its machine made the result (operations started late, workers
	// busy outside the database, the machine saturated), or the
	// throughput was not steady. It is probed again, with more
	// workers where the client ran short.
	Unfair
)

func (o Outcome) String() string {
	switch o {
	case Met:
		return "met"
	case Missed:
		return "missed"
	}
	return "unfair"
}

// Probe is one rate tried and what it showed.
type Probe struct {
	// Rate is the offered rate (operations per second), Achieved the
	// rate the database served.
	Rate, Achieved float64
	Threads        int
	Outcome        Outcome
	// Why says what missed, or what made the probe unfair ("" when met).
	Why string
	// Borderline marks a probe whose latency lay within the noise of a
	// bound: it is repeated once, and met only if both met.
	Borderline bool
	// Score is how the probe's worst figure stood against the
	// objective: 1 at it, below 1 met (0.5: half the bound), above 1
	// missed; 0 when not known. The search interpolates the rate where
	// the score crosses 1 between the closest met and missed probes.
	Score float64
}

// maxScore is the highest score the interpolation trusts: a probe far
// past the objective (past saturation, its latency grows without bound)
// says nothing of where the curve crosses it, and the bracket's middle
// is the better next rate.
const maxScore = 4

// Options tune a search.
type Options struct {
	// Hint is an estimate of the most the deployment serves at all
	// (the throughput of a closed loop at saturation): the first probe
	// offers StartShare of it, the second, when the first met, all of
	// it. Zero: Start is the first rate.
	Hint float64
	// Start is the first rate when there is no Hint.
	Start float64
	// Expect is a prediction of the rate sought (from other sizes of
	// the same database), Spread its relative uncertainty: the first
	// probe offers Expect x (1 - Spread), the second Expect x (1 +
	// Spread) when the first met, or halfway down again when it
	// missed. A good prediction brackets the rate in two probes instead
	// of the Hint's four to six. Zero: no prediction.
	Expect, Spread float64
	// Resolution is how close the highest met rate and the lowest missed
	// one must come, relative to the met one (default 0.05).
	Resolution float64
	// MaxProbes bounds the probes, repetitions included (default 12).
	MaxProbes int
	// MinRate ends a search whose rates fall below it with nothing met
	// (default 1 op/s).
	MinRate float64
	// Retries bounds the unfair probes of one rate before the search
	// gives up (default 2).
	Retries int
}

// StartShare is the share of Options.Hint the first probe offers: a
// closed loop's saturation throughput is the most the database serves
// at all, and the objective is met below it.
const StartShare = 0.5

// defaults fills the zero options.
func (o *Options) defaults() {
	if o.Resolution == 0 {
		o.Resolution = 0.05
	}
	if o.MaxProbes == 0 {
		o.MaxProbes = 12
	}
	if o.MinRate == 0 {
		o.MinRate = 1
	}
	if o.Retries == 0 {
		o.Retries = 2
	}
}

// Search is the state of one search. It is not safe for concurrent use.
type Search struct {
	o      Options
	probes []Probe
	// lo is the highest rate met (0: none), hi the lowest missed
	// (+Inf: none), with their probes' scores (0: unknown).
	lo, hi           float64
	loScore, hiScore float64
	// kept counts the probes in a row that moved the other end of the
	// bracket while this one stayed (lo, hi): the interpolation's
	// Illinois rule halves a stale end's weight so that it cannot hold
	// every step near the end that moves.
	keptLo, keptHi int
	// repeat is the rate to probe again ("0": none), and unfair the
	// unfair probes at it so far.
	repeat float64
	unfair int
	// first is the borderline probe waiting for its repetition.
	first *Probe
	// stop says why the search ended ("" while it goes on).
	stop string
	// notes are what a reader should know (a met rate above a miss).
	notes []string
}

// New starts a search.
func New(o Options) (*Search, error) {
	o.defaults()
	switch {
	case !(o.Resolution > 0 && o.Resolution <= 1):
		return nil, fmt.Errorf("capacity: resolution %g: want a share above 0 and at most 1 (0.05 is 5%%)", o.Resolution)
	case o.MaxProbes < 2:
		return nil, fmt.Errorf("capacity: max probes %d: want at least 2", o.MaxProbes)
	case !(o.Hint >= 0) || math.IsInf(o.Hint, 0):
		return nil, fmt.Errorf("capacity: hint %g: want a finite rate of 0 or more", o.Hint)
	case o.Hint == 0 && !(o.Start > 0 && !math.IsInf(o.Start, 0)):
		return nil, errors.New("capacity: no hint and no start: want a first rate above 0")
	case !(o.Expect >= 0) || math.IsInf(o.Expect, 0) || o.Expect > 0 && !(o.Spread > 0 && o.Spread < 1):
		return nil, fmt.Errorf("capacity: expected rate %g with spread %g: want a finite rate of 0 or more and a spread above 0 and below 1", o.Expect, o.Spread)
	}
	return &Search{o: o, hi: math.Inf(1)}, nil
}

// Next returns the rate the next probe offers; ok is false once the
// search has ended (Result says why).
func (s *Search) Next() (rate float64, ok bool) {
	if s.stop != "" {
		return 0, false
	}
	if len(s.probes) >= s.o.MaxProbes {
		s.stop = fmt.Sprintf("the probes ran out (%d)", s.o.MaxProbes)
		return 0, false
	}
	if s.repeat > 0 {
		return s.repeat, true
	}
	switch {
	case s.lo == 0 && math.IsInf(s.hi, 1):
		if e := s.expected(-1); e > 0 {
			return e, true
		}
		if s.o.Hint > 0 {
			return StartShare * s.o.Hint, true
		}
		return s.o.Start, true
	case s.lo == 0:
		rate = s.hi / 2
		if e := s.expected(-1); e > 0 && e == s.hi {
			// The prediction's low end missed: as far again below
			// it, once; halving after that.
			rate = math.Max(rate, s.hi*(1-2*s.o.Spread))
		}
		if rate < s.o.MinRate {
			s.stop = fmt.Sprintf("no rate met the objective down to %s ops/s", results.FormatOps(s.hi))
			return 0, false
		}
		return rate, true
	case math.IsInf(s.hi, 1):
		if e := s.expected(1); e > s.lo*(1+s.o.Resolution) {
			return e, true
		}
		if e := s.expected(1); e > 0 && s.lo == e {
			// Both ends of the prediction met: it was low; four
			// spreads on rather than all the way to the hint.
			next := s.lo * (1 + 4*s.o.Spread)
			if s.o.Hint > s.lo*(1+s.o.Resolution) {
				next = math.Min(next, s.o.Hint)
			}
			return next, true
		}
		if s.o.Hint > s.lo*(1+s.o.Resolution) {
			return s.o.Hint, true
		}
		return 2 * s.lo, true
	case s.hi <= s.lo*(1+s.o.Resolution):
		s.stop = fmt.Sprintf("resolved: the lowest rate missed is %.1f%% above the highest met", 100*(s.hi/s.lo-1))
		return 0, false
	}
	return s.between(), true
}

// expected is the prediction moved by its spread below (side -1) or
// above (+1) it, kept within the Hint (no rate above the most served at
// all is sustainable); 0 without a prediction.
func (s *Search) expected(side float64) float64 {
	if s.o.Expect == 0 {
		return 0
	}
	e := s.o.Expect * (1 + side*s.o.Spread)
	if s.o.Hint > 0 {
		e = math.Min(e, s.o.Hint)
	}
	return e
}

// between is the next rate inside the bracket: where the scores of its
// ends, interpolated on log scales, cross 1 (a probe's latency grows
// smoothly with its rate below saturation), kept at least half the
// resolution inside either end so that the bracket always narrows; the
// geometric middle when a score is unknown or the ends are too close.
func (s *Search) between() float64 {
	mid := math.Sqrt(s.lo * s.hi)
	step := 1 + s.o.Resolution/2
	low, high := s.lo*step, s.hi/step
	if low >= high {
		return mid
	}
	if !(s.loScore > 0 && s.loScore <= 1 && s.hiScore > 1 && s.hiScore <= maxScore) {
		return mid
	}
	a := math.Log(s.loScore) / illinois(s.keptLo)
	b := math.Log(s.hiScore) / illinois(s.keptHi)
	t := -a / (b - a)
	next := math.Exp(math.Log(s.lo) + t*(math.Log(s.hi)-math.Log(s.lo)))
	return math.Min(math.Max(next, low), high)
}

// illinois is the divisor of a bracket end's log-score after it stayed
// kept times in a row: halved each time from the second on.
func illinois(kept int) float64 {
	if kept < 2 {
		return 1
	}
	return math.Pow(2, float64(kept-1))
}

// Record adds the probe of the rate Next returned.
func (s *Search) Record(p Probe) {
	s.probes = append(s.probes, p)
	if p.Outcome == Unfair {
		if p.Rate != s.repeat {
			s.unfair = 0
		}
		s.unfair++
		s.repeat = p.Rate
		if s.unfair > s.o.Retries {
			s.stop = fmt.Sprintf("%d probes at %s ops/s in a row proved nothing of the database (%s)", s.unfair, results.FormatOps(p.Rate), p.Why)
		}
		return
	}
	s.unfair = 0
	if p.Borderline && s.first == nil {
		// Within the noise of a bound: once more before it counts.
		c := p
		s.first, s.repeat = &c, p.Rate
		return
	}
	out := p.Outcome
	if s.first != nil {
		if s.first.Outcome != Met {
			out = Missed
		}
		s.first = nil
	}
	s.repeat = 0
	switch out {
	case Met:
		if p.Rate >= s.hi {
			// Noise, or a miss that was not the database's: the
			// miss below stands, and the reader hears of both.
			s.notes = append(s.notes, fmt.Sprintf("%s ops/s met the objective above %s ops/s, which missed it: the bracket keeps the miss", results.FormatOps(p.Rate), results.FormatOps(s.hi)))
			return
		}
		if p.Rate > s.lo {
			s.lo, s.loScore = p.Rate, p.Score
			s.keptLo, s.keptHi = 0, s.keptHi+1
		}
	case Missed:
		if p.Rate <= s.lo {
			s.notes = append(s.notes, fmt.Sprintf("%s ops/s missed the objective below %s ops/s, which met it: the bracket keeps the met rate", results.FormatOps(p.Rate), results.FormatOps(s.lo)))
			return
		}
		if p.Rate < s.hi {
			s.hi, s.hiScore = p.Rate, p.Score
			s.keptHi, s.keptLo = 0, s.keptLo+1
		}
	}
}

// Result is what a search found.
type Result struct {
	// Found says a rate met the objective; Rate is the highest that
	// did, Ceiling the lowest above it that missed (0: none probed).
	Found         bool
	Rate, Ceiling float64
	// Resolved says the two came within the resolution.
	Resolved bool
	// Stop says why the search ended; Notes what a reader should know.
	Stop  string
	Notes []string
	// Probes are in the order run.
	Probes []Probe
}

// Result returns what the probes so far prove.
func (s *Search) Result() Result {
	r := Result{Found: s.lo > 0, Rate: s.lo, Stop: s.stop, Notes: s.notes, Probes: s.probes}
	if !math.IsInf(s.hi, 1) {
		r.Ceiling = s.hi
	}
	r.Resolved = r.Found && r.Ceiling > 0 && r.Ceiling <= r.Rate*(1+s.o.Resolution)
	return r
}

// Headroom is the factor Threads gives Little's law: a worker of an open
// loop must be free when its next operation is due, and latency varies
// around its mean (its p99 is commonly several times the mean).
const Headroom = 4

// Threads is the workers a probe at rate needs by Little's law, L = λW:
// rate times the seconds each operation holds a worker (its mean latency
// at rates that met the objective), times Headroom, rounded up; at least
// least, at most most.
func Threads(rate, latencySeconds float64, least, most int) int {
	n := math.Ceil(rate * latencySeconds * Headroom)
	if !(n >= float64(least)) { // NaN too
		return least
	}
	if n > float64(most) {
		return most
	}
	return int(n)
}
