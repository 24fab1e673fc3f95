// Package drivertest is the conformance suite every driver runs against a
// real server: schema creation, a YCSB load read back and verified field by
// field, read-your-write, inserts, deletes, not-found handling, scan order
// where the database defines one, many concurrent workers, and a run phase
// through the real runner.
//
// TestConformance, among this package's tests, calls Run for every
// driver the table driver/drivers registers;
// a driver's own tests call it again for other topologies (clusters,
// several hosts). The suite uses a table of its own, so suites of several
// packages can share one server.
package drivertest

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/record"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// Options configure the suite for one driver.
type Options struct {
	// Open opens the driver under test.
	Open driver.Opener
	// Prefix is the driver's property prefix; Props its properties
	// (server address and so on), keys including the prefix.
	Prefix string
	Props  map[string]string
	// Table overrides the suite's table name (default: a fresh name per
	// call, so that concurrent suites do not collide).
	Table string
	// Records loaded (default 1000) and Workers (default 8).
	Records int
	Workers int
	// ScanOrdered says scans return records in ascending key order from the
	// start key; without it only the number of records is checked.
	ScanOrdered bool
	// NoScan says the driver does not implement Scan.
	NoScan bool
	// StrictInsert says inserting an existing key fails with CONFLICT
	// (SQL); other databases overwrite.
	StrictInsert bool
	// LossyTransfers says a transfer may fail part-way under contention,
	// losing at most its amount and never making money: Cassandra's two
	// lightweight transactions, whose second may time out.
	LossyTransfers bool
}

func (o *Options) defaults() {
	if o.Records == 0 {
		o.Records = 1000
	}
	if o.Workers == 0 {
		o.Workers = 8
	}
	if o.Table == "" {
		o.Table = fmt.Sprintf("dbarena_conf_%d", time.Now().UnixNano()%1_000_000_000)
	}
}

// Suite holds the state shared by the suite's steps.
type Suite struct {
	o      Options
	db     driver.DB
	schema driver.Schema
	props  map[string]string
}

// Run runs the whole conformance suite. It fails the test on the first
// broken promise of each step.
func Run(t *testing.T, o Options) {
	o.defaults()
	ctx := context.Background()
	s := &Suite{o: o, props: suiteProps(o)}
	db, err := o.Open(ctx, driver.Params{Props: s.props, Workers: o.Workers})
	require.NoError(t, err, "open driver")
	s.db = db
	t.Cleanup(func() { _ = db.Close() })

	wcfg := s.workloadConfig(t, nil)
	wl, err := workload.New(wcfg)
	require.NoError(t, err)
	s.schema = driver.Schema{Table: o.Table, Fields: wl.FieldNames(), FieldLength: int(wcfg.FieldLength)}

	t.Run("Schema", s.testSchema)
	t.Run("LoadAndVerify", s.testLoadAndVerify)
	t.Run("ReadFields", s.testReadFields)
	t.Run("ReadYourWrite", s.testReadYourWrite)
	t.Run("InsertDeleteNotFound", s.testInsertDelete)
	if !o.NoScan {
		t.Run("Scan", s.testScan)
	}
	t.Run("ConcurrentWorkers", s.testConcurrent)
	t.Run("RunPhase", s.testRunPhase)
	t.Run("Ledger", s.testLedger)
	if sm, ok := db.(driver.SchemaManager); ok {
		t.Cleanup(func() { _ = sm.DropSchema(context.Background(), s.schema) })
	}
}

func suiteProps(o Options) map[string]string {
	p := maps.Clone(o.Props)
	if p == nil {
		p = map[string]string{}
	}
	p[core.Table] = o.Table
	p[core.FieldCount] = "10"
	p[core.FieldLength] = "100"
	return p
}

// workloadConfig returns the suite's YCSB configuration with extra
// properties applied.
func (s *Suite) workloadConfig(t *testing.T, extra map[string]string) workload.Config {
	t.Helper()
	base := map[string]string{
		core.RecordCount: strconv.Itoa(s.o.Records), core.OperationCount: "2000",
		core.DataIntegrity: "true", core.ReadProportion: "0.5", core.UpdateProportion: "0.5",
		core.ScanProportion: "0", core.InsertProportion: "0", core.RequestDistribution: "zipfian",
	}
	maps.Copy(base, s.props)
	maps.Copy(base, extra)
	return parseConfig(t, s.o.Prefix, base)
}

func (s *Suite) session(t *testing.T, worker int) driver.Session {
	t.Helper()
	sess, err := s.db.Session(context.Background(), worker)
	require.NoError(t, err)
	t.Cleanup(func() { _ = sess.Close() })
	return sess
}

func (s *Suite) testSchema(t *testing.T) {
	sm, ok := s.db.(driver.SchemaManager)
	if !ok {
		t.Log("driver has no schema to manage")
		return
	}
	ctx := context.Background()
	require.NoError(t, sm.DropSchema(ctx, s.schema), "drop (missing table is not an error)")
	require.NoError(t, sm.DropSchema(ctx, s.schema), "drop twice")
	require.NoError(t, sm.CreateSchema(ctx, s.schema), "create")
	require.NoError(t, sm.CreateSchema(ctx, s.schema), "create again (if missing)")
	require.NoError(t, sm.CheckSchema(ctx, s.schema), "check after create")
	missing := s.schema
	missing.Table = s.o.Table + "_missing"
	err := sm.CheckSchema(ctx, missing)
	require.Error(t, err, "check of a missing table")
	require.Contains(t, err.Error(), missing.Table, "the error names the missing table")
}

// run executes one runner phase and returns its result.
func (s *Suite) run(t *testing.T, phase runner.Phase, extra map[string]string, batch int) *runner.Result {
	t.Helper()
	wcfg := s.workloadConfig(t, extra)
	wl, err := workload.New(wcfg)
	require.NoError(t, err)
	cfg := runner.Config{Phase: phase, Threads: s.o.Workers, Seed: 42, BatchSize: batch,
		InsertRetryLimit: 0, InsertRetryInterval: time.Millisecond}
	if phase == runner.Transactions {
		cfg.OperationCount = wcfg.OperationCount
	}
	res, err := runner.Run(context.Background(), cfg, wl, s.db)
	require.NoError(t, err)
	return res
}

func series(res *runner.Result, name string) *measure.SeriesResult {
	for i := range res.MeasuredResults {
		if res.MeasuredResults[i].Name == name {
			return &res.MeasuredResults[i]
		}
	}
	return nil
}

func (s *Suite) testLoadAndVerify(t *testing.T) {
	half := s.o.Records / 2
	// The first half one record per call, the second half in batches, so
	// that both insert paths write what the verify pass expects.
	res := s.run(t, runner.Load, map[string]string{core.InsertStart: "0", core.InsertCount: strconv.Itoa(half)}, 1)
	RequireNoErrors(t, res)
	require.EqualValues(t, half, series(res, "INSERT").OK())
	res = s.run(t, runner.Load, map[string]string{core.InsertStart: strconv.Itoa(half), core.InsertCount: strconv.Itoa(s.o.Records - half)}, 50)
	RequireNoErrors(t, res)
	require.EqualValues(t, s.o.Records-half, series(res, "INSERT").OK())

	res = s.run(t, runner.Verify, nil, 0)
	RequireNoErrors(t, res)
	require.EqualValues(t, s.o.Records, series(res, "READ").OK(), "every loaded key reads back")
	require.EqualValues(t, s.o.Records, series(res, "VERIFY").OK(), "every record holds the values written")

	if !s.o.StrictInsert {
		return
	}
	sess := s.session(t, 0)
	cfg := s.workloadConfig(t, nil)
	key := workload.KeyName(0, cfg.InsertOrder == workload.InsertHashed, cfg.ZeroPadding)
	err := sess.Insert(context.Background(), s.o.Table, key, mkRecord(s.schema.Fields, "dup"))
	require.Equal(t, driver.ClassConflict, driver.Classify(err), "inserting an existing key: %v", err)
}

// mkRecord returns a record with every field set to prefix-fieldname.
func mkRecord(fields []string, prefix string) record.Record {
	var r record.Record
	for _, f := range fields {
		r = append(r, record.Field{Name: f, Value: []byte(prefix + "-" + f)})
	}
	return r
}

func (s *Suite) testReadFields(t *testing.T) {
	ctx := context.Background()
	sess := s.session(t, 0)
	key := "dbarena-fields"
	require.NoError(t, sess.Insert(ctx, s.o.Table, key, mkRecord(s.schema.Fields, "v")))
	want := []string{s.schema.Fields[1], s.schema.Fields[3]}
	got, err := sess.Read(ctx, s.o.Table, key, want, nil)
	require.NoError(t, err)
	require.Len(t, got, 2, "only the requested fields: %v", got)
	for _, f := range want {
		v, ok := got.Get(f)
		require.True(t, ok, "field %s returned", f)
		require.Equal(t, "v-"+f, string(v))
	}
	all, err := sess.Read(ctx, s.o.Table, key, nil, got)
	require.NoError(t, err)
	require.True(t, record.Equal(mkRecord(s.schema.Fields, "v"), all), "all fields: %v", all)
}

func (s *Suite) testReadYourWrite(t *testing.T) {
	ctx := context.Background()
	sess := s.session(t, 0)
	key := "dbarena-ryw"
	require.NoError(t, sess.Insert(ctx, s.o.Table, key, mkRecord(s.schema.Fields, "old")))
	f2 := s.schema.Fields[2]
	require.NoError(t, sess.Update(ctx, s.o.Table, key, record.Record{{Name: f2, Value: []byte("new")}}))
	got, err := sess.Read(ctx, s.o.Table, key, nil, nil)
	require.NoError(t, err)
	want := mkRecord(s.schema.Fields, "old")
	want[2].Value = []byte("new")
	require.True(t, record.Equal(want, got), "update changes one field and keeps the others: %v", got)
}

func (s *Suite) testInsertDelete(t *testing.T) {
	ctx := context.Background()
	sess := s.session(t, 0)
	_, err := sess.Read(ctx, s.o.Table, "dbarena-never-written", nil, nil)
	require.ErrorIs(t, err, driver.ErrNotFound, "read of a missing key")
	key := "dbarena-ins"
	require.NoError(t, sess.Insert(ctx, s.o.Table, key, mkRecord(s.schema.Fields, "i")))
	got, err := sess.Read(ctx, s.o.Table, key, nil, nil)
	require.NoError(t, err)
	require.True(t, record.Equal(mkRecord(s.schema.Fields, "i"), got))
	require.NoError(t, sess.Delete(ctx, s.o.Table, key))
	_, err = sess.Read(ctx, s.o.Table, key, nil, nil)
	require.ErrorIs(t, err, driver.ErrNotFound, "read after delete")
}

func (s *Suite) testScan(t *testing.T) {
	ctx := context.Background()
	sess := s.session(t, 0)
	// Keys that sort before YCSB's "user..." keys, each storing its own key
	// in the first field so that order can be checked.
	f0 := s.schema.Fields[0]
	for i := 0; i < 20; i++ {
		key := fmt.Sprintf("aaa-scan%02d", i)
		rec := mkRecord(s.schema.Fields, "s")
		rec[0].Value = []byte(key)
		require.NoError(t, sess.Insert(ctx, s.o.Table, key, rec))
	}
	got, err := sess.Scan(ctx, s.o.Table, "aaa-scan05", 5, nil, nil)
	require.NoError(t, err)
	require.Len(t, got, 5)
	for i, r := range got {
		require.Len(t, r, len(s.schema.Fields), "scan returns all fields")
		if s.o.ScanOrdered {
			v, _ := r.Get(f0)
			require.Equal(t, fmt.Sprintf("aaa-scan%02d", 5+i), string(v), "record %d of the scan", i)
		}
	}
	got, err = sess.Scan(ctx, s.o.Table, "aaa-scan00", 3, []string{f0}, got)
	require.NoError(t, err)
	require.Len(t, got, 3)
	for _, r := range got {
		require.Len(t, r, 1, "only the requested field: %v", r)
	}
}

func (s *Suite) testConcurrent(t *testing.T) {
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, s.o.Workers)
	for w := 0; w < s.o.Workers; w++ {
		sess := s.session(t, w)
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			errs <- s.worker(ctx, sess, w)
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// worker runs insert, read, update, read and delete cycles on keys of its
// own and checks every answer.
func (s *Suite) worker(ctx context.Context, sess driver.Session, w int) error {
	tbl, fields := s.o.Table, s.schema.Fields
	var buf record.Record
	for i := 0; i < 25; i++ {
		key := fmt.Sprintf("dbarena-w%02d-%03d", w, i)
		if err := sess.Insert(ctx, tbl, key, mkRecord(fields, key)); err != nil {
			return fmt.Errorf("worker %d insert %s: %w", w, key, err)
		}
		upd := record.Record{{Name: fields[i%len(fields)], Value: []byte("u" + key)}}
		if err := sess.Update(ctx, tbl, key, upd); err != nil {
			return fmt.Errorf("worker %d update %s: %w", w, key, err)
		}
		var err error
		if buf, err = sess.Read(ctx, tbl, key, nil, buf); err != nil {
			return fmt.Errorf("worker %d read %s: %w", w, key, err)
		}
		want := mkRecord(fields, key)
		want[i%len(fields)].Value = []byte("u" + key)
		if !record.Equal(want, buf) {
			return fmt.Errorf("worker %d read %s: got %v, want %v", w, key, buf, want)
		}
		if i%2 == 0 {
			if err := sess.Delete(ctx, tbl, key); err != nil {
				return fmt.Errorf("worker %d delete %s: %w", w, key, err)
			}
		}
	}
	return nil
}

func (s *Suite) testRunPhase(t *testing.T) {
	res := s.run(t, runner.Transactions, nil, 0)
	RequireNoErrors(t, res)
	require.EqualValues(t, 2000, res.MeasuredResults.TotalCounted())
	require.Positive(t, series(res, "VERIFY").OK(), "reads are verified")
	// After the updates every record still reads back with the values
	// dataintegrity defines.
	res = s.run(t, runner.Verify, nil, 0)
	RequireNoErrors(t, res)
	require.EqualValues(t, s.o.Records, series(res, "VERIFY").OK())
}

// Workload builds a YCSB workload from properties given as a map, the way
// a -P file would give them; prefix is the driver's property prefix. Driver
// benchmarks use it to describe their workload in one literal.
func Workload(tb testing.TB, prefix string, props map[string]string) *workload.Workload {
	tb.Helper()
	wl, err := workload.New(parseConfig(tb, prefix, props))
	require.NoError(tb, err)
	return wl
}

// parseConfig turns a property map into a workload configuration.
func parseConfig(tb testing.TB, prefix string, props map[string]string) workload.Config {
	tb.Helper()
	ps := properties.New()
	for k, v := range props {
		ps.Set(k, v, properties.Source{File: "drivertest"})
	}
	cfg, _, err := workload.ParseConfig(ps, []string{prefix})
	require.NoError(tb, err)
	return cfg
}
