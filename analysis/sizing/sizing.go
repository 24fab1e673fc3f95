// Package sizing answers "how big, at what cost" from measured
// capacities: given the highest rate each size of a database sustained
// at a latency objective (a rate search per size), it finds the cheapest
// size that serves a throughput with headroom, says how sure that is
// (the search's bracket for a size measured, a prediction interval of a
// Universal Scalability Law fit over cores for one not measured) and
// why the next cheaper size fails.
//
// A size is only chosen on evidence that it serves: a measured rate that
// met the objective at or above the need, or a prediction whose interval
// lies wholly above it. A prediction whose interval straddles the need is
// reported as such, never chosen: a wrong size stated with confidence is
// worse than "measure this one".
package sizing

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dbarena/dbarena/analysis/cost"
	"github.com/dbarena/dbarena/analysis/usl"
	"github.com/dbarena/dbarena/results"
)

// MaxHeldOut is the largest error, as a share of the rate measured, with
// which the fit may predict a size measured from the others for its
// predictions to be trusted: beyond it the points follow no law the fit
// knows (CPU quotas below a core throttle in bursts), and a size not
// measured is never chosen on the fit's word.
const MaxHeldOut = 0.25

// Measured is one size of a database as its rate search found it.
type Measured struct {
	// Label names the size ("500m", "2cpu-4gib", or the target's name).
	Label string
	// Cores is the size's total CPU (cores per node times nodes); 0 when
	// unknown, which leaves the size out of the fit.
	Cores float64
	// Rate is the highest rate that met the objective (0: none did) and
	// Ceiling the lowest above it that missed (0: none probed).
	Rate, Ceiling float64
	// Monthly is the size's cost for a month in USD; NaN when unknown.
	Monthly float64
	// Threads is how many workers the probe at Rate ran (0: unknown).
	Threads int
	// Refusal says why the size's figures cannot be used (the trial
	// that decided it was client-bound, host-saturated, not steady or
	// failed); empty when they can.
	Refusal string
}

// Candidate is a size not measured that the fit may predict.
type Candidate struct {
	Label   string
	Cores   float64
	Monthly float64
}

// Ask is the load to serve.
type Ask struct {
	// Throughput is the rate to serve, in Units per second.
	Throughput float64
	// Headroom is the share of spare capacity asked for: 0.3 needs a
	// capacity of 1.3 x Throughput.
	Headroom float64
	// Level is the prediction intervals' level (0: 0.9).
	Level float64
	// Unit is what Throughput counts (zero: operations; a TPC-C
	// group's are transactions).
	Unit results.Unit
}

// Where an option's capacity comes from.
const (
	SourceMeasured     = "measured"
	SourceInterpolated = "interpolated"
	SourceExtrapolated = "extrapolated"
)

// Option is one size considered, measured or predicted.
type Option struct {
	Label string
	Cores float64
	// Capacity is the highest rate met (measured) or the fitted rate
	// (predicted); Lo and Hi bound it: the search's bracket (the rate
	// met and the ceiling missed, Hi NaN when none missed) or the
	// prediction interval (both NaN when the fit has none).
	Capacity, Lo, Hi float64
	// Source is SourceMeasured, SourceInterpolated or SourceExtrapolated.
	Source string
	// Monthly is the cost for a month in USD (NaN: unknown), PerMillion
	// what a million operations cost at the asked throughput.
	Monthly, PerMillion float64
	// Serves says the evidence shows it serves the need; Why says what
	// the evidence is, either way.
	Serves bool
	Why    string
}

// HeldOut is one measured size predicted by a fit of the others.
type HeldOut struct {
	Label                      string
	Cores, Measured, Predicted float64
	// Error is (Predicted - Measured) / Measured.
	Error float64
}

// Answer is the sizing answer for one database.
type Answer struct {
	// Need is the capacity asked for: Throughput x (1 + Headroom).
	Need float64
	Ask  Ask
	// Options are every size considered, cheapest first (by cost when
	// every option has one, by cores otherwise).
	Options []Option
	// Choice is the index in Options of the cheapest size that serves,
	// -1 when none does; Cheaper the index of the next cheaper size,
	// -1 when Choice is the cheapest or there is none.
	Choice, Cheaper int
	// Refused are the sizes whose figures could not be used.
	Refused []Measured
	// Fit is capacity against cores, nil with fewer than three usable
	// sizes of known cores.
	Fit *CoreFit
	// HeldOut is each usable size predicted by a fit of the others (with
	// three or more); MaxHeldOut the largest |Error| among them.
	HeldOut    []HeldOut
	MaxHeldOut float64
	// Notes say what a reader should know.
	Notes []string
	// Outcome is Answered, AboveEvery or CannotJudge; Reason says why
	// there is no answer (empty when answered).
	Outcome Outcome
	Reason  string
}

// Outcome is what an answer could say.
type Outcome string

// The outcomes of an answer.
const (
	// Answered: a size serves the need (Choice).
	Answered Outcome = "answered"
	// AboveEvery: the need is above every size considered: each one
	// measured met less, each one predicted is below it by its whole
	// interval, and no size refused could have served.
	AboveEvery Outcome = "above every size"
	// CannotJudge: no size is shown to serve, and one might: every size
	// was refused, a refused size is larger than the largest usable, or
	// a prediction straddles the need or could not be made.
	CannotJudge Outcome = "could not judge"
)

// Decide answers ask from the measured sizes of one database and the
// candidates the fit may predict.
func Decide(ms []Measured, cands []Candidate, ask Ask) (*Answer, error) {
	if !(ask.Throughput > 0) || math.IsInf(ask.Throughput, 0) {
		return nil, fmt.Errorf("sizing: throughput %v: want a positive rate in operations per second", ask.Throughput)
	}
	if !(ask.Headroom >= 0 && ask.Headroom <= 10) {
		return nil, fmt.Errorf("sizing: headroom %v: want a share from 0 to 10 (0.3 for 30%%)", ask.Headroom)
	}
	if ask.Level == 0 {
		ask.Level = 0.9
	}
	if !(ask.Level > 0 && ask.Level < 1) {
		return nil, fmt.Errorf("sizing: level %v: want a share between 0 and 1", ask.Level)
	}
	if len(ms) == 0 {
		return nil, errors.New("sizing: no sizes measured")
	}
	a := &Answer{Need: ask.Throughput * (1 + ask.Headroom), Ask: ask, Choice: -1, Cheaper: -1}
	var usable []Measured
	for _, m := range ms {
		if m.Refusal != "" {
			a.Refused = append(a.Refused, m)
			continue
		}
		usable = append(usable, m)
		a.Options = append(a.Options, a.measured(m))
	}
	a.fit(usable)
	lo, hi := coreRange(usable)
	for _, c := range cands {
		if slices.ContainsFunc(usable, func(m Measured) bool { return m.Cores == c.Cores || m.Label == c.Label }) {
			continue // measured: the measurement stands
		}
		a.Options = append(a.Options, a.predicted(c, lo, hi))
	}
	a.order()
	for i, o := range a.Options {
		if o.Serves {
			a.Choice = i
			break
		}
	}
	if a.Choice > 0 {
		a.Cheaper = a.Choice - 1
	}
	a.Outcome, a.Reason = a.judge(usable)
	return a, nil
}

// judge tells an answer apart from "above every size" and "could not
// judge", with the reason for either.
func (a *Answer) judge(usable []Measured) (Outcome, string) {
	if a.Choice >= 0 {
		return Answered, ""
	}
	refused := make([]string, len(a.Refused))
	for i, m := range a.Refused {
		refused[i] = m.Label + ": " + m.Refusal
	}
	if len(usable) == 0 {
		return CannotJudge, "every size measured was refused (" + strings.Join(refused, "; ") + ")"
	}
	var why []string
	largest := 0.0
	for _, m := range usable {
		largest = math.Max(largest, m.Cores)
	}
	for _, m := range a.Refused {
		if m.Cores == 0 || m.Cores > largest {
			why = append(why, fmt.Sprintf("%s, larger than every size usable, was refused: %s", m.Label, m.Refusal))
		}
	}
	var unfit []string
	for _, o := range a.Options {
		switch {
		case o.Source == SourceMeasured && math.IsNaN(o.Hi):
			// Its search ended with no rate above missed (the database
			// failed there, or the probes ran out): its capacity may
			// be above the need.
			why = append(why, fmt.Sprintf("%s met %s %s and no rate above it missed: its capacity may be higher", o.Label, results.FormatOps(o.Capacity), a.rate()))
		case o.Source == SourceMeasured || o.Hi < a.Need:
		case a.Fit == nil:
			unfit = append(unfit, o.Label)
		default:
			why = append(why, o.Label+" "+o.Why)
		}
	}
	if len(unfit) > 0 {
		why = append(why, fmt.Sprintf("%s not measured, and fewer than three sizes measured (%d usable) to predict them from: measure one",
			strings.Join(unfit, ", "), len(usable)))
	}
	if len(why) > 0 {
		return CannotJudge, strings.Join(why, "; ")
	}
	last := a.Options[len(a.Options)-1]
	return AboveEvery, fmt.Sprintf("the largest, %s, %s", last.Label, last.Why)
}

// rate is the unit of the answer's rates: "ops/s", "tx/s".
func (a *Answer) rate() string { return a.Ask.Unit.Rate() }

// measured is the option of a size measured.
func (a *Answer) measured(m Measured) Option {
	o := Option{Label: m.Label, Cores: m.Cores, Capacity: m.Rate, Lo: m.Rate, Hi: math.NaN(), Source: SourceMeasured}
	if m.Ceiling > 0 {
		o.Hi = m.Ceiling
	}
	a.price(&o, m.Monthly)
	switch {
	case m.Rate == 0 && m.Ceiling == 0:
		o.Why = "no rate could be judged: no probe was fair"
	case m.Rate == 0:
		o.Why = "no rate met the objective"
	case m.Rate >= a.Need:
		o.Serves = true
		o.Why = fmt.Sprintf("measured: %s %s met the objective, at least the %s needed", results.FormatOps(m.Rate), a.rate(), results.FormatOps(a.Need))
	default:
		o.Why = fmt.Sprintf("measured: the highest rate met was %s %s, below the %s needed", results.FormatOps(m.Rate), a.rate(), results.FormatOps(a.Need))
		if m.Ceiling > 0 && m.Ceiling <= a.Need {
			o.Why += fmt.Sprintf(" (%s missed)", results.FormatOps(m.Ceiling))
		}
	}
	return o
}

// predicted is the option of a candidate size from the fit.
func (a *Answer) predicted(c Candidate, lo, hi float64) Option {
	o := Option{Label: c.Label, Cores: c.Cores, Capacity: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Source: SourceInterpolated}
	if c.Cores < lo || c.Cores > hi {
		o.Source = SourceExtrapolated
	}
	a.price(&o, c.Monthly)
	if a.Fit == nil {
		o.Why = "not measured, and fewer than three sizes measured to predict it from"
		return o
	}
	o.Capacity = a.Fit.Predict(c.Cores)
	l, h, ok := a.Fit.Interval(c.Cores, a.Ask.Level)
	level := fmt.Sprintf("%.0f%%", 100*a.Ask.Level)
	switch {
	case !ok:
		o.Why = fmt.Sprintf("%s: %s %s, with no interval (the fit passes through every point): measure it", o.Source, results.FormatOps(o.Capacity), a.rate())
	case l >= a.Need && a.MaxHeldOut > MaxHeldOut:
		o.Lo, o.Hi = l, h
		o.Why = fmt.Sprintf("%s: %s %s (%s interval %s to %s), but the fit mispredicted a size measured by %.0f%%: measure it", o.Source,
			results.FormatOps(o.Capacity), a.rate(), level, results.FormatOps(l), results.FormatOps(h), 100*a.MaxHeldOut)
	case l >= a.Need:
		o.Lo, o.Hi, o.Serves = l, h, true
		o.Why = fmt.Sprintf("%s: %s %s (%s interval %s to %s), all of it above the %s needed", o.Source, results.FormatOps(o.Capacity), a.rate(), level, results.FormatOps(l), results.FormatOps(h), results.FormatOps(a.Need))
	case h >= a.Need:
		o.Lo, o.Hi = l, h
		o.Why = fmt.Sprintf("%s: %s %s (%s interval %s to %s) straddles the %s needed: measure it", o.Source, results.FormatOps(o.Capacity), a.rate(), level, results.FormatOps(math.Max(l, 0)), results.FormatOps(h), results.FormatOps(a.Need))
	default:
		o.Lo, o.Hi = l, h
		o.Why = fmt.Sprintf("%s: %s %s (%s interval %s to %s), below the %s needed", o.Source, results.FormatOps(o.Capacity), a.rate(), level, results.FormatOps(math.Max(l, 0)), results.FormatOps(h), results.FormatOps(a.Need))
	}
	return o
}

// price sets an option's monthly cost and its cost per million
// operations at the asked throughput.
func (a *Answer) price(o *Option, monthly float64) {
	o.Monthly, o.PerMillion = math.NaN(), math.NaN()
	if monthly >= 0 && !math.IsInf(monthly, 0) {
		o.Monthly = monthly
		o.PerMillion = monthly / (a.Ask.Throughput * cost.SecondsPerMonth) * 1e6
	}
}

// order sorts the options cheapest first: by cost when every option has
// one, else by cores (a size of unknown cost cannot be called cheaper
// than one whose cost is known).
func (a *Answer) order() {
	byCost := true
	for _, o := range a.Options {
		if math.IsNaN(o.Monthly) {
			byCost = false
		}
	}
	if !byCost && len(a.Options) > 0 {
		a.Notes = append(a.Notes, "not every size has a price: sizes are ordered by cores, and the answer is the smallest that serves")
	}
	slices.SortStableFunc(a.Options, func(x, y Option) int {
		if byCost && x.Monthly != y.Monthly {
			return cmpFloat(x.Monthly, y.Monthly)
		}
		if x.Cores != y.Cores {
			return cmpFloat(x.Cores, y.Cores)
		}
		return strings.Compare(x.Label, y.Label)
	})
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// fit fits capacity against cores over the usable sizes, and predicts
// each from the others.
func (a *Answer) fit(usable []Measured) {
	pts := points(usable)
	f, err := Fit(usable)
	switch {
	case distinct(pts) < 3:
		if len(usable) > 0 {
			a.Notes = append(a.Notes, fmt.Sprintf("%d size(s) measured with a rate met and known cores: three or more are needed to predict sizes not measured", distinct(pts)))
		}
		return
	case err != nil:
		a.Notes = append(a.Notes, "capacity against cores could not be fitted: "+err.Error())
		return
	}
	a.Fit = f
	defer func() {
		if a.MaxHeldOut > MaxHeldOut {
			a.Notes = append(a.Notes, fmt.Sprintf("the fit predicts a size measured from the others with an error of up to %.0f%% (more than %.0f%%): sizes not measured are shown, never chosen", 100*a.MaxHeldOut, 100*MaxHeldOut))
		}
	}()
	for i, m := range usable {
		if !(m.Cores > 0 && m.Rate > 0) {
			continue
		}
		rest := points(slices.Delete(slices.Clone(usable), i, i+1))
		g, err := fitCores(rest)
		if err != nil {
			continue
		}
		p := g.Predict(m.Cores)
		h := HeldOut{Label: m.Label, Cores: m.Cores, Measured: m.Rate, Predicted: p, Error: (p - m.Rate) / m.Rate}
		a.HeldOut = append(a.HeldOut, h)
		a.MaxHeldOut = math.Max(a.MaxHeldOut, math.Abs(h.Error))
	}
}

// Fit fits capacity against cores over the sizes with a rate met and
// known cores (three or more distinct), refused ones left out.
func Fit(ms []Measured) (*CoreFit, error) {
	var usable []Measured
	for _, m := range ms {
		if m.Refusal == "" {
			usable = append(usable, m)
		}
	}
	pts := points(usable)
	if n := distinct(pts); n < 3 {
		return nil, fmt.Errorf("%d sizes with a rate met and known cores: three or more are needed", n)
	}
	return fitCores(pts)
}

// CoreFit is the Universal Scalability Law fitted over cores counted in
// units of the smallest size fitted: N = cores / Unit, so that N = 1 is
// a size measured and λ its throughput. Fractional cores as N put the
// law's N = 1 where nothing was measured, and a size below it where the
// law's contention term turns negative.
type CoreFit struct {
	*usl.Fit
	// Unit is the cores of N = 1.
	Unit float64
}

// Predict is the fitted capacity at cores.
func (f *CoreFit) Predict(cores float64) float64 { return f.Fit.Predict(cores / f.Unit) }

// Interval is the prediction interval at level for a size of cores.
func (f *CoreFit) Interval(cores, level float64) (lo, hi float64, ok bool) {
	return f.Fit.Interval(cores/f.Unit, level)
}

// fitCores fits the law over cores: in full from four distinct sizes,
// Amdahl's law (no coherency cost) from two or three, which leaves the
// fit residual degrees of freedom to give intervals with.
func fitCores(pts []usl.Point) (*CoreFit, error) {
	unit := math.Inf(1)
	for _, p := range pts {
		unit = math.Min(unit, p.N)
	}
	scaled := make([]usl.Point, len(pts))
	for i, p := range pts {
		scaled[i] = usl.Point{N: p.N / unit, X: p.X}
	}
	fit := usl.FitAmdahl
	if distinct(pts) >= 4 {
		fit = usl.FitPoints
	}
	f, err := fit(scaled)
	if err != nil {
		return nil, err
	}
	return &CoreFit{Fit: f, Unit: unit}, nil
}

// points are the usable sizes with a rate met and known cores.
func points(ms []Measured) []usl.Point {
	var pts []usl.Point
	for _, m := range ms {
		if m.Cores > 0 && m.Rate > 0 {
			pts = append(pts, usl.Point{N: m.Cores, X: m.Rate})
		}
	}
	return pts
}

func distinct(pts []usl.Point) int {
	seen := map[float64]bool{}
	for _, p := range pts {
		seen[p.N] = true
	}
	return len(seen)
}

// coreRange is the least and most cores among the sizes with a rate
// met: a prediction between them is an interpolation.
func coreRange(ms []Measured) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, m := range ms {
		if m.Cores > 0 && m.Rate > 0 {
			lo, hi = math.Min(lo, m.Cores), math.Max(hi, m.Cores)
		}
	}
	return lo, hi
}

// Sentence says the answer in one sentence: the size, what shows it
// serves, its cost, and why the next cheaper size does not.
func (a *Answer) Sentence(g *Group) string {
	load := fmt.Sprintf("%s %s of workload %s at %s", results.FormatOps(a.Ask.Throughput), a.rate(), g.Workload, g.Objective)
	if a.Ask.Headroom > 0 {
		load += fmt.Sprintf(" with %.0f%% headroom", 100*a.Ask.Headroom)
	}
	switch a.Outcome {
	case AboveEvery:
		return fmt.Sprintf("%s: no size serves %s: the need is above every size considered: %s", g.Database, load, a.Reason)
	case CannotJudge:
		return fmt.Sprintf("%s: could not judge which size serves %s: %s", g.Database, load, a.Reason)
	}
	c := a.Options[a.Choice]
	out := fmt.Sprintf("%s needs %s", g.Database, c.Label)
	if c.Cores > 0 && c.Label != coresText(c.Cores) {
		out += " (" + coresText(c.Cores) + ")"
	}
	out += " for " + load + ": "
	if c.Source == SourceMeasured {
		out += fmt.Sprintf("%s %s met it when measured", results.FormatOps(c.Capacity), a.rate())
	} else {
		out += fmt.Sprintf("%s %s %s (%.0f%% interval %s to %s), not measured: confirm it", c.Source, results.FormatOps(c.Capacity), a.rate(),
			100*a.Ask.Level, results.FormatOps(c.Lo), results.FormatOps(c.Hi))
	}
	if !math.IsNaN(c.Monthly) {
		out += fmt.Sprintf(", $%.2f a month ($%.3g per million %s)", c.Monthly, c.PerMillion, a.Ask.Unit.Plural())
	}
	if a.Cheaper >= 0 {
		n := a.Options[a.Cheaper]
		out += fmt.Sprintf("; the next cheaper, %s, fails: %s", n.Label, n.Why)
	}
	return out
}

// coresText is "0.5 cores", "1 core", "4 cores".
func coresText(c float64) string {
	if c == 1 {
		return "1 core"
	}
	return fmt.Sprintf("%g cores", c)
}

// Predict is the rate a size of cores should sustain at the objective
// from the sizes measured so far, with its relative spread (for the
// search to start from) and the model it came from: the fit over cores
// and its 90% interval (spread within 5% and 30%) from three sizes,
// Amdahl's law through two (±20%), linear scaling from one (±30%). 0
// when nothing predicts it.
func Predict(ms []Measured, cores float64) (expect, spread float64, model string) {
	var pts []usl.Point
	for _, m := range ms {
		if m.Cores > 0 && m.Rate > 0 {
			pts = append(pts, usl.Point{N: m.Cores, X: m.Rate})
		}
	}
	switch n := distinct(pts); {
	case n == 0 || !(cores > 0):
		return 0, 0, ""
	case n == 1:
		return pts[0].X * cores / pts[0].N, 0.3, "linear"
	}
	f, err := fitCores(pts)
	if err != nil || !(f.Predict(cores) > 0) {
		return 0, 0, ""
	}
	e := f.Predict(cores)
	if lo, hi, ok := f.Interval(cores, 0.9); ok && distinct(pts) >= 3 {
		return e, math.Min(math.Max((hi-lo)/2/e, 0.05), 0.3), f.Model
	}
	return e, 0.2, f.Model
}
