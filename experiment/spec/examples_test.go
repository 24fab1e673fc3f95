package spec_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/experiment/spec"
)

// examplesDir holds one experiment file per kind of study.
const examplesDir = "../../examples"

// TestExamples parses and plans every example with the tool's tables, and
// checks each plan has the shape its header comment promises.
func TestExamples(t *testing.T) {
	// A-F loads each target twice: once for A-D, again before E, because
	// D inserted records E would insert again.
	tests := map[string]struct {
		targets []string
		loads   int
		runs    int
	}{
		"quickstart.yaml":                     {targets: []string{"postgres", "cassandra"}, loads: 14, runs: 36},
		"postgres-vs-scylladb.yaml":           {targets: []string{"postgres", "scylladb"}, loads: 4, runs: 12},
		"yugabyte-client-sweep.yaml":          {targets: []string{"ysql", "ycql"}, loads: 2, runs: 2 * 2 * 7 * 3},
		"scylla-vs-dynamodb-matrix.yaml":      {targets: []string{"scylladb", "dynamodb"}, loads: 2, runs: 2 * 3 * 3},
		"cockroach-vs-scylla-ycsb.yaml":       {targets: []string{"cockroachdb", "scylladb"}, loads: 4, runs: 12},
		"baremetal-vs-cloud.yaml":             {targets: []string{"baremetal", "cloud"}, loads: 2, runs: 2 * 2 * 3},
		"compose-pg-vs-redis.yaml":            {targets: []string{"postgres", "redis"}, loads: 2, runs: 4},
		"gcp-postgres-vs-scylladb.yaml":       {targets: []string{"postgres", "scylladb"}, loads: 2, runs: 2 * 2 * 3},
		"kubernetes-cockroach-vs-scylla.yaml": {targets: []string{"cockroachdb", "scylladb"}, loads: 2, runs: 2 * 3 * 3},
		"highest-rate-at-slo.yaml":            {targets: []string{"postgres", "redis"}, loads: 2, runs: 2},
		"sizing.yaml": {targets: []string{"redis-250m", "redis-500m", "redis-750m", "redis-1cpu", "postgres-250m", "postgres-500m", "postgres-750m", "postgres-1cpu"},
			loads: 8, runs: 8},
	}
	files, err := filepath.Glob(filepath.Join(examplesDir, "*.yaml"))
	require.NoError(t, err)
	require.Len(t, files, len(tests), "every example has an entry here and the reverse")
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			tc, ok := tests[name]
			require.True(t, ok, "unexpected example %s", name)
			text, err := os.ReadFile(f)
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(string(text), "# "), "starts with a header comment")
			require.Contains(t, string(text), "dbarena run examples/"+name+" --dry-run", "says how to run it")
			require.Contains(t, string(text), "local", "says how to run it locally")

			s, err := spec.ParseFile(f, testOptions())
			require.NoError(t, err)
			require.Equal(t, strings.TrimSuffix(name, ".yaml"), s.Name, "named after its file")
			var targets []string
			for _, tg := range s.Targets {
				targets = append(targets, tg.Name)
			}
			require.Equal(t, tc.targets, targets)
			p, err := spec.NewPlan(s)
			require.NoError(t, err)
			require.Equal(t, tc.loads, p.LoadCount())
			require.Equal(t, tc.runs, p.RunCount())
			require.Empty(t, p.Warnings)
		})
	}
}

func TestQuickstartIsTheExample(t *testing.T) {
	got, err := spec.Quickstart()
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join(examplesDir, "quickstart.yaml"))
	require.NoError(t, err)
	require.Equal(t, string(want), string(got),
		"experiment/spec/quickstart.yaml must be a copy of examples/quickstart.yaml: copy it over")
}

func TestSetProperty(t *testing.T) {
	s, err := spec.Parse("q.yaml", yamlText(
		"name: q",
		"properties: {recordcount: 10000, fieldcount: 4}",
		"targets: [{database: postgres}]",
		"workloads: [a]",
	), testOptions())
	require.NoError(t, err)
	s.SetProperty("recordcount", "500", "--records")
	s.SetProperty("fieldlength", "10", "--field-length")
	require.Equal(t, []spec.KV{{Key: "recordcount", Value: "500", Origin: "--records"}, {Key: "fieldcount", Value: "4", Line: 2},
		{Key: "fieldlength", Value: "10", Origin: "--field-length"}}, s.Properties)
	p, err := spec.NewPlan(s)
	require.NoError(t, err)
	v, src := source(t, p.Steps[0], "recordcount")
	require.Equal(t, "500", v)
	require.Equal(t, "--records", src)
	require.Equal(t, int64(500), p.Steps[0].Operations)

	s.SetProperty("fieldlength", "0", "--field-length")
	_, err = spec.NewPlan(s)
	require.ErrorContains(t, err, `--field-length: property "fieldlength": 0: want at least 1`)
}

func TestParseDuration(t *testing.T) {
	for in, ok := range map[string]bool{"20s": true, "1m30s": true, "90": true, "0.5": true, "-1s": false, "-3": false, "soon": false, "": false} {
		_, err := spec.ParseDuration(in)
		require.Equal(t, ok, err == nil, in)
	}
}
