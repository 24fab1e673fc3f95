package cost

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestToServe(t *testing.T) {
	for name, tc := range map[string]struct {
		in          Demand
		units       int
		monthly     float64
		utilisation float64
		load        float64
	}{
		// 1,000,000 / (100,000 x 0.75) = 13.3, so 14 nodes of $751.17.
		"default 75%": {Demand{Target: 1_000_000, Capacity: 100_000, UnitMonthly: 751.17},
			14, 14 * 751.17, 0.75, 1_000_000.0 / (14 * 100_000)},
		// Exactly 10 units' worth: 750,000 / 75,000 = 10, not 11.
		"exact boundary": {Demand{Target: 750_000, Capacity: 100_000, UnitMonthly: 100},
			10, 1_000, 0.75, 0.75},
		// 700 / (1 x 0.7) is 1000.0000000000001 in floating point; it
		// takes 1,000 units.
		"float noise": {Demand{Target: 700, Capacity: 1, Utilisation: 0.7, UnitMonthly: 1},
			1_000, 1_000, 0.7, 0.7},
		// One unit more than exact: 750,001 / 75,000 = 10.00001 -> 11.
		"just over": {Demand{Target: 750_001, Capacity: 100_000, UnitMonthly: 100},
			11, 1_100, 0.75, 750_001.0 / 1_100_000},
		// A replication factor of 3 needs 3 nodes however light the load.
		"minimum units": {Demand{Target: 1_000, Capacity: 100_000, Utilisation: 0.5, UnitMonthly: 200, MinUnits: 3},
			3, 600, 0.5, 1_000.0 / 300_000},
		"full utilisation": {Demand{Target: 300, Capacity: 100, Utilisation: 1, UnitMonthly: 2},
			3, 6, 1, 1},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := ToServe(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.units, got.Units)
			require.InDelta(t, tc.monthly, got.Monthly, 1e-9)
			require.InDelta(t, tc.utilisation, got.Utilisation, 1e-12)
			require.InDelta(t, tc.load, got.Load, 1e-12)
			require.LessOrEqual(t, got.Load, got.Utilisation+1e-12)
		})
	}
	u := 0.7 // a variable: Go folds 700 / 0.7 exactly as a constant
	require.Greater(t, 700/u, 1000.0, "the float noise case tests what it says")
}

func TestToServeRejects(t *testing.T) {
	for name, tc := range map[string]struct {
		in   Demand
		want []string
	}{
		"nothing":         {Demand{}, []string{"cost to serve: target 0 ops/s", "capacity 0 ops/s", "unit monthly cost 0"}},
		"negative target": {Demand{Target: -5, Capacity: 1, UnitMonthly: 1}, []string{"target -5 ops/s: want a number above 0"}},
		"utilisation above 1": {Demand{Target: 1, Capacity: 1, UnitMonthly: 1, Utilisation: 75},
			[]string{"utilisation 75: want a share in (0, 1]"}},
		"negative minimum": {Demand{Target: 1, Capacity: 1, UnitMonthly: 1, MinUnits: -1}, []string{"minimum units -1"}},
		"absurd":           {Demand{Target: 1e15, Capacity: 1e-3, UnitMonthly: 1}, []string{"check the units of capacity and target"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ToServe(tc.in)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
		})
	}
}
