package experiment

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/analysis/steady"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/sysmetrics"
)

// TestHostSaturated pins the host-saturated flag from both sides: the
// machine's limit (90%) where the parts share cores, and a design that
// gives each part cores of its own (what others take there is
// interference, judged per core).
func TestHostSaturated(t *testing.T) {
	use := func(machine, client, db float64) usage {
		return usage{machine: &sysmetrics.Stats{Role: sysmetrics.RoleMachine, MeanCPU: machine}, client: client, dbHere: db}
	}
	for name, tc := range map[string]struct {
		u      usage
		shared bool
		flag   bool
		says   string
	}{
		"shared and saturated": {use(180, 90, 85), true, true,
			"at 180% CPU of 200% on average (the load generator 90%, the database 85%, other processes 5%)"},
		"shared, just below the limit":            {use(179.9, 90, 85), true, false, ""},
		"cores of their own, both busy":           {use(195, 98, 95), false, false, ""},
		"cores of their own, others took a fifth": {use(190, 90, 80), false, false, ""},
		"the issue's run: others took most of it": {use(194, 27, 60), true, true,
			"(the load generator 27%, the database 60%, other processes 107%)"},
		"no machine measured here":      {usage{}, true, false, ""},
		"remote database, loader alone": {use(185, 185, 0), false, false, ""},
	} {
		t.Run(name, func(t *testing.T) {
			f, ok := hostSaturated(tc.u, tc.shared, 2)
			require.Equal(t, tc.flag, ok, string(f))
			if !tc.flag {
				return
			}
			require.Equal(t, results.FlagHostSaturated, f.Kind())
			require.Contains(t, string(f), tc.says)
		})
	}
}

// TestClientFlagThresholds pins the client-bound (Little's law) and
// target-missed flags from both sides, with their values written out.
func TestClientFlagThresholds(t *testing.T) {
	require.True(t, workersIdle(6.99, 10), "under 70% of the workers waiting on the database")
	require.False(t, workersIdle(7, 10))
	require.False(t, workersIdle(0, 10), "no latency measured: not judged")
	require.True(t, missedTarget(949.9, 1000))
	require.False(t, missedTarget(950, 1000), "95% of the target reached")
	require.False(t, missedTarget(10, 0), "no target")
}

// TestStalledAtEnd pins both thresholds from both sides: a second, and
// five times the completed operations' p99.
func TestStalledAtEnd(t *testing.T) {
	require.True(t, stalledAtEnd(time.Second, time.Millisecond))
	require.False(t, stalledAtEnd(999*time.Millisecond, time.Millisecond), "under a second")
	require.True(t, stalledAtEnd(5*time.Second, time.Second), "five times the p99")
	require.False(t, stalledAtEnd(4999*time.Millisecond, time.Second), "a slow database's operations in flight")
}

// TestNotSteadyOnTheIssuesWindow: Cassandra's workload A climbed from
// 11,907 to 21,155 ops/s inside its 6-second window (+62% of its mean,
// t = 2.8) and was not flagged; a window with a +60% climb is now.
func TestNotSteadyOnTheIssuesWindow(t *testing.T) {
	rates := []float64{11907, 11100, 10400, 13500, 14500, 21155}
	tr := steady.Fit(rates)
	require.InDelta(t, 0.62, tr.Drift, 0.01, "the window climbs by 62%% of its mean: %+v", tr)
	require.InDelta(t, 2.8, tr.T, 0.05)
	require.Less(t, tr.T, steady.MinT, "below the old gate: %+v", tr)
	row := results.Trial{Kind: results.KindRun}
	judgeSteady(&row, rates)
	require.True(t, results.HasFlag(row.Flags, results.FlagNotSteady), "flags: %q", row.Flags)
	flat := results.Trial{Kind: results.KindRun}
	judgeSteady(&flat, []float64{15000, 15300, 14900, 15200, 15100, 14950})
	require.Empty(t, flat.Flags)
}
