package loader_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/loader"
	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/runner"
)

// TestLoaderShares checks what loader 1 of 3 takes: its contiguous key
// range and a third of a load's rate, or a third of a run's operations,
// rate and every stage's rate, with a seed of its own.
func TestLoaderShares(t *testing.T) {
	src := properties.Source{File: "test"}
	get := func(p *properties.Set, k string) string { v, _, _ := p.Lookup(k); return v }
	ls := loader.Slot{Index: 1, Count: 3}

	load := properties.New()
	load.Set("recordcount", "1000", src)
	load.Set("target", "300", src)
	require.NoError(t, ls.Apply(load, runner.Load))
	require.Equal(t, "334", get(load, "insertstart"), "loader 0 takes the longer first share")
	require.Equal(t, "333", get(load, "insertcount"))
	require.Equal(t, "100", get(load, "target"), "a throttled load shares its rate")

	run := properties.New()
	run.Set("operationcount", "900", src)
	run.Set("target", "600", src)
	run.Set("seed", "7", src)
	run.Set("stages", "10s:4:300,5s:8", src)
	require.NoError(t, ls.Apply(run, runner.Transactions))
	require.Equal(t, "300", get(run, "operationcount"))
	require.Equal(t, "200", get(run, "target"))
	require.Equal(t, "10s:4:100,5s:8", get(run, "stages"), "each stage's rate shared, threads kept")
	require.NotEqual(t, "7", get(run, "seed"))

	run.Set("stages", "10s", src)
	require.ErrorContains(t, ls.Apply(run, runner.Transactions), "property stages")
}

// TestSharesAddUp: the slots' shares of any total cover it once, in
// order, each within one item of the others.
func TestSharesAddUp(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7} {
		for _, total := range []int64{0, 1, 5, 1000, 1001} {
			var next int64
			for i := range n {
				off, size := loader.Slot{Index: i, Count: n}.Share(total)
				require.Equal(t, next, off, "slot %d/%d of %d", i, n, total)
				require.InDelta(t, float64(total)/float64(n), float64(size), 1)
				next = off + size
			}
			require.Equal(t, total, next)
		}
	}
	off, size := loader.Slot{}.Share(42)
	require.Equal(t, [2]int64{0, 42}, [2]int64{off, size}, "alone: the whole")
}

// TestWholeCountsEveryLoader: the trial's settings count every loader's
// workers, in each stage too, and leave the loaders' own alone.
func TestWholeCountsEveryLoader(t *testing.T) {
	cfg := runner.Config{Threads: 4, Stages: []runner.Stage{{Duration: time.Second, Threads: 2, Target: 100}}}
	w := loader.Whole(cfg, 3)
	require.Equal(t, 12, w.Threads)
	require.Equal(t, 6, w.Stages[0].Threads)
	require.Equal(t, 100.0, w.Stages[0].Target, "rates were shared, not multiplied")
	require.Equal(t, 2, cfg.Stages[0].Threads, "the loaders' settings unchanged")
	require.Equal(t, 4, loader.Slot{Index: 2, Count: 3}.FirstWorker(2))
}

// TestSlotRoundTrips: "I/N" parses back to the slot it came from, and
// bad slots are refused.
func TestSlotRoundTrips(t *testing.T) {
	s, err := loader.ParseSlot(loader.Slot{Index: 2, Count: 5}.String())
	require.NoError(t, err)
	require.Equal(t, loader.Slot{Index: 2, Count: 5}, s)
	for _, bad := range []string{"3/3", "-1/2", "1", "a/b", "0/0"} {
		_, err := loader.ParseSlot(bad)
		require.Error(t, err, bad)
	}
}
