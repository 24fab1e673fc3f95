package experiment

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
)

// TestLoaderMachinesJudgeTheBusiest checks that loaders sharing a
// machine add up on its cores, and that a trial is flagged by its
// busiest loader machine.
func TestLoaderMachinesJudgeTheBusiest(t *testing.T) {
	sum := func(cpu, wall float64, cores int) results.Summary {
		return results.Summary{Loader: &results.LoaderUsage{RunCPU: cpu, RunWall: wall, Cores: cores}}
	}
	lp := loaderPlan{n: 4, prefixes: [][]string{{"ssh", "vm1"}, {"ssh", "vm2"}, {"ssh", "vm1"}, {"ssh", "vm2"}}}
	// vm1: 7 + 7.5 CPU-seconds over 10 s = 145% of 2 cores; vm2: 60% of 4.
	ms := loaderMachines(lp, []results.Summary{sum(7, 10, 2), sum(4, 10, 4), sum(7.5, 10, 2), sum(2, 10, 4)})
	require.Len(t, ms, 2)
	require.Equal(t, "loaders 0, 2 of 4", ms[0].name)
	require.InDelta(t, 145, ms[0].percent, 1e-9)
	require.Equal(t, 2, ms[0].cores)
	require.InDelta(t, 60, ms[1].percent, 1e-9)

	s := &runState{}
	row := results.Trial{Kind: results.KindRun, Threads: 8}
	s.validity(&row, runner.Config{Threads: 8}, &runner.Result{}, true, ms)
	require.Equal(t, 2, row.LoaderCPUs, "judged by the busier machine")
	require.InDelta(t, 145, row.LoaderCPU, 1e-9)
	require.Empty(t, row.Flags, "145% of 200% is not client-bound")

	ms[0].percent = 190
	row = results.Trial{Kind: results.KindRun, Threads: 8}
	s.validity(&row, runner.Config{Threads: 8}, &runner.Result{}, true, ms)
	require.Len(t, row.Flags, 1)
	require.Contains(t, row.Flags[0], "client-bound: loaders 0, 2 of 4 used 190% CPU of 200% available")

	// Two network namespaces of one machine report its host name: one
	// machine, whatever their prefixes.
	lp = loaderPlan{n: 2, prefixes: [][]string{{"ip", "netns", "exec", "a"}, {"ip", "netns", "exec", "b"}}}
	a, b := sum(9, 10, 2), sum(9, 10, 2)
	a.Host, b.Host = "box", "box"
	ms = loaderMachines(lp, []results.Summary{a, b})
	require.Len(t, ms, 1)
	require.InDelta(t, 180, ms[0].percent, 1e-9)

	// Loaders that reported nothing (an older dbarena) are not judged.
	row = results.Trial{Kind: results.KindRun, Threads: 8}
	s.validity(&row, runner.Config{Threads: 8}, &runner.Result{}, true, loaderMachines(lp, make([]results.Summary, 4)))
	require.Zero(t, row.LoaderCPUs)
	require.Empty(t, row.Flags)
}
