package postgres_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/postgres"
	"github.com/dbarena/dbarena/internal/testenv"
)

func TestNativeStats(t *testing.T) {
	ctx := context.Background()
	url := withDatabase(t, testenv.Addr(t, envAddr), "dbarena_test")
	db, err := postgres.Open(ctx, driver.Params{Props: map[string]string{"postgres.url": url}, Workers: 1})
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.(driver.SchemaManager).CreateSchema(ctx, driver.Schema{Table: "native_stats", Fields: []string{"field0"}}))
	ns := db.(driver.NativeStatser)
	before, err := ns.NativeStats(ctx)
	require.NoError(t, err)
	require.Contains(t, before, "pg_buffer_hit_ratio")
	ratio := before["pg_buffer_hit_ratio"]
	require.True(t, ratio > 0 && ratio <= 1, "ratio %v", ratio)
	// Reading the catalogue again hits the cache: the hit count grows.
	after, err := ns.NativeStats(ctx)
	require.NoError(t, err)
	require.GreaterOrEqual(t, after["pg_blocks_hit"], before["pg_blocks_hit"])
}
