package tpcc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Mode says how a terminal paces its transactions.
type Mode string

// The two modes, named as such wherever a result is shown.
const (
	// Unpaced runs each terminal's next transaction as soon as the last
	// one ends: a throughput test, reported in transactions per second,
	// never as tpmC.
	Unpaced Mode = "unpaced"
	// Spec paces each terminal as the specification's emulated user:
	// a keying time before each transaction and a think time after it
	// (clause 5.2.5), which bounds tpmC at MaxTpmCPerWarehouse.
	Spec Mode = "spec"
)

// ParseMode reads a mode's name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Unpaced, Spec:
		return m, nil
	}
	return "", fmt.Errorf("%q: want %s (keying and think times, tpmC) or %s (as fast as the database answers, transactions per second)", s, Spec, Unpaced)
}

// MaxTpmCPerWarehouse bounds the New-Orders a minute of spec-paced
// terminals, 10 a warehouse, running the default mix with transactions
// that take no time: 10 terminals x 60 s x 45% / the mean cycle of
// keying and think times (about 21 s), the specification's 12.86.
const MaxTpmCPerWarehouse = 12.86

// Pacing draws a spec-paced terminal's keying and think times, scaled
// by Scale (1 is the specification's; a smaller scale shortens a test
// run, and its figures are then not the specification's).
type Pacing struct {
	Scale float64
	r     *rand.Rand
}

// NewPacing returns a terminal's pacing, drawing from seed.
func NewPacing(scale float64, seed uint64) *Pacing {
	return &Pacing{Scale: scale, r: rand.New(rand.NewPCG(seed, seed^0x7063c))}
}

// LongestCycle is the longest of the transactions' keying time and
// mean think time together, at scale: a window at least this long past
// a ramp-up at least this long holds every terminal's steady pacing,
// whatever the mix (30 s for New-Order at the specification's times).
func LongestCycle(scale float64) time.Duration {
	var most time.Duration
	for _, k := range Kinds() {
		most = max(most, k.Keying()+k.MeanThink())
	}
	return time.Duration(float64(most) * scale)
}

// Keying is the keying time before a transaction of kind k.
func (p *Pacing) Keying(k Kind) time.Duration {
	return time.Duration(float64(k.Keying()) * p.Scale)
}

// Think draws the think time after a transaction of kind k.
func (p *Pacing) Think(k Kind) time.Duration {
	mean := float64(k.MeanThink()) * p.Scale
	// -ln(u) for u in (0, 1] is exponential with mean 1.
	t := -math.Log(1-p.r.Float64()) * mean
	return time.Duration(min(t, 10*mean))
}
