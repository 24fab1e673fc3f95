// Package objective judges a measured run against a latency objective:
// whether it served the rate it was asked for and kept every latency
// bound. It is the one place that decides "met the objective": the rate
// search, sizing and its confirmation, and the report's rate and client
// sweeps all read its judgement, and the experiment file's default share
// is its DefaultAchieved.
package objective

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dbarena/dbarena/results"
)

// DefaultAchieved is the share of its rate a run must serve when the
// objective names none: a few per cent below the rate is pacing noise,
// more is falling behind.
const DefaultAchieved = 0.95

// Borderline is how near its bound, as a share of it, a latency must
// come for the judgement to be borderline: the machine's noise could
// have put it on the other side.
const Borderline = 0.10

// Share is the share of its rate a run must serve under slo: its own,
// or DefaultAchieved when it names none (and for results written before
// the objective recorded it).
func Share(slo *results.SLO) float64 {
	if slo != nil && slo.Achieved > 0 {
		return slo.Achieved
	}
	return DefaultAchieved
}

// Percentiles are the latency percentiles an objective may bound, as
// the results name them.
func Percentiles() []string { return []string{"p50", "p90", "p95", "p99", "p999"} }

// Value is the percentile of l that b bounds, in milliseconds (NaN for
// a percentile not among Percentiles).
func Value(b results.SLOBound, l results.Latency) float64 {
	names := Percentiles()
	for i, us := range []float64{l.P50, l.P90, l.P95, l.P99, l.P999} {
		if names[i] == b.Percentile {
			return us / 1e3
		}
	}
	return math.NaN()
}

// Judgement is what a run showed of the objective.
type Judgement struct {
	// Missed names each part that was not met: the rate first ("served
	// 80% of the rate, below the 95% a run must serve"), then each bound
	// ("p99 12.00 ms > 10 ms").
	Missed []string
	// LatencyMissed says a bound was missed.
	LatencyMissed bool
	// Borderline says a latency lay within Borderline of its bound.
	Borderline bool
	// Score is the worst figure against its bound (above 1: missed):
	// the rate asked for against the share served, and each latency
	// against its bound.
	Score float64
	// Slack is how far under its bound the worst missed latency would
	// have come without the load generator's own lateness, in ms
	// (negative: over it even then; +Inf when no latency missed).
	Slack float64
}

// Met reports whether the run met every part of the objective.
func (j Judgement) Met() bool { return len(j.Missed) == 0 }

// Why is what was missed, "" when the objective was met.
func (j Judgement) Why() string { return strings.Join(j.Missed, ", ") }

// Judge judges a run asked for rate ops/s (0: unthrottled, which serves
// whatever it serves) that served throughput at latencies l, the load
// generator's own lateness (pacing p99) being latenessUs. A nil slo
// judges the rate alone, at DefaultAchieved.
func Judge(slo *results.SLO, rate, throughput float64, l results.Latency, latenessUs float64) Judgement {
	j := Judgement{Slack: math.Inf(1)}
	share := Share(slo)
	if rate > 0 && throughput < share*rate {
		// Rounded down: 94.9% is not "95%" beside a share of 95%.
		j.Missed = append(j.Missed, fmt.Sprintf("served %.0f%% of the rate, below the %.0f%% a run must serve", math.Floor(100*throughput/rate), 100*share))
		j.Score = share * rate / max(throughput, 1e-9)
	}
	if slo == nil {
		return j
	}
	for _, b := range slo.Bounds {
		v := Value(b, l)
		if !(v <= b.MaxMs) {
			j.Missed = append(j.Missed, fmt.Sprintf("%s %.2f ms > %g ms", b.Percentile, v, b.MaxMs))
			j.LatencyMissed = true
			j.Slack = min(j.Slack, b.MaxMs-(v-latenessUs/1e3))
		}
		if math.Abs(v-b.MaxMs) <= Borderline*b.MaxMs {
			j.Borderline = true
		}
		if v >= 0 {
			j.Score = max(j.Score, v/b.MaxMs)
		}
	}
	return j
}

// Inherit is slo with the share of the rate own asked for, when slo
// names none: an objective given afresh (size --p99) bounds latencies,
// and judges the rate as the run that was measured did.
func Inherit(slo, own *results.SLO) *results.SLO {
	if slo == nil || slo.Achieved > 0 {
		return slo
	}
	out := *slo
	out.Achieved = Share(own)
	return &out
}

// Same reports whether two objectives bound the same percentiles by
// the same amounts, in any order (the share of the rate aside).
func Same(a, b *results.SLO) bool {
	if a == nil || b == nil {
		return a == b
	}
	if len(a.Bounds) != len(b.Bounds) {
		return false
	}
	for _, x := range a.Bounds {
		if !slices.Contains(b.Bounds, x) {
			return false
		}
	}
	return true
}
