package experiment

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
)

// TestRemoteCommandQuoting checks that a command behind ssh reaches the
// remote shell as the same words: ssh joins its arguments with spaces,
// and the far side's shell splits them again.
func TestRemoteCommandQuoting(t *testing.T) {
	args := []string{"printf", `%s\n`, "plain", "two words", `it's`, `$HOME`, "a\"b", "", "x;rm -rf /", "back\\slash", "*"}
	r := &remoteLoader{prefix: []string{"/usr/bin/ssh", "-l", "admin", "10.0.0.9"}}
	argv := r.command(args...)
	require.Len(t, argv, 5, "the prefix, then the command as one word")
	require.Equal(t, "10.0.0.9", argv[3])
	// What the remote shell does with that word: sh -c.
	out, err := exec.Command("sh", "-c", argv[4]).Output()
	require.NoError(t, err)
	require.Equal(t, strings.Join(args[2:], "\n")+"\n", string(out))

	// Prefixes that exec an argv get it unchanged.
	r = &remoteLoader{prefix: []string{"ip", "netns", "exec", "myssh"}}
	require.Equal(t, append(append([]string(nil), r.prefix...), args...), r.command(args...))
	for _, p := range [][]string{
		{"gcloud", "compute", "ssh", "vm-1", "--"},
		{"gcloud", "--project", "p", "compute", "ssh", "vm-1", "--"},
		{"sudo", "-u", "bench", "ssh", "10.0.0.9"},
		{"env", "SSH_AUTH_SOCK=/tmp/a", "/usr/bin/ssh", "h"},
	} {
		require.True(t, remoteShell(p), "%q", p)
	}
	for _, p := range [][]string{{"kubectl", "exec", "pod", "--"}, {"ip", "netns", "exec", "ssh"}, {"sudo", "ip", "netns", "exec", "n"}, {"docker", "exec", "-i", "c"}, {}} {
		require.False(t, remoteShell(p), "%q", p)
	}
}

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
