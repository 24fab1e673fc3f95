package experiment

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/results"
)

// TestMeasureAgain: a measured trial whose window moved, or whose cores
// other processes took, is run again, up to maxAttempts times; not a
// load, not a rate search's trial, not one that changed what the next
// run reads unless its data can be loaded again, and not one that did
// neither.
func TestMeasureAgain(t *testing.T) {
	moved := results.Trial{ID: "pg.a", Flags: []results.Flag{results.Flagf(results.FlagNotSteady, "throughput fell by 25%%")}}
	run := spec.Step{ID: "pg.a", Kind: spec.Run}
	require.Equal(t, "its throughput moved within the window", measureAgain(&run, moved, false))
	taken := results.Trial{ID: "pg.a", Flags: []results.Flag{results.Flagf(results.FlagInterfered, "other processes took 30%% of core 1")}}
	require.Equal(t, "other processes took a share of its cores", measureAgain(&run, taken, false))

	steady := moved
	steady.Flags = []results.Flag{results.Flagf(results.FlagPacing, "late")}
	require.Empty(t, measureAgain(&run, steady, true), "a window that did not move")

	again := againStep(&run)
	require.Equal(t, "pg.a.retry", again.ID)
	require.NotEmpty(t, measureAgain(again, moved, true), "measured again once more")
	last := againStep(again)
	require.Equal(t, "pg.a.retry2", last.ID)
	require.Equal(t, maxAttempts, last.Attempt)
	require.Empty(t, measureAgain(last, moved, true), "not past maxAttempts")
	require.Equal(t, "pg.a", baseID(last))
	for name, st := range map[string]spec.Step{
		"load":   {ID: "pg.load.1", Kind: spec.Load},
		"search": {ID: "pg.a", Kind: spec.Run, Search: true},
		"probe":  {ID: "pg.a.target=500", Kind: spec.Run, Probe: true},
	} {
		require.Empty(t, measureAgain(&st, moved, true), name)
	}
	inserts := spec.Step{ID: "pg.e", Kind: spec.Run, ChangesKeys: true}
	require.Empty(t, measureAgain(&inserts, moved, false), "inserts, and no load to run again")
	require.NotEmpty(t, measureAgain(&inserts, moved, true), "inserts, on a fresh load")
}
