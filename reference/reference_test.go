package reference_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/reference"
	"github.com/dbarena/dbarena/workload"
)

const records = 500

// withDriver fills req's tool and endpoint from the driver table, as an
// experiment does.
func withDriver(t *testing.T, req reference.Request) reference.Request {
	t.Helper()
	info, err := drivers.Lookup(req.Driver)
	require.NoError(t, err)
	req.Tool, req.Endpoint = info.Reference, info.Endpoint
	return req
}

// config is a read-only workload over the records, with extra properties.
func config(t *testing.T, prefix string, extra ...string) workload.Config {
	t.Helper()
	ps := properties.New()
	set := func(k, v string) { ps.Set(k, v, properties.Source{File: "test"}) }
	set("recordcount", strconv.Itoa(records))
	set("readproportion", "1")
	set("updateproportion", "0")
	for i := 0; i+1 < len(extra); i += 2 {
		set(extra[i], extra[i+1])
	}
	cfg, _, err := workload.ParseConfig(ps, []string{prefix})
	require.NoError(t, err)
	return cfg
}

// load creates the table and loads the records with dbarena itself.
func load(t *testing.T, driverName string, props map[string]string, cfg workload.Config) {
	t.Helper()
	ctx := context.Background()
	info, err := drivers.Lookup(driverName)
	require.NoError(t, err)
	db, err := info.Open(ctx, driver.Params{Props: props, Workers: 2})
	require.NoError(t, err)
	defer db.Close()
	wl, err := workload.New(cfg)
	require.NoError(t, err)
	if sm, ok := db.(driver.SchemaManager); ok {
		schema := driver.Schema{Table: cfg.Table, Fields: wl.FieldNames()}
		require.NoError(t, sm.DropSchema(ctx, schema))
		require.NoError(t, sm.CreateSchema(ctx, schema))
	}
	// Loaded through the driver's session directly: the reference tools
	// sit below the runner, and their tests too.
	wk, err := wl.NewWorker(0, 1)
	require.NoError(t, err)
	sess, err := db.Session(ctx, 0)
	require.NoError(t, err)
	defer sess.Close()
	n := 0
	for op := wk.NextInsert(); op != nil; op = wk.NextInsert() {
		require.NoError(t, sess.Insert(ctx, op.Table, op.Key, op.Values))
		wk.Done(op)
		n++
	}
	require.Equal(t, records, n)
}

func pgURL(t *testing.T) string {
	url := testenv.Addr(t, "DBARENA_TEST_POSTGRES")
	i := strings.LastIndex(url, "/")
	q := ""
	if j := strings.Index(url[i:], "?"); j >= 0 {
		q = url[i+j:]
	}
	return url[:i+1] + "dbarena_reference" + q
}

func TestPgbench(t *testing.T) {
	props := map[string]string{"postgres.url": pgURL(t)}
	for _, keys := range [][]string{
		{"table", "ref_hashed"}, // YCSB's default: FNV-hashed numbers
		{"table", "ref_padded", "insertorder", "ordered", "zeropadding", "8"}, // padded, not hashed
	} {
		t.Run(keys[1], func(t *testing.T) {
			cfg := config(t, "postgres", keys...)
			load(t, "postgres", props, cfg)
			res, err := reference.Run(context.Background(), withDriver(t, reference.Request{Database: "postgres", Driver: "postgres",
				Props: props, Workload: cfg, Threads: 2, Duration: 2 * time.Second, WorkDir: t.TempDir()}))
			require.NoError(t, err)
			require.Equal(t, "pgbench", res.Tool)
			require.Greater(t, res.Throughput, 100.0, "a 500-row table read for 2 s")
			require.Greater(t, res.MeanLatency, 0.0)
			require.Contains(t, res.Command, "-M prepared -c 2")

			// Keys that were never loaded fail the check rather than
			// measuring reads of nothing.
			cfg.InsertStart = 1_000_000
			_, err = reference.Run(context.Background(), withDriver(t, reference.Request{Database: "postgres", Driver: "postgres",
				Props: props, Workload: cfg, Threads: 2, Duration: 2 * time.Second, WorkDir: t.TempDir()}))
			require.ErrorContains(t, err, "do not match the loaded rows")
		})
	}
}

func TestRedisBenchmark(t *testing.T) {
	props := map[string]string{"redis.addr": testenv.Addr(t, "DBARENA_TEST_REDIS")}
	cfg := config(t, "redis", "insertorder", "ordered", "zeropadding", "12")
	load(t, "redis", props, cfg)
	res, err := reference.Run(context.Background(), withDriver(t, reference.Request{Database: "redis", Driver: "redis",
		Props: props, Workload: cfg, Threads: 2, Duration: 2 * time.Second, Rate: 1000}))
	require.NoError(t, err)
	require.Equal(t, "redis-benchmark", res.Tool)
	require.Greater(t, res.Throughput, 100.0)
	require.Contains(t, res.Command, "HGETALL user__rand_int__")
	require.Contains(t, res.Command, "-r "+strconv.Itoa(records))

	cfg = config(t, "redis") // hashed keys: the tool cannot build them
	_, err = reference.Run(context.Background(), withDriver(t, reference.Request{Driver: "redis", Props: props, Workload: cfg, Threads: 2, Duration: 2 * time.Second}))
	var na *reference.NotApplicableError
	require.True(t, errors.As(err, &na), "%v", err)
	require.Contains(t, err.Error(), "insertorder=ordered")
}

func TestNotApplicable(t *testing.T) {
	var na *reference.NotApplicableError
	for name, req := range map[string]reference.Request{
		"no tool":    {Driver: "cql", Workload: config(t, "cql"), Threads: 1, Duration: time.Second},
		"writes":     {Driver: "postgres", Workload: config(t, "postgres", "readproportion", "0.5", "updateproportion", "0.5"), Threads: 1, Duration: time.Second},
		"too short":  {Driver: "postgres", Workload: config(t, "postgres"), Threads: 1, Duration: time.Millisecond},
		"cockroach":  {Driver: "postgres", Props: map[string]string{"postgres.dialect": "cockroachdb"}, Workload: config(t, "postgres"), Threads: 1, Duration: time.Second},
		"some field": {Driver: "postgres", Workload: config(t, "postgres", "readallfields", "false"), Threads: 1, Duration: time.Second},
	} {
		_, err := reference.Run(context.Background(), withDriver(t, req))
		require.True(t, errors.As(err, &na), "%s: %v", name, err)
	}
}
