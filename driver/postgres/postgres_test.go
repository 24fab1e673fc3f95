package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/driver/postgres"
)

const envAddr = "DBARENA_TEST_POSTGRES"

// withDatabase returns the server URL with another database name.
func withDatabase(t *testing.T, url, name string) string {
	t.Helper()
	i := strings.LastIndex(url, "/")
	q := ""
	if j := strings.Index(url[i:], "?"); j >= 0 {
		q = url[i+j:]
	}
	return url[:i+1] + name + q
}

func TestConformanceColumns(t *testing.T) {
	url := withDatabase(t, drivertest.Address(t, envAddr), "dbarena_test")
	drivertest.Run(t, drivertest.Options{
		Open: postgres.Open, Prefix: postgres.Prefix,
		Props:       map[string]string{"postgres.url": url},
		ScanOrdered: true, StrictInsert: true,
	})
}

func TestConformanceJSONB(t *testing.T) {
	url := withDatabase(t, drivertest.Address(t, envAddr), "dbarena_test")
	drivertest.Run(t, drivertest.Options{
		Open: postgres.Open, Prefix: postgres.Prefix,
		Props:       map[string]string{"postgres.url": url, "postgres.layout": "jsonb", "postgres.load": "insert"},
		ScanOrdered: true, StrictInsert: true,
	})
}

func TestConformanceSmallPool(t *testing.T) {
	// Fewer connections than workers: sessions take a connection per
	// operation instead of keeping one.
	url := withDatabase(t, drivertest.Address(t, envAddr), "dbarena_test")
	drivertest.Run(t, drivertest.Options{
		Open: postgres.Open, Prefix: postgres.Prefix,
		Props:       map[string]string{"postgres.url": url, "postgres.pool.max": "3", "postgres.load": "insert"},
		ScanOrdered: true, StrictInsert: true, Records: 300,
	})
}

func TestCreatesMissingDatabase(t *testing.T) {
	ctx := context.Background()
	name := "dbarena_new_" + strings.ReplaceAll(time.Now().Format("150405.000000"), ".", "")
	url := withDatabase(t, drivertest.Address(t, envAddr), name)
	db, err := postgres.Open(ctx, driver.Params{Props: map[string]string{"postgres.url": url}, Workers: 1})
	require.NoError(t, err, "a missing database is not an error at open")
	defer db.Close()
	sm := db.(driver.SchemaManager)
	schema := driver.Schema{Table: "usertable", Fields: []string{"field0"}}
	err = sm.CheckSchema(ctx, schema)
	require.ErrorContains(t, err, name, "check names the missing database")
	_, err = db.Session(ctx, 0)
	require.ErrorContains(t, err, "does not exist")
	require.NoError(t, sm.CreateSchema(ctx, schema))
	require.NoError(t, sm.CheckSchema(ctx, schema))

	// A table of another shape is reported with the missing columns.
	err = sm.CheckSchema(ctx, driver.Schema{Table: "usertable", Fields: []string{"field0", "field1"}})
	require.ErrorContains(t, err, "field1")
}

func TestUnreachable(t *testing.T) {
	start := time.Now()
	_, err := postgres.Open(context.Background(), driver.Params{Props: map[string]string{
		"postgres.url": "postgres://postgres@127.0.0.1:1/ycsb?sslmode=disable", "postgres.connect.timeout": "2s",
	}, Workers: 1})
	require.Error(t, err)
	require.Contains(t, err.Error(), "127.0.0.1:1")
	require.Less(t, time.Since(start), 5*time.Second)
	require.Equal(t, driver.ClassUnavailable, driver.Classify(err))
}

func TestBadLogin(t *testing.T) {
	url := drivertest.Address(t, envAddr)
	url = strings.Replace(url, "postgres://postgres@", "postgres://nobody_here@", 1)
	_, err := postgres.Open(context.Background(), driver.Params{Props: map[string]string{"postgres.url": url}, Workers: 1})
	require.Error(t, err)
	require.Contains(t, err.Error(), "nobody_here")
}

func TestBadProperties(t *testing.T) {
	for prop, val := range map[string]string{
		"postgres.dialect": "oracle", "postgres.pool.max": "0", "postgres.layout": "xml",
		"postgres.connect.timeout": "soon", "postgres.upsert": "true", "postgres.url": "::not a url",
	} {
		_, err := postgres.ParseConfig(map[string]string{prop: val}, 4)
		require.Error(t, err, prop)
		require.Contains(t, err.Error(), prop)
	}
}

func TestJDBCProperties(t *testing.T) {
	c, err := postgres.ParseConfig(map[string]string{
		"db.url": "jdbc:postgresql://db1:5433/bench", "db.user": "alice", "db.passwd": "s3cret",
	}, 4)
	require.NoError(t, err)
	require.Equal(t, "postgresql://alice:s3cret@db1:5433/bench", c.URL)
	require.Equal(t, 4, c.PoolMax, "one connection per worker by default")
}
