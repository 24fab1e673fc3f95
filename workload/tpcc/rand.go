package tpcc

import (
	"math/rand/v2"
	"strconv"
)

// Random draws TPC-C's values (clause 4.3.2 of the specification): uniform
// integers, NURand's non-uniform ones, random strings, customer last
// names. It is not safe for concurrent use: each terminal and loader has
// its own.
type Random struct {
	r *rand.Rand
	c Constants
}

// Constants are NURand's C values (clause 2.1.6): one for C_LAST, C_ID
// and OL_I_ID each. The load's C_LAST and the run's must differ by a
// delta the specification bounds (RunConstants), so that the run's last
// names do not all hit the loaded ones' hot set.
type Constants struct {
	CLast, CID, OLIID int
}

// NewRandom returns a Random seeded with seed, drawing with constants c.
func NewRandom(seed uint64, c Constants) *Random {
	return &Random{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), c: c}
}

// LoadConstants are the constants of every load: drawn once, from a
// fixed seed, so that a run, measured apart from its load, knows the
// load's C_LAST that its own must keep its distance from.
func LoadConstants() Constants {
	r := rand.New(rand.NewPCG(0, 1))
	return Constants{CLast: r.IntN(256), CID: r.IntN(1024), OLIID: r.IntN(8192)}
}

// RunConstants draws the constants of a run: C_LAST so that its
// distance from the load's is in 65..119 but not 96 or 112 (clause
// 2.1.6.1), the others anew.
func RunConstants(seed uint64) Constants {
	load := LoadConstants()
	r := rand.New(rand.NewPCG(seed, 2))
	c := Constants{CID: r.IntN(1024), OLIID: r.IntN(8192)}
	for {
		c.CLast = r.IntN(256)
		d := c.CLast - load.CLast
		if d < 0 {
			d = -d
		}
		if d >= 65 && d <= 119 && d != 96 && d != 112 {
			return c
		}
	}
}

// Int returns a uniform integer in [lo, hi].
func (g *Random) Int(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// Float returns a uniform decimal in [lo, hi] with the given number of
// digits after the point.
func (g *Random) Float(lo, hi float64, digits int) float64 {
	scale := 1.0
	for range digits {
		scale *= 10
	}
	return float64(g.Int(int(lo*scale+0.5), int(hi*scale+0.5))) / scale
}

// nurand is NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) %
// (y - x + 1)) + x.
func (g *Random) nurand(a, c, x, y int) int {
	return ((g.Int(0, a)|g.Int(x, y))+c)%(y-x+1) + x
}

// CustomerID draws a customer's C_ID, NURand(1023, 1, 3000).
func (g *Random) CustomerID() int { return g.nurand(1023, g.c.CID, 1, CustomersPerDistrict) }

// ItemID draws an order line's OL_I_ID, NURand(8191, 1, 100000).
func (g *Random) ItemID() int { return g.nurand(8191, g.c.OLIID, 1, Items) }

// LastNameNumber draws the number of a customer's last name,
// NURand(255, 0, 999).
func (g *Random) LastNameNumber() int { return g.nurand(255, g.c.CLast, 0, 999) }

// AString returns a random alphanumeric string of lo to hi characters.
func (g *Random) AString(lo, hi int) string {
	const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, g.Int(lo, hi))
	for i := range b {
		b[i] = chars[g.r.IntN(len(chars))]
	}
	return string(b)
}

// NString returns a random numeric string of lo to hi digits.
func (g *Random) NString(lo, hi int) string {
	b := make([]byte, g.Int(lo, hi))
	for i := range b {
		b[i] = byte('0' + g.r.IntN(10))
	}
	return string(b)
}

// Zip returns a zip code: four random digits and "11111".
func (g *Random) Zip() string { return g.NString(4, 4) + "11111" }

// Data returns I_DATA or S_DATA: 26 to 50 characters, 10% of them with
// "ORIGINAL" at a random place (clause 4.3.3.1).
func (g *Random) Data() string {
	s := g.AString(26, 50)
	if g.r.IntN(10) != 0 {
		return s
	}
	at := g.r.IntN(len(s) - len(original) + 1)
	return s[:at] + original + s[at+len(original):]
}

const original = "ORIGINAL"

// syllables make customers' last names (clause 4.3.2.3).
var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// LastName is the last name of number n, 0 to 999: the syllables of its
// three digits.
func LastName(n int) string {
	return syllables[n/100] + syllables[n/10%10] + syllables[n%10]
}

// Shuffled returns 1..n in a random order (the customers of a district's
// loaded orders, clause 4.3.3.1).
func (g *Random) Shuffled(n int) []int {
	p := g.r.Perm(n)
	for i := range p {
		p[i]++
	}
	return p
}

// itoa is strconv.Itoa, short for the statements' text.
func itoa(n int) string { return strconv.Itoa(n) }
