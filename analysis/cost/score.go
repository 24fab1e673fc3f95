package cost

import (
	"errors"
	"fmt"
	"math"
)

// Entry is one target's measured performance and its monthly cost.
type Entry struct {
	Name string
	// Throughput is in operations per second.
	Throughput float64
	// MonthlyCost is in USD for a month of HoursPerMonth hours (see
	// MonthlyCost).
	MonthlyCost float64
	// LatencyMs is a latency to weigh against cost, such as the p99, in
	// milliseconds; 0 when not given.
	LatencyMs float64
}

// Result is an entry's price-performance. Ranks start at 1 for the best;
// tied figures share a rank (1, 1, 3).
type Result struct {
	Entry
	// OpsPerDollar is throughput per dollar of monthly cost: ops/s / $.
	OpsPerDollar float64
	// CostPerMillion is the cost of a million operations when the target
	// runs at Throughput all month: MonthlyCost / (Throughput x
	// SecondsPerMonth) x 1e6.
	CostPerMillion float64
	// Score is OpsPerDollar on a 0-100 scale where the best target is
	// 100, as the bare-metal versus cloud study normalised its
	// throughput per dollar.
	Score float64
	Rank  int
	// LatencyDollar is LatencyMs x MonthlyCost: lower is better, as a
	// target that is both faster and cheaper wins on both counts.
	// LatencyScore is 100 for the lowest and lowest/own for the others.
	// All three are 0 for an entry without a latency.
	LatencyDollar float64
	LatencyScore  float64
	LatencyRank   int
}

// Score computes the price-performance of each entry, in the order
// given. Throughput and cost must be above 0: a zero cost would make
// every ratio infinite, and a target with no throughput has no
// price-performance to compare. Entries without a latency get no latency
// figures; the others are ranked among themselves.
func Score(entries []Entry) ([]Result, error) {
	if err := validateEntries(entries); err != nil {
		return nil, fmt.Errorf("price-performance: %w", err)
	}
	out := make([]Result, len(entries))
	var bestOps, bestLat float64
	for i, e := range entries {
		r := Result{Entry: e, OpsPerDollar: e.Throughput / e.MonthlyCost,
			CostPerMillion: e.MonthlyCost / (e.Throughput * SecondsPerMonth) * 1e6}
		bestOps = max(bestOps, r.OpsPerDollar)
		if e.LatencyMs > 0 {
			r.LatencyDollar = e.LatencyMs * e.MonthlyCost
			if bestLat == 0 || r.LatencyDollar < bestLat {
				bestLat = r.LatencyDollar
			}
		}
		out[i] = r
	}
	for i := range out {
		r := &out[i]
		r.Score = 100 * r.OpsPerDollar / bestOps
		if r.LatencyDollar > 0 {
			r.LatencyScore = 100 * bestLat / r.LatencyDollar
		}
	}
	for i := range out {
		out[i].Rank, out[i].LatencyRank = 1, 0
		if out[i].LatencyDollar > 0 {
			out[i].LatencyRank = 1
		}
		for j := range out {
			if out[j].OpsPerDollar > out[i].OpsPerDollar {
				out[i].Rank++
			}
			if out[i].LatencyDollar > 0 && out[j].LatencyDollar > 0 && out[j].LatencyDollar < out[i].LatencyDollar {
				out[i].LatencyRank++
			}
		}
	}
	return out, nil
}

func validateEntries(entries []Entry) error {
	if len(entries) == 0 {
		return errors.New("no entries")
	}
	var errs []error
	seen := map[string]bool{}
	for i, e := range entries {
		name := e.Name
		if name == "" {
			name = fmt.Sprintf("entry %d", i+1)
		} else if seen[name] {
			errs = append(errs, fmt.Errorf("%s: name given twice", name))
		}
		seen[e.Name] = true
		if !positive(e.Throughput) {
			errs = append(errs, fmt.Errorf("%s: throughput %v ops/s: want a number above 0", name, e.Throughput))
		}
		if !positive(e.MonthlyCost) {
			errs = append(errs, fmt.Errorf("%s: monthly cost %v: want a price above 0", name, e.MonthlyCost))
		}
		if e.LatencyMs < 0 || math.IsNaN(e.LatencyMs) || math.IsInf(e.LatencyMs, 0) {
			errs = append(errs, fmt.Errorf("%s: latency %v ms: want 0 (not given) or more", name, e.LatencyMs))
		}
	}
	return errors.Join(errs...)
}

// positive reports whether v is a finite number above 0.
func positive(v float64) bool { return v > 0 && !math.IsInf(v, 1) }

// Step compares a scaled deployment with its base, as the Postgres
// versus ScyllaDB study weighed the throughput a larger cluster gained
// against the cost it added.
type Step struct {
	From, To string
	// ThroughputGain and CostAdded are relative: 0.5 = 50% more.
	ThroughputGain, CostAdded float64
	// Efficiency is ThroughputGain / CostAdded: 1 means throughput grew
	// in proportion to cost, below 1 that each added dollar bought less
	// than the base's dollars did.
	Efficiency float64
	// MarginalOpsPerDollar is the added throughput per added dollar a
	// month: (To.Throughput - From.Throughput) / (To.MonthlyCost -
	// From.MonthlyCost), to set against From's own ops/s per dollar.
	MarginalOpsPerDollar float64
}

// Scaling compares to with from. Their costs must differ, or there is
// no added cost to weigh.
func Scaling(from, to Entry) (Step, error) {
	if err := validateEntries([]Entry{from, to}); err != nil {
		return Step{}, fmt.Errorf("scaling: %w", err)
	}
	if from.MonthlyCost == to.MonthlyCost {
		return Step{}, fmt.Errorf("scaling %s to %s: both cost %v a month, so no added cost to weigh",
			from.Name, to.Name, from.MonthlyCost)
	}
	s := Step{From: from.Name, To: to.Name,
		ThroughputGain: to.Throughput/from.Throughput - 1,
		CostAdded:      to.MonthlyCost/from.MonthlyCost - 1,
		MarginalOpsPerDollar: (to.Throughput - from.Throughput) /
			(to.MonthlyCost - from.MonthlyCost),
	}
	s.Efficiency = s.ThroughputGain / s.CostAdded
	return s, nil
}
