package interference

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// pinned is the quickstart's layout on two cores: the database on core
// 1, the load generator on core 0.
func pinned(busy0, busy1, db, client float64) (Usage, []Part) {
	return Usage{Busy: map[int]float64{0: busy0, 1: busy1}, Steal: map[int]float64{}},
		[]Part{{Name: "postgres", Kind: Database, Cores: []int{1}, CPU: db}, {Name: "the load generator", Kind: Client, Cores: []int{0}, CPU: client}}
}

func TestGroupsPinned(t *testing.T) {
	u, parts := pinned(60, 100, 97, 58)
	gs := Groups(u, parts)
	require.Len(t, gs, 2)
	require.Equal(t, []int{0}, gs[0].Cores)
	require.Equal(t, "the load generator", gs[0].Parts[0].Name)
	require.InDelta(t, 2, gs[0].Others, 1e-9)
	require.Equal(t, []int{1}, gs[1].Cores)
	require.InDelta(t, 3, gs[1].Others, 1e-9)
	for _, g := range gs {
		require.False(t, g.Interfered(), g.Describe())
	}
}

// Each side of MaxShare, and of the idle floor: others that took a
// tenth of a busy core interfere; a little less does not, nor the same
// on a core that had time to spare.
func TestInterferedThresholds(t *testing.T) {
	cases := []struct {
		name         string
		busy, db     float64
		interference bool
	}{
		{"a busy loop took a third of the database's core", 100, 67, true},
		{"exactly a tenth of a busy core", 95, 85, true},
		{"just under a tenth", 95, 85.1, false},
		{"a tenth taken, but the core was 11% idle", 89, 79, false},
		{"a tenth taken, the core 9.9% idle", 90.1, 80, true},
		{"quiet", 99, 97, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, parts := pinned(50, c.busy, c.db, 48)
			g := Groups(u, parts)[1]
			require.Equal(t, c.interference, g.Interfered(), g.Describe())
		})
	}
}

func TestLoadGeneratorInterfered(t *testing.T) {
	u, parts := pinned(100, 90, 88, 70)
	gs := Groups(u, parts)
	require.True(t, gs[0].Interfered(), gs[0].Describe())
	require.False(t, gs[1].Interfered(), gs[1].Describe())
}

// A database that may run anywhere shares one group with the load
// generator: on two cores, a fifth of a core is the tenth.
func TestUnpinnedOneGroup(t *testing.T) {
	u := Usage{Busy: map[int]float64{0: 95, 1: 95}}
	parts := []Part{{Name: "redis", Kind: Database, CPU: 100}, {Name: "the load generator", Kind: Client, CPU: 69}}
	gs := Groups(u, parts)
	require.Len(t, gs, 1)
	require.Equal(t, []int{0, 1}, gs[0].Cores)
	require.InDelta(t, 21, gs[0].Others, 1e-9)
	require.True(t, gs[0].Interfered())
	parts[1].CPU = 71
	require.False(t, Groups(u, parts)[0].Interfered())
}

// An idle target on the database's core takes its time too, and is
// named.
func TestIdleTargetTakes(t *testing.T) {
	u, parts := pinned(50, 100, 86, 48)
	parts = append(parts, Part{Name: "cassandra", Kind: Idle, Cores: []int{1}, CPU: 12})
	g := Groups(u, parts)[1]
	require.InDelta(t, 2, g.Others, 1e-9)
	require.InDelta(t, 12, g.Idle, 1e-9)
	require.True(t, g.Interfered())
	require.Contains(t, g.Describe(), "the idle target cassandra 12%")
}

// Steal is inside busy and is named.
func TestStealNamed(t *testing.T) {
	u, parts := pinned(50, 100, 60, 48)
	u.Steal[1] = 30
	g := Groups(u, parts)[1]
	require.True(t, g.Interfered())
	require.Equal(t, "other processes 40% (the hypervisor's steal 30% of it) took 40% of core 1, where postgres ran (100% busy)", g.Describe())
}

// A part whose CPU is unknown leaves its group unjudged.
func TestUnmeasuredPart(t *testing.T) {
	u, parts := pinned(50, 100, math.NaN(), 48)
	g := Groups(u, parts)[1]
	require.True(t, math.IsNaN(g.Others))
	require.False(t, g.Interfered())
}

// Cores no part ran on are no group; a part's core that the machine
// does not list is ignored.
func TestUnusedCores(t *testing.T) {
	u := Usage{Busy: map[int]float64{0: 10, 1: 100, 2: 100, 3: 5}}
	parts := []Part{{Name: "db", Kind: Database, Cores: []int{1, 2, 9}, CPU: 190}}
	gs := Groups(u, parts)
	require.Len(t, gs, 1)
	require.Equal(t, []int{1, 2}, gs[0].Cores)
	require.InDelta(t, 10, gs[0].Others, 1e-9)
	require.False(t, gs[0].Interfered(), "10 of 200 is 5%")
}

// Steal is time the core wanted and did not get: it counts however idle
// the core looks; both sides of MaxShare.
func TestStealCountsWhateverTheIdle(t *testing.T) {
	u, parts := pinned(50, 90, 73, 48)
	u.Steal[1] = 17
	g := Groups(u, parts)[1]
	require.True(t, g.Interfered(), "steal 17%% with the core 10%% idle: %s", g.Describe())
	u.Steal[1] = 9.9
	parts[0].CPU = 80.1
	require.False(t, Groups(u, parts)[1].Interfered(), "steal under a tenth, others under a tenth")
}
