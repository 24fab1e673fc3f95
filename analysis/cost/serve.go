package cost

import (
	"errors"
	"fmt"
	"math"
)

// DefaultUtilisation is the share of measured capacity a deployment is
// planned to run at when none is given: 75%, the level the ScyllaDB
// versus DynamoDB study ran every system at, leaving room for peaks,
// compaction and the loss of a node.
const DefaultUtilisation = 0.75

// Demand is a throughput to serve with units (nodes, clusters) of a
// measured capacity.
type Demand struct {
	// Target is the throughput to serve, in ops/s.
	Target float64
	// Capacity is the most one unit sustained in the benchmark, in ops/s.
	Capacity float64
	// Utilisation is the share of Capacity each unit may run at, in
	// (0, 1]; 0 means DefaultUtilisation.
	Utilisation float64
	// UnitMonthly is one unit's monthly cost in USD (see MonthlyCost).
	UnitMonthly float64
	// MinUnits is the smallest deployment that makes sense, such as 3
	// nodes for a replication factor of 3; 0 means 1.
	MinUnits int
}

// Plan is what serving a Demand takes.
type Plan struct {
	Demand
	// Units is ceil(Target / (Capacity x Utilisation)), at least
	// MinUnits.
	Units int
	// Monthly is Units x UnitMonthly.
	Monthly float64
	// Load is the share of the units' capacity Target uses:
	// Target / (Units x Capacity), at most Utilisation.
	Load float64
}

// ToServe sizes and prices the units a target throughput needs.
func ToServe(d Demand) (Plan, error) {
	if d.Utilisation == 0 {
		d.Utilisation = DefaultUtilisation
	}
	if d.MinUnits == 0 {
		d.MinUnits = 1
	}
	var errs []error
	if !positive(d.Target) {
		errs = append(errs, fmt.Errorf("target %v ops/s: want a number above 0", d.Target))
	}
	if !positive(d.Capacity) {
		errs = append(errs, fmt.Errorf("capacity %v ops/s: want a number above 0", d.Capacity))
	}
	if !(d.Utilisation > 0 && d.Utilisation <= 1) {
		errs = append(errs, fmt.Errorf("utilisation %v: want a share in (0, 1]", d.Utilisation))
	}
	if !positive(d.UnitMonthly) {
		errs = append(errs, fmt.Errorf("unit monthly cost %v: want a price above 0", d.UnitMonthly))
	}
	if d.MinUnits < 0 {
		errs = append(errs, fmt.Errorf("minimum units %d: want 0 or more", d.MinUnits))
	}
	if err := errors.Join(errs...); err != nil {
		return Plan{}, fmt.Errorf("cost to serve: %w", err)
	}
	units := ceilUnits(d.Target / (d.Capacity * d.Utilisation))
	if units > math.MaxInt32 {
		return Plan{}, fmt.Errorf("cost to serve: %.0f units of %v ops/s for %v ops/s: check the units of capacity and target",
			units, d.Capacity, d.Target)
	}
	p := Plan{Demand: d, Units: max(int(units), d.MinUnits)}
	p.Monthly = float64(p.Units) * d.UnitMonthly
	p.Load = d.Target / (float64(p.Units) * d.Capacity)
	return p, nil
}

// ceilUnits rounds x up to a whole number of units, but takes x within
// a billionth of an integer as that integer: 700 / 0.7 is
// 1000.0000000000001 in floating point, and needing 1,000 units must not
// come out as 1,001.
func ceilUnits(x float64) float64 {
	if r := math.Round(x); math.Abs(x-r) <= 1e-9*max(1, r) {
		return r
	}
	return math.Ceil(x)
}
