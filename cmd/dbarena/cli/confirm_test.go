package cli

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/analysis/sizing"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/results"
)

// TestConfirmText: the experiment that confirms an answer is the file's
// database alone at the chosen size, the group's workload at its matrix
// point, one run at the throughput instead of a search.
func TestConfirmText(t *testing.T) {
	text := []byte(`name: sizes
results: somewhere
targets:
  - database: postgres
    deploy: {provider: local}
  - name: other
    database: redis
    deploy: {provider: local}
workloads: [a, c]
slo: {p99: 5ms}
run: {until: slo, duration: 3s, threads: 4, max_probes: 6}
matrix:
  size: [{cpus: 0.25}, {cpus: 0.5, memory: 1GiB}]
  recordcount: [1000, 2000]
goal: {throughput: 1000, headroom: 20%}
`)
	orig, err := spec.Parse("sizes.yaml", text, specOptions())
	require.NoError(t, err)
	g := &sizing.Group{Database: "postgres", Workload: "c", Params: []results.Param{{Key: "recordcount", Value: "2000"}}}
	for _, c := range []struct {
		choice sizing.Option
		name   string
		cpus   float64
		memory int64
	}{
		{sizing.Option{Label: "500m-1gib", Cores: 0.5}, "postgres-500m-1gib", 0.5, 1 << 30},
		{sizing.Option{Label: "2cpu", Cores: 2, Source: sizing.SourceExtrapolated}, "postgres-2cpu", 2, 0},
	} {
		out, err := confirmText(text, orig, g, c.choice, 1234, 20)
		require.NoError(t, err)
		s, err := spec.Parse("sizes.yaml", out, specOptions())
		require.NoError(t, err, "%s", out)
		require.Equal(t, "sizes-confirm", s.Name)
		require.Nil(t, s.Goal)
		require.Len(t, s.Targets, 1, "%s", out)
		tg := s.Targets[0]
		require.Equal(t, c.name, tg.Name)
		require.Equal(t, c.cpus, tg.Deploy.CPUs)
		require.Equal(t, c.memory, tg.Deploy.MemoryBytes)
		require.Len(t, s.Workloads, 1)
		require.Equal(t, "c", s.Workloads[0].Name)
		require.Equal(t, 1234.0, s.Run.Target)
		require.Equal(t, 20, s.Run.Threads)
		require.Equal(t, 3.0, s.Run.Duration.Seconds())
		plan, err := spec.NewPlan(s)
		require.NoError(t, err)
		var runs int
		for _, st := range plan.Steps {
			if st.Kind == spec.Run {
				runs++
				require.Len(t, st.Params, 1)
				require.Equal(t, [2]string{"recordcount", "2000"}, [2]string{st.Params[0].Key, st.Params[0].Value})
			}
		}
		require.Equal(t, 1, runs, "one run, no search")
	}
	// A size of nodes cannot be predicted from cores.
	orig.Sizes = []spec.Size{{Label: "3n", Nodes: 3}}
	_, err = confirmText(text, orig, g, sizing.Option{Label: "2cpu", Cores: 2}, 1, 1)
	require.ErrorContains(t, err, "measure it instead")
}

// TestConfirmWithoutASizeAxis: a rate search of a target with no size
// axis confirms the target as the file deploys it (no size added); a
// size predicted from its cores is deployed at those cores; one with no
// cores is refused, naming it.
func TestConfirmWithoutASizeAxis(t *testing.T) {
	text := []byte(`name: search
targets:
  - {name: redis, database: redis, deploy: {provider: local, cpus: 0.5}}
workloads: [c]
slo: {p99: 5ms}
run: {until: slo, duration: 3s, threads: 4}
`)
	orig, err := spec.Parse("search.yaml", text, specOptions())
	require.NoError(t, err)
	g := &sizing.Group{Database: "redis", Workload: "c"}
	for _, c := range []struct {
		choice sizing.Option
		name   string
		cpus   float64
	}{
		{sizing.Option{Label: "redis", Cores: 0.5, Source: sizing.SourceMeasured}, "redis", 0.5},
		{sizing.Option{Label: "redis", Source: sizing.SourceMeasured}, "redis", 0.5},
		{sizing.Option{Label: "1cpu", Cores: 1, Source: sizing.SourceExtrapolated}, "redis-1cpu", 1},
	} {
		out, err := confirmText(text, orig, g, c.choice, 1000, 8)
		require.NoError(t, err)
		s, err := spec.Parse("search.yaml", out, specOptions())
		require.NoError(t, err, "%s", out)
		require.Len(t, s.Targets, 1, "%s", out)
		require.Equal(t, c.name, s.Targets[0].Name)
		require.Equal(t, c.cpus, s.Targets[0].Deploy.CPUs)
	}
	_, err = confirmText(text, orig, g, sizing.Option{Label: "x", Source: sizing.SourceExtrapolated}, 1000, 8)
	require.ErrorContains(t, err, "size x has no cores to deploy it at")
}
