package cli

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/runner"
)

// TestLoaderShares checks what loader 1 of 3 takes: its contiguous key
// range and a third of a load's rate, or a third of a run's operations,
// rate and every stage's rate, with a seed of its own.
func TestLoaderShares(t *testing.T) {
	src := properties.Source{File: "test"}
	get := func(p *properties.Set, k string) string { v, _, _ := p.Lookup(k); return v }
	ls := loaderSpec{index: 1, count: 3}

	load := properties.New()
	load.Set("recordcount", "1000", src)
	load.Set("target", "300", src)
	require.NoError(t, ls.apply(load, runner.Load))
	require.Equal(t, "334", get(load, "insertstart"), "loader 0 takes the longer first share")
	require.Equal(t, "333", get(load, "insertcount"))
	require.Equal(t, "100", get(load, "target"), "a throttled load shares its rate")

	run := properties.New()
	run.Set("operationcount", "900", src)
	run.Set("target", "600", src)
	run.Set("seed", "7", src)
	run.Set("stages", "10s:4:300,5s:8", src)
	require.NoError(t, ls.apply(run, runner.Transactions))
	require.Equal(t, "300", get(run, "operationcount"))
	require.Equal(t, "200", get(run, "target"))
	require.Equal(t, "10s:4:100,5s:8", get(run, "stages"), "each stage's rate shared, threads kept")
	require.NotEqual(t, "7", get(run, "seed"))

	// Loader 1 of 3 with 2 threads starts at the third host.
	hosts := properties.New()
	hosts.Set("postgres.hosts", "a:1,b:1,c:1", src)
	hosts.Set("threadcount", "2", src)
	hosts.Set("recordcount", "10", src)
	require.NoError(t, ls.apply(hosts, runner.Load))
	require.Equal(t, "c:1,a:1,b:1", get(hosts, "postgres.hosts"))

	run.Set("stages", "10s", src)
	require.ErrorContains(t, ls.apply(run, runner.Transactions), "property stages")
}
