package capacity

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// queue is a system whose capacity is known: at offered rate r it serves
// min(r, c), and its p99 latency grows as a single queue's does, base /
// (1 - r/c), without bound at c. Its p99 meets a bound b up to
// r* = c (1 - base/b).
type queue struct{ c, base float64 }

func (q queue) probe(r, bound float64) Probe {
	p := Probe{Rate: r, Achieved: math.Min(r, q.c)}
	p99 := math.Inf(1)
	if r < q.c {
		p99 = q.base / (1 - r/q.c)
	}
	p.Score = p99 / bound
	if short := 0.95 * r / p.Achieved; short > 1 {
		p.Score = math.Max(p.Score, short)
	}
	if p99 <= bound && p.Achieved >= 0.95*r {
		p.Outcome = Met
	} else {
		p.Outcome, p.Why = Missed, "p99 over the bound"
	}
	return p
}

func (q queue) threshold(bound float64) float64 { return q.c * (1 - q.base/bound) }

// run searches q to the end and returns the result.
func run(t *testing.T, o Options, probe func(float64) Probe) Result {
	t.Helper()
	s, err := New(o)
	require.NoError(t, err)
	for range 100 {
		r, ok := s.Next()
		if !ok {
			return s.Result()
		}
		s.Record(probe(r))
	}
	t.Fatal("the search never ended")
	return Result{}
}

// TestSearchBracketsTheKnownThreshold searches queues whose threshold is
// known, from a closed loop's hint and from a bare start above and far
// below it: the highest met rate lies at or below the threshold, the
// lowest missed above it, within the resolution, in a handful of probes
// (the interpolation between the bracket's scores saves up to 2 of the
// bisection's 6 to 9).
func TestSearchBracketsTheKnownThreshold(t *testing.T) {
	for name, c := range map[string]struct {
		q     queue
		bound float64
		o     Options
		most  int
	}{
		"hint, threshold at 80%":      {queue{10000, 1}, 5, Options{Hint: 10000}, 6},
		"hint, threshold at 98%":      {queue{10000, 0.1}, 5, Options{Hint: 10000}, 6},
		"hint, threshold at 30%":      {queue{10000, 3.5}, 5, Options{Hint: 10000}, 6},
		"start above the threshold":   {queue{5000, 1}, 2, Options{Start: 20000}, 6},
		"start far below":             {queue{50000, 1}, 4, Options{Start: 100}, 14},
		"resolution 1%":               {queue{10000, 1}, 5, Options{Hint: 10000, Resolution: 0.01}, 8},
		"hint below the true ceiling": {queue{10000, 0.5}, 5, Options{Hint: 4000}, 9},
	} {
		t.Run(name, func(t *testing.T) {
			if c.o.MaxProbes == 0 {
				c.o.MaxProbes = 20
			}
			res := run(t, c.o, func(r float64) Probe { return c.q.probe(r, c.bound) })
			want := c.q.threshold(c.bound)
			resolution := c.o.Resolution
			if resolution == 0 {
				resolution = 0.05
			}
			require.True(t, res.Found, "%+v", res)
			require.True(t, res.Resolved, "%+v", res)
			require.LessOrEqual(t, res.Rate, want)
			require.Greater(t, res.Ceiling, want)
			require.LessOrEqual(t, res.Ceiling, res.Rate*(1+resolution))
			require.LessOrEqual(t, len(res.Probes), c.most, "probes: %+v", res.Probes)
			require.Contains(t, res.Stop, "resolved")
			t.Logf("threshold %.0f: met %.0f, missed %.0f, %d probes", want, res.Rate, res.Ceiling, len(res.Probes))
		})
	}
}

// TestSearchNothingMet: a system that misses at every rate ends below
// MinRate with nothing found, saying so.
func TestSearchNothingMet(t *testing.T) {
	res := run(t, Options{Start: 1000, MaxProbes: 30}, func(r float64) Probe {
		return Probe{Rate: r, Achieved: r, Outcome: Missed, Why: "p99 over the bound"}
	})
	require.False(t, res.Found)
	require.Zero(t, res.Rate)
	require.Contains(t, res.Stop, "no rate met the objective down to 2 ops/s")
	require.Len(t, res.Probes, 10, "1000, 500 ... 1.95")
}

// TestSearchProbesRunOut: a search that may not resolve stops at
// MaxProbes with what it has, unresolved.
func TestSearchProbesRunOut(t *testing.T) {
	q := queue{10000, 1}
	res := run(t, Options{Hint: 10000, MaxProbes: 3}, func(r float64) Probe { return q.probe(r, 5) })
	require.Len(t, res.Probes, 3)
	require.True(t, res.Found)
	require.False(t, res.Resolved)
	require.Equal(t, "the probes ran out (3)", res.Stop)
}

// TestSearchUnfairProbes: a probe the client spoiled is probed again, up
// to Retries times, and then the search gives up rather than judge the
// database by it; one spoiled probe between fair ones changes nothing.
func TestSearchUnfairProbes(t *testing.T) {
	q := queue{10000, 1}
	spoiled := 0
	res := run(t, Options{Hint: 10000, MaxProbes: 20}, func(r float64) Probe {
		if r == 10000 && spoiled == 0 {
			spoiled++
			return Probe{Rate: r, Outcome: Unfair, Why: "operations started late"}
		}
		return q.probe(r, 5)
	})
	require.True(t, res.Resolved, "%+v", res)
	require.Equal(t, 10000.0, res.Probes[2].Rate, "the spoiled rate probed again")

	res = run(t, Options{Hint: 10000, MaxProbes: 20}, func(r float64) Probe {
		return Probe{Rate: r, Outcome: Unfair, Why: "client-bound"}
	})
	require.False(t, res.Found)
	require.Len(t, res.Probes, 3, "the first try and two retries")
	require.Equal(t, "3 probes at 5,000 ops/s in a row proved nothing of the database (client-bound)", res.Stop)
}

// TestSearchBorderlineRepeats: a probe near a bound is repeated, and
// met only if its repetition meets too.
func TestSearchBorderlineRepeats(t *testing.T) {
	for name, second := range map[string]Outcome{"both met": Met, "repetition missed": Missed} {
		t.Run(name, func(t *testing.T) {
			s, err := New(Options{Start: 1000})
			require.NoError(t, err)
			r, _ := s.Next()
			s.Record(Probe{Rate: r, Outcome: Met, Borderline: true})
			again, ok := s.Next()
			require.True(t, ok)
			require.Equal(t, r, again, "repeated")
			s.Record(Probe{Rate: again, Outcome: second})
			res := s.Result()
			require.Equal(t, second == Met, res.Found)
			next, _ := s.Next()
			if second == Met {
				require.Equal(t, 2000.0, next, "up from a met rate")
			} else {
				require.Equal(t, 500.0, next, "down from a missed one")
			}
		})
	}
}

// TestSearchKeepsTheBracketAgainstNoise: a met rate above a miss, or a
// miss below a met rate, leaves the bracket and adds a note.
func TestSearchKeepsTheBracketAgainstNoise(t *testing.T) {
	s, err := New(Options{Start: 1000})
	require.NoError(t, err)
	s.Record(Probe{Rate: 1000, Outcome: Met})
	s.Record(Probe{Rate: 2000, Outcome: Missed})
	s.Record(Probe{Rate: 2500, Outcome: Met})
	s.Record(Probe{Rate: 900, Outcome: Missed})
	res := s.Result()
	require.Equal(t, 1000.0, res.Rate)
	require.Equal(t, 2000.0, res.Ceiling)
	require.Len(t, res.Notes, 2)
	require.Contains(t, res.Notes[0], "2,500 ops/s met the objective above 2,000 ops/s")
	require.Contains(t, res.Notes[1], "900 ops/s missed the objective below 1,000 ops/s")
}

func TestNewRefusesBadOptions(t *testing.T) {
	for name, o := range map[string]Options{
		"no start":          {},
		"resolution 0":      {Start: 1, Resolution: -1},
		"resolution 2":      {Start: 1, Resolution: 2},
		"NaN hint":          {Hint: math.NaN()},
		"one probe":         {Start: 1, MaxProbes: 1},
		"infinite start":    {Start: math.Inf(1)},
		"resolution is NaN": {Start: 1, Resolution: math.NaN()},
	} {
		_, err := New(o)
		require.Error(t, err, name)
	}
}

// TestThreads sizes an open loop's workers by Little's law with
// headroom, within its bounds.
func TestThreads(t *testing.T) {
	require.Equal(t, 20, Threads(10000, 0.0005, 2, 1000), "10,000 ops/s x 0.5 ms x 4")
	require.Equal(t, 2, Threads(10, 0.001, 2, 1000), "at least the least")
	require.Equal(t, 1000, Threads(1e6, 1, 2, 1000), "at most the most")
	require.Equal(t, 2, Threads(1000, math.NaN(), 2, 1000), "no latency yet")
}

// TestSearchInterpolates: between a met probe at half the bound and a
// missed one at twice it, the next rate is where the scores' log-log
// line crosses 1, not the bracket's middle; with a score unknown or far
// past the objective, the middle; always at least half the resolution
// inside the bracket.
func TestSearchInterpolates(t *testing.T) {
	next := func(loScore, hiScore float64) float64 {
		s, err := New(Options{Start: 1000})
		require.NoError(t, err)
		s.Record(Probe{Rate: 1000, Outcome: Met, Score: loScore})
		s.Record(Probe{Rate: 4000, Outcome: Missed, Score: hiScore})
		r, ok := s.Next()
		require.True(t, ok)
		return r
	}
	require.InDelta(t, 2000, next(0.5, 2), 1e-6, "the crossing, halfway on log scales")
	require.InDelta(t, 2923, next(0.25, 1.5), 1, "nearer the missed end")
	require.InDelta(t, 2000, next(0, 2), 1e-6, "no score: the middle")
	require.InDelta(t, 2000, next(0.5, 50), 1e-6, "far past the objective: the middle")
	require.InDelta(t, 1025, next(0.99999, 3), 1e-6, "kept half the resolution inside")
}

// TestSearchFromAPrediction: a prediction of the rate sought (other
// sizes of the database) brackets it at once when it is good, costs
// little when it is off either way, and never offers more than the
// closed loop served.
func TestSearchFromAPrediction(t *testing.T) {
	// The objective holds to 40% of the closed loop, as it did for Redis
	// under a CPU quota: the hint alone takes a while to get there.
	q := queue{c: 10000, base: 3}
	const bound = 5.0
	want := q.threshold(bound) // 4,000
	probe := func(r float64) Probe { return q.probe(r, bound) }
	plain := run(t, Options{Hint: q.c}, probe)
	require.True(t, plain.Resolved)
	for name, c := range map[string]struct {
		expect, spread float64
		most           int
	}{
		"good":     {want, 0.1, len(plain.Probes) - 1},
		"5% high":  {want * 1.05, 0.1, len(plain.Probes) - 1},
		"20% low":  {want * 0.8, 0.1, len(plain.Probes) + 1},
		"30% high": {want * 1.3, 0.1, len(plain.Probes)},
	} {
		t.Run(name, func(t *testing.T) {
			r := run(t, Options{Hint: q.c, Expect: c.expect, Spread: c.spread}, probe)
			require.True(t, r.Resolved, "%+v", r)
			require.LessOrEqual(t, r.Rate, want)
			require.Greater(t, r.Ceiling, want)
			t.Logf("%s: %d probes (%d without the prediction)", name, len(r.Probes), len(plain.Probes))
			require.LessOrEqual(t, len(r.Probes), c.most)
			for _, p := range r.Probes {
				require.LessOrEqual(t, p.Rate, q.c, "never above the hint")
			}
		})
	}
	_, err := New(Options{Hint: 1, Expect: 5, Spread: 0})
	require.ErrorContains(t, err, "spread")
	_, err = New(Options{Hint: 1, Expect: math.NaN(), Spread: 0.1})
	require.Error(t, err)
}
