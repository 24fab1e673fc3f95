package spec_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/experiment/spec"
)

func TestLoaderCommands(t *testing.T) {
	s, err := spec.Parse("l.yaml", yamlText("name: l", "targets: [{database: postgres}]", "workloads: [c]",
		`run: {loader_commands: ["ssh -l admin 10.0.0.5", ""]}`), testOptions())
	require.NoError(t, err)
	require.Equal(t, 2, s.Run.Loaders)
	require.Equal(t, [][]string{{"ssh", "-l", "admin", "10.0.0.5"}, {}}, s.Run.LoaderCommands, "an empty prefix runs that loader here")

	_, err = spec.Parse("l.yaml", yamlText("name: l", "targets: [{database: postgres}]", "workloads: [c]",
		`run: {loaders: 3, loader_commands: ["ssh a", "ssh b"]}`), testOptions())
	require.ErrorContains(t, err, "3 loaders but 2 loader_commands")
}
