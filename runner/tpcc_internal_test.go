package runner

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTerminalHome: the trial's workers cover warehouses, then districts,
// and a loader's workers continue where the previous loader's ended (two
// loaders of 4 workers on 2 warehouses are the 8 terminals one process
// of 8 would be), so that loaders do not all start at warehouse 1.
func TestTerminalHome(t *testing.T) {
	type home struct{ w, d int }
	one := map[home]bool{}
	for id := range 8 {
		w, d := terminalHome(id, 2)
		one[home{w, d}] = true
	}
	require.Len(t, one, 8, "8 workers, 8 distinct terminals")
	split := map[home]bool{}
	for loader := range 2 {
		first := loader * 4 // trial.Plan.FirstWorker: the loader's index times its threads
		for i := range 4 {
			w, d := terminalHome(first+i, 2)
			split[home{w, d}] = true
		}
	}
	require.Equal(t, one, split)
	w, d := terminalHome(4, 2)
	require.Equal(t, home{1, 3}, home{w, d}, "the second loader's first worker")
	w, d = terminalHome(20, 2)
	require.Equal(t, home{1, 1}, home{w, d}, "past 10 a warehouse the districts wrap")
}
