package experiment

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/sysmetrics"
)

// TestHostSaturated pins the host-saturated flag from both sides: the
// machine's limit (90%), the share processes outside the benchmark may
// take (othersCPU), and a design that gives each part cores of its own.
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
		"shared, just below the limit":                      {use(179.9, 90, 85), true, false, ""},
		"cores of their own, both busy":                     {use(195, 98, 95), false, false, ""},
		"cores of their own, others just below their share": {use(190, 90, 80.01), false, false, ""},
		"cores of their own, others at their share": {use(190, 90, 80), false, true,
			"other processes 20%): the figures are the machine's limit, not the database's; processes outside the benchmark took a share of it"},
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
