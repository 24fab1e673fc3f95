package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/analysis/compare"
	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/experiment/spec"
)

// TestFormatJSON checks that compare, drivers and run --dry-run print
// their documented JSON types under --format json, text staying the
// default, and that a bad --format is bad input.
func TestFormatJSON(t *testing.T) {
	ctx := context.Background()
	t.Run("compare", func(t *testing.T) {
		sweep := "../../../results/testdata/golden/format2/sweep"
		code, out, errs := run(t, ctx, "compare", "--format", "json", "--fail-on-slower", sweep, sweep)
		require.Equal(t, ExitOK, code, errs)
		var j compare.JSON
		require.NoError(t, json.Unmarshal([]byte(out), &j), out)
		require.Len(t, j.Changes, 6*len(compare.Metrics()))
		require.Equal(t, 0.95, j.Level)
		require.Equal(t, "fast", j.Changes[0].Target)
		require.InDelta(t, 0, *j.Changes[0].Change, 1e-12, "a run against itself")

		code, out, _ = run(t, ctx, "compare", sweep, sweep)
		require.Equal(t, ExitOK, code)
		require.Contains(t, out, "VERDICT", "text is the default")
	})
	t.Run("drivers", func(t *testing.T) {
		code, out, errs := run(t, ctx, "drivers", "--format", "json")
		require.Equal(t, ExitOK, code, errs)
		var c drivers.Catalogue
		require.NoError(t, json.Unmarshal([]byte(out), &c), out)
		require.Len(t, c.Drivers, len(drivers.Names()))
		for _, d := range c.Drivers {
			if d.Name == "postgres" {
				require.Equal(t, "pgbench", d.Reference)
				require.Equal(t, "postgres", d.Prefix)
			}
		}
	})
	t.Run("dry run", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "dry.yaml")
		require.NoError(t, os.WriteFile(file, []byte("name: dry\ntargets:\n  - database: redis\nworkloads: [a, c]\nrun: {duration: 5s, threads: 2}\nmatrix:\n  threads: [1, 2]\n"), 0o644))
		code, out, errs := run(t, ctx, "run", file, "--dry-run", "--format", "json")
		require.Equal(t, ExitOK, code, errs)
		var p spec.PlanJSON
		require.NoError(t, json.Unmarshal([]byte(out), &p), out)
		require.Equal(t, "dry", p.Name)
		require.Equal(t, 4, p.Runs)
		require.Equal(t, 1, p.Loads)
		require.Equal(t, 20.0, p.EstimatedSeconds, "four 5 s runs")
		require.Equal(t, 1, p.UnknownLengthSteps, "the load")
		last := p.Steps[len(p.Steps)-1]
		require.Equal(t, "redis.c.threads=2", last.ID)
		require.Equal(t, []spec.ParamJSON{{Key: "threads", Value: "2"}}, last.Params)
		require.Equal(t, 5.0, last.DurationSeconds)
	})
	t.Run("bad format", func(t *testing.T) {
		code, out, errs := run(t, ctx, "drivers", "--format", "yaml")
		require.Equal(t, ExitUsage, code)
		require.Empty(t, out)
		require.Contains(t, errs, `invalid argument "yaml" for "--format" flag: want text or json`)
	})
}
