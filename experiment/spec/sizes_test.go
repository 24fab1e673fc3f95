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
