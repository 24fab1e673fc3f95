package memory_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/memory"
	"github.com/dbarena/dbarena/record"
)

func rec(kv ...string) record.Record {
	var r record.Record
	for i := 0; i < len(kv); i += 2 {
		r = append(r, record.Field{Name: kv[i], Value: []byte(kv[i+1])})
	}
	return r
}

func TestSemantics(t *testing.T) {
	ctx := context.Background()
	db := memory.New()
	s, err := db.Session(ctx, 0)
	require.NoError(t, err)

	_, err = s.Read(ctx, "t", "k1", nil, nil)
	require.ErrorIs(t, err, driver.ErrNotFound)
	require.ErrorIs(t, s.Update(ctx, "t", "k1", rec("f0", "x")), driver.ErrNotFound)
	require.ErrorIs(t, s.Delete(ctx, "t", "k1"), driver.ErrNotFound)

	require.NoError(t, s.Insert(ctx, "t", "k1", rec("f0", "a", "f1", "b")))
	err = s.Insert(ctx, "t", "k1", rec("f0", "a"))
	require.Equal(t, driver.ClassConflict, driver.Classify(err), "duplicate insert must conflict")

	got, err := s.Read(ctx, "t", "k1", nil, nil)
	require.NoError(t, err)
	require.True(t, record.Equal(rec("f0", "a", "f1", "b"), got))

	got, err = s.Read(ctx, "t", "k1", []string{"f1", "missing"}, got)
	require.NoError(t, err)
	require.True(t, record.Equal(rec("f1", "b"), got))

	require.NoError(t, s.Update(ctx, "t", "k1", rec("f1", "B", "f2", "c")))
	got, err = s.Read(ctx, "t", "k1", nil, got)
	require.NoError(t, err)
	require.True(t, record.Equal(rec("f0", "a", "f1", "B", "f2", "c"), got))

	require.NoError(t, s.Delete(ctx, "t", "k1"))
	_, err = s.Read(ctx, "t", "k1", nil, nil)
	require.ErrorIs(t, err, driver.ErrNotFound)
	require.Equal(t, 0, db.Len("t"))
}

func TestValuesAreCopied(t *testing.T) {
	ctx := context.Background()
	s, _ := memory.New().Session(ctx, 0)
	key := []byte("k1")
	val := rec("f0", "before")
	require.NoError(t, s.Insert(ctx, "t", string(key), val))
	val[0].Value[0] = 'X' // the caller reuses its buffers
	got, err := s.Read(ctx, "t", "k1", nil, nil)
	require.NoError(t, err)
	require.Equal(t, "before", string(got[0].Value))
}

func TestScanInKeyOrder(t *testing.T) {
	ctx := context.Background()
	s, _ := memory.New().Session(ctx, 0)
	for _, i := range []int{5, 1, 9, 3, 7} {
		require.NoError(t, s.Insert(ctx, "t", fmt.Sprintf("user%d", i), rec("f0", fmt.Sprint(i))))
	}
	got, err := s.Scan(ctx, "t", "user3", 3, nil, nil)
	require.NoError(t, err)
	require.Len(t, got, 3)
	for i, want := range []string{"3", "5", "7"} {
		require.Equal(t, want, string(got[i][0].Value))
	}
	got, err = s.Scan(ctx, "t", "user8", 10, nil, got)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "9", string(got[0][0].Value))
}

func TestBatchInsertAllOrNothing(t *testing.T) {
	ctx := context.Background()
	db := memory.New()
	s, _ := db.Session(ctx, 0)
	bi := s.(driver.BatchInserter)
	require.NoError(t, bi.InsertBatch(ctx, "t", []string{"a", "b"}, []record.Record{rec("f", "1"), rec("f", "2")}))
	err := bi.InsertBatch(ctx, "t", []string{"c", "a"}, []record.Record{rec("f", "3"), rec("f", "4")})
	require.Equal(t, driver.ClassConflict, driver.Classify(err))
	require.Equal(t, 2, db.Len("t"), "a failed batch inserts nothing")
}

func TestConcurrentSessions(t *testing.T) {
	ctx := context.Background()
	db := memory.New()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s, _ := db.Session(ctx, w)
			for i := 0; i < 500; i++ {
				k := fmt.Sprintf("w%d-%d", w, i)
				if err := s.Insert(ctx, "t", k, rec("f", k)); err != nil {
					t.Error(err)
					return
				}
				got, err := s.Read(ctx, "t", k, nil, nil)
				if err != nil || string(got[0].Value) != k {
					t.Errorf("read back %s: %v %v", k, got, err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	require.Equal(t, 8*500, db.Len("t"))
}

func BenchmarkRead(b *testing.B) {
	ctx := context.Background()
	s, _ := memory.New().Session(ctx, 0)
	for i := 0; i < 1000; i++ {
		_ = s.Insert(ctx, "t", fmt.Sprintf("user%d", i), rec("f0", "0123456789"))
	}
	var dst record.Record
	b.ReportAllocs()
	for b.Loop() {
		dst, _ = s.Read(ctx, "t", "user500", nil, dst)
	}
}

// TestOpenRefusesWhatWouldNotFit: recordcount=2^63-1 with --preload
// loaded until the process ran out of memory.
func TestOpenRefusesWhatWouldNotFit(t *testing.T) {
	for name, c := range map[string]struct {
		props map[string]string
		want  string
	}{
		"defaults":          {props: map[string]string{}},
		"a million records": {props: map[string]string{"recordcount": "1000000"}},
		"2^63-1 records": {props: map[string]string{"recordcount": "9223372036854775807"},
			want: "recordcount 9223372036854775807 at about 1775 bytes a record needs 1.64e+22 bytes: more than memory.maxbytes=8589934592; lower recordcount or raise memory.maxbytes"},
		// Each record holds its own field names: 100,000 records with a
		// 900-byte prefix took 1.04 GB where 100 MB was allowed.
		"long field names": {props: map[string]string{"recordcount": "100000", "fieldnameprefix": strings.Repeat("f", 900), "memory.maxbytes": "100000000"},
			want: "recordcount 100000 at about 12005 bytes a record needs 1.2e+09 bytes: more than memory.maxbytes=100000000"},
		"long names that fit": {props: map[string]string{"recordcount": "8000", "fieldnameprefix": strings.Repeat("f", 900), "memory.maxbytes": "100000000"}},
		"long keys":           {props: map[string]string{"recordcount": "100000", "zeropadding": "1000", "memory.maxbytes": "100000000"}, want: "at about 2896 bytes a record"},
		"big records":         {props: map[string]string{"recordcount": "1000", "fieldcount": "16", "fieldlength": "1048576"}, want: "more than memory.maxbytes"},
		"raised limit":        {props: map[string]string{"recordcount": "1000", "fieldcount": "16", "fieldlength": "1048576", "memory.maxbytes": "20000000000"}},
		"bad maxbytes":        {props: map[string]string{"memory.maxbytes": "lots"}, want: `memory.maxbytes="lots": want an integer >= 1`},
		"lowered limit":       {props: map[string]string{"recordcount": "10", "memory.maxbytes": "1000"}, want: "more than memory.maxbytes=1000"},
	} {
		t.Run(name, func(t *testing.T) {
			db, err := memory.Open(context.Background(), driver.Params{Props: c.props})
			if c.want == "" {
				require.NoError(t, err)
				require.NoError(t, db.Close())
				return
			}
			require.ErrorContains(t, err, c.want)
		})
	}
}

// TestRecordEstimateHoldsWithLongNames stores records with long field
// names and checks that the live heap they take stays within the
// estimate memory.maxbytes is checked against: the estimate counted only
// values before, and a 900-byte prefix took ten times the limit.
func TestRecordEstimateHoldsWithLongNames(t *testing.T) {
	const records, fields, prefixLen, fieldLength = 5000, 10, 900, 100
	prefix := strings.Repeat("f", prefixLen)
	props := map[string]string{"recordcount": fmt.Sprint(records), "fieldcount": fmt.Sprint(fields),
		"fieldnameprefix": prefix, "fieldlength": fmt.Sprint(fieldLength)}
	// The driver's estimate, as its refusal states it.
	props["memory.maxbytes"] = "1"
	_, err := memory.Open(context.Background(), driver.Params{Props: props})
	var per int64
	_, scanErr := fmt.Sscanf(err.Error(), "recordcount 5000 at about %d bytes a record", &per)
	require.NoError(t, scanErr, "error: %v", err)
	props["memory.maxbytes"] = fmt.Sprint(records * per)
	db, err := memory.Open(context.Background(), driver.Params{Props: props})
	require.NoError(t, err, "the estimate is the limit")

	ctx := context.Background()
	s, err := db.Session(ctx, 0)
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	value := make([]byte, fieldLength)
	for i := range records {
		var r record.Record
		for f := range fields {
			r = r.Append(prefix+fmt.Sprint(f), value)
		}
		require.NoError(t, s.Insert(ctx, "t", fmt.Sprintf("user%019d", i), r))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d records with %d-byte field names: %d bytes live, %d estimated", records, prefixLen, live, records*per)
	require.LessOrEqual(t, live, records*per, "the estimate does not undercount")
	require.GreaterOrEqual(t, live, records*per/2, "nor overcount by more than twice")
	runtime.KeepAlive(db)
}
