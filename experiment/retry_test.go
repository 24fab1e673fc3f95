package experiment

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/results"
)

// TestMeasureAgain: a measured trial whose window moved is run once
// more; not a second time, not a load, not a rate search's trial, not
// one that changed what the next run reads unless its data can be
// loaded again, and not one that did not move.
func TestMeasureAgain(t *testing.T) {
	moved := results.Trial{ID: "pg.a", Flags: []results.Flag{results.Flagf(results.FlagNotSteady, "throughput fell by 25%%")}}
	run := spec.Step{ID: "pg.a", Kind: spec.Run}
	require.True(t, measureAgain(&run, moved, false))

	steady := moved
	steady.Flags = []results.Flag{results.Flagf(results.FlagPacing, "late")}
	require.False(t, measureAgain(&run, steady, true), "a window that did not move")

	retry := run
	retry.ID = results.RetryID(run.ID)
	require.False(t, measureAgain(&retry, moved, true), "a retry is not retried")
	for name, st := range map[string]spec.Step{
		"load":   {ID: "pg.load.1", Kind: spec.Load},
		"search": {ID: "pg.a", Kind: spec.Run, Search: true},
		"probe":  {ID: "pg.a.target=500", Kind: spec.Run, Probe: true},
	} {
		require.False(t, measureAgain(&st, moved, true), name)
	}
	inserts := spec.Step{ID: "pg.e", Kind: spec.Run, ChangesKeys: true}
	require.False(t, measureAgain(&inserts, moved, false), "inserts, and no load to run again")
	require.True(t, measureAgain(&inserts, moved, true), "inserts, on a fresh load")
}
