package cql

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/exposition"
)

// TestScyllaFigures reads a ScyllaDB page: counters summed over shards,
// the reactor's utilization averaged, the row cache's hit ratio defined
// over its hits and requests.
func TestScyllaFigures(t *testing.T) {
	f, err := os.Open("testdata/scylla-5.4-metrics.txt")
	require.NoError(t, err)
	defer f.Close()
	page, err := exposition.Parse(f)
	require.NoError(t, err)
	got := map[string]driver.Metric{}
	for _, m := range scyllaFigures(page, "10.0.0.1") {
		require.Equal(t, "10.0.0.1", m.Host)
		got[m.Name] = m
	}
	for name, want := range map[string]float64{
		"scylla_cache_row_hits":              162000,
		"scylla_cache_row_misses":            2000,
		"scylla_cache_row_requests":          164000,
		"scylla_cache_partition_hits":        140001,
		"scylla_reads":                       103000,
		"scylla_writes":                      25000,
		"scylla_coordinator_read_timeouts":   5,
		"scylla_reactor_utilization_percent": 70,
		"scylla_cache_used_bytes":            2 * 104857600,
		"scylla_compactions_running":         1,
	} {
		require.Contains(t, got, name)
		require.Equal(t, want, got[name].Value, name)
	}
	ratio := got["scylla_cache_hit_ratio"]
	require.Equal(t, driver.MetricRatio, ratio.Kind)
	require.Equal(t, "scylla_cache_row_hits", ratio.Part)
	require.Equal(t, "scylla_cache_row_requests", ratio.Whole)
	require.Equal(t, driver.MetricGauge, got["scylla_reactor_utilization_percent"].Kind)
	require.Equal(t, driver.MetricCounter, got["scylla_reads"].Kind)

	// A page without the cache's families defines no ratio.
	require.Empty(t, scyllaFigures(nil, ""))
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{
		"Native-Transport-Requests": "native_transport_requests",
		"ReadStage":                 "read_stage",
		"chunks":                    "chunks",
		"MemtableFlushWriter":       "memtable_flush_writer",
	} {
		require.Equal(t, want, snake(in))
	}
}
