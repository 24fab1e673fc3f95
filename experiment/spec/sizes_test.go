package spec_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/experiment/spec"
)

// TestSizedTargetsArePricedAsWhatTheyRunOn: a size that names a machine
// type or a node count prices the target as that many of that machine;
// a size of cores keeps the cost as written.
func TestSizedTargetsArePricedAsWhatTheyRunOn(t *testing.T) {
	s, err := spec.Parse("sizes.yaml", yamlText(
		"name: sizes",
		"targets:",
		"  - database: postgres",
		"    deploy: {provider: local}",
		"    cost: {instance: n2d-standard-2, count: 1}",
		"workloads: [c]",
		"matrix:",
		"  size: [{cpus: 0.5}, {machine_type: n2d-standard-8}, {machine_type: n2d-standard-4, nodes: 3}]",
	), testOptions())
	require.NoError(t, err)
	want := map[string]spec.CostResource{
		"postgres-500m":              {Instance: "n2d-standard-2", Count: 1},
		"postgres-n2d-standard-8":    {Instance: "n2d-standard-8", Count: 1},
		"postgres-3n-n2d-standard-4": {Instance: "n2d-standard-4", Count: 3},
	}
	require.Len(t, s.Targets, len(want))
	for _, tg := range s.Targets {
		w, ok := want[tg.Name]
		require.True(t, ok, tg.Name)
		require.NotNil(t, tg.Cost, tg.Name)
		require.Len(t, tg.Cost.Resources, 1)
		r := tg.Cost.Resources[0]
		require.Equal(t, w.Instance, r.Instance, tg.Name)
		require.Equal(t, w.Count, r.Count, tg.Name)
	}
}

func TestGoal(t *testing.T) {
	parse := func(goal, until string) (*spec.Spec, error) {
		return spec.Parse("goal.yaml", yamlText(
			"name: goal",
			"targets: [{database: redis, deploy: {provider: local}}]",
			"workloads: [c]",
			"slo: {p99: 5ms}",
			"run: {until: "+until+", duration: 2s}",
			"matrix: {size: [{cpus: 0.5}, {cpus: 1}]}",
			"goal: "+goal,
		), testOptions())
	}
	s, err := parse("{throughput: 5000, headroom: 20%}", "slo")
	require.NoError(t, err)
	require.Equal(t, &spec.Goal{Throughput: 5000, Headroom: 0.2}, s.Goal)
	s, err = parse("{throughput: 5000, headroom: 0.5}", "slo")
	require.NoError(t, err)
	require.Equal(t, 0.5, s.Goal.Headroom)
	for goal, want := range map[string]string{
		"{throughput: 0}":                   "goal.throughput: want operations per second above 0",
		"{throughput: fast}":                `goal.throughput: want operations per second above 0, got "fast"`,
		"{headroom: 20%}":                   "goal: want a throughput to serve",
		"{throughput: 10, headroom: lots}":  "goal.headroom: want spare capacity as a share",
		"{throughput: 10, headroom: 2000%}": "goal.headroom: want spare capacity as a share",
		"{throughput: 10, rate: 5}":         `unknown key "rate"`,
	} {
		_, err := parse(goal, "slo")
		require.ErrorContains(t, err, want, goal)
	}
	_, err = parse("{throughput: 10}", "saturated")
	require.ErrorContains(t, err, "a goal is answered from rate searches: set run: {until: slo}")
}
