package runner_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/internal/clock"
	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/record"
	"github.com/dbarena/dbarena/workload"
)

// newWorkload builds a workload from key/value property pairs.
func newWorkload(t testing.TB, kv ...string) *workload.Workload {
	t.Helper()
	p := properties.New()
	for i := 0; i < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], properties.Source{File: "test"})
	}
	cfg, _, err := workload.ParseConfig(p, nil)
	require.NoError(t, err)
	wl, err := workload.New(cfg)
	require.NoError(t, err)
	return wl
}

// stallDB is a driver for failure and timing injection that a real server
// cannot produce on demand: every read advances a virtual clock by cost,
// and every stallEvery-th read by stall instead.
type stallDB struct {
	clk        *clock.Virtual
	cost       int64
	stall      int64
	stallEvery int64
	mu         sync.Mutex
	n          int64
	failEvery  int64
	keys       []string
}

func (d *stallDB) Session(context.Context, int) (driver.Session, error) { return d, nil }
func (d *stallDB) Close() error                                         { return nil }

func (d *stallDB) op(key string) error {
	d.mu.Lock()
	d.n++
	n := d.n
	d.keys = append(d.keys, key)
	d.mu.Unlock()
	if d.stallEvery > 0 && n%d.stallEvery == 0 {
		d.clk.Advance(d.stall)
	} else if d.clk != nil {
		d.clk.Advance(d.cost)
	}
	if d.failEvery > 0 && n%d.failEvery == 0 {
		return driver.Errorf(driver.ClassTimeout, "injected timeout")
	}
	return nil
}

func (d *stallDB) Read(_ context.Context, _, key string, _ []string, dst record.Record) (record.Record, error) {
	return dst[:0], d.op(key)
}
func (d *stallDB) Scan(_ context.Context, _, key string, _ int, _ []string, dst []record.Record) ([]record.Record, error) {
	return dst[:0], d.op(key)
}
func (d *stallDB) Update(_ context.Context, _, key string, _ record.Record) error { return d.op(key) }
func (d *stallDB) Insert(_ context.Context, _, key string, _ record.Record) error { return d.op(key) }
func (d *stallDB) Delete(_ context.Context, _, key string) error                  { return d.op(key) }

var _ driver.Session = (*stallDB)(nil)

// loaded returns a memory database holding the workload's records.
func loaded(t testing.TB, kv ...string) memoryDB {
	t.Helper()
	db := newMemory(t)
	wl := newWorkload(t, kv...)
	res, err := runnerLoad(wl, db)
	require.NoError(t, err)
	require.Equal(t, int64(0), res.Measured.Errors)
	return db
}

func basicParams(kv ...string) driver.Params {
	p := driver.Params{Props: map[string]string{}, Workers: 1}
	for i := 0; i < len(kv); i += 2 {
		p.Props[kv[i]] = kv[i+1]
	}
	return p
}

func recordOf(kv ...string) record.Record {
	var r record.Record
	for i := 0; i < len(kv); i += 2 {
		r = append(r, record.Field{Name: kv[i], Value: []byte(kv[i+1])})
	}
	return r
}

// openBasic opens the basic driver through the driver table, as every
// package but the table reaches a driver.
func openBasic(p driver.Params) (driver.DB, error) {
	info, err := drivers.Lookup("basic")
	if err != nil {
		return nil, err
	}
	return info.Open(context.Background(), p)
}

// memoryDB is the memory driver's database, which counts its records.
type memoryDB interface {
	driver.DB
	Len(table string) int
}

// newMemory opens an empty memory database through the driver table.
func newMemory(t testing.TB) memoryDB {
	t.Helper()
	info, err := drivers.Lookup("memory")
	require.NoError(t, err)
	db, err := info.Open(context.Background(), driver.Params{Props: map[string]string{}, Workers: 4})
	require.NoError(t, err)
	m, ok := db.(memoryDB)
	require.True(t, ok, "the memory driver counts its records")
	return m
}
