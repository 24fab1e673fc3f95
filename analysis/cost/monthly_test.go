package cost

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// testCatalogue has round prices, so the formulas are tested apart from
// the built-in data, which changes with list prices.
func testCatalogue(t *testing.T) *Catalogue {
	t.Helper()
	cat, err := ParseCatalogue(strings.NewReader(`
compiled: "2025-01"
instances:
  node:
    vcpus: 8
    hourly_usd: 0.5
  loader:
    hourly_usd: 0.1
  disk:
    monthly_usd: 30
`))
	require.NoError(t, err)
	return cat
}

func TestMonthlyCost(t *testing.T) {
	cat := testCatalogue(t)
	for name, tc := range map[string]struct {
		in   []Resource
		want float64
	}{
		// 3 nodes x $0.5/h x 730 h.
		"three nodes": {[]Resource{{Instance: "node", Count: 3}}, 3 * 0.5 * 730},
		// A monthly-priced add-on is not multiplied by hours.
		"node with four disks": {[]Resource{{Instance: "node", Count: 1}, {Instance: "disk", Count: 4}},
			0.5*730 + 4*30},
		// ExtraHourly is per unit: 2 x ($0.1 + $0.02) x 730.
		"extra per unit": {[]Resource{{Instance: "loader", Count: 2, ExtraHourly: 0.02}}, 2 * (0.1 + 0.02) * 730},
		// A cost the catalogue does not know.
		"extra only": {[]Resource{{Count: 1, ExtraHourly: 0.25}}, 0.25 * 730},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := MonthlyCost(cat, tc.in)
			require.NoError(t, err)
			require.InDelta(t, tc.want, got, 1e-9)
		})
	}
}

// TestMonthlyCostBuiltin prices a deployment of the ScyllaDB studies
// with the built-in list prices: 3 x i4i.xlarge at $0.343/h.
func TestMonthlyCostBuiltin(t *testing.T) {
	cat, err := Default()
	require.NoError(t, err)
	got, err := MonthlyCost(cat, []Resource{{Instance: "i4i.xlarge", Count: 3}})
	require.NoError(t, err)
	require.InDelta(t, 751.17, got, 1e-9) // 3 x 0.343 x 730
	// n2d-standard-8 with two local SSD partitions: $0.337968 x 730 +
	// 2 x $30.
	got, err = MonthlyCost(cat, []Resource{{Instance: "n2d-standard-8", Count: 1}, {Instance: "local-ssd", Count: 2}})
	require.NoError(t, err)
	require.InDelta(t, 306.71664, got, 1e-9)
}

func TestMonthlyCostRejects(t *testing.T) {
	cat := testCatalogue(t)
	for name, tc := range map[string]struct {
		cat  *Catalogue
		in   []Resource
		want []string
	}{
		"nothing":      {cat, nil, []string{"monthly cost: no resources"}},
		"zero count":   {cat, []Resource{{Instance: "node"}}, []string{"resource 1 (0 x node): count 0: want 1 or more"}},
		"negative":     {cat, []Resource{{Instance: "node", Count: 1, ExtraHourly: -1}}, []string{"extra hourly -1"}},
		"no price":     {cat, []Resource{{Count: 2}}, []string{"resource 1 (2 x extra): neither an instance nor an extra hourly price"}},
		"no catalogue": {nil, []Resource{{Instance: "node", Count: 1}}, []string{"no price catalogue"}},
		"every problem": {cat, []Resource{{Instance: "nod", Count: 1}, {Instance: "node", Count: -1}},
			[]string{`resource 1 (1 x nod): instance "nod" is not in the price catalogue (3 entries); close: node`,
				"resource 2 (-1 x node): count -1"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := MonthlyCost(tc.cat, tc.in)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
		})
	}
	_, err := MonthlyCost(cat, []Resource{{Instance: "nod", Count: 1}})
	var u *UnknownInstanceError
	require.True(t, errors.As(err, &u), "the unknown-instance error is kept for errors.As")
	require.Equal(t, []string{"node"}, u.Close)
}

// TestMonth checks the month against the calculators': 8,760 h / 12.
func TestMonth(t *testing.T) {
	require.Equal(t, 8760/12, HoursPerMonth)
	require.Equal(t, 730*60*60, SecondsPerMonth)
}
