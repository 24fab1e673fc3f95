package workload_test

import (
	"crypto/sha256"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/workload"
)

func newWorkload(t testing.TB, kv ...string) *workload.Workload {
	t.Helper()
	p := properties.New()
	for i := 0; i < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], properties.Source{File: "test"})
	}
	c, _, err := workload.ParseConfig(p, nil)
	require.NoError(t, err)
	wl, err := workload.New(c)
	require.NoError(t, err)
	return wl
}

// TestKeyNames checks YCSB's key naming. The hashed numbers are FNV-1a of
// the record number's little-endian bytes (see the generator tests); record
// 0 is YCSB's well-known first key user6284781860667377211.
func TestKeyNames(t *testing.T) {
	for _, c := range []struct {
		keynum  int64
		hashed  bool
		padding int
		want    string
	}{
		{0, true, 1, "user6284781860667377211"},
		{1, true, 1, "user8517097267634966620"},
		{5, false, 1, "user5"},
		{5, false, 4, "user0005"},
		{12345, false, 3, "user12345"},
		{0, true, 20, "user06284781860667377211"},
	} {
		require.Equal(t, c.want, workload.KeyName(c.keynum, c.hashed, c.padding))
	}
}

// TestDeterministicInitialData fingerprints the records the load phase
// generates for a seed, so an accidental change to key or value
// generation fails here.
func TestDeterministicInitialData(t *testing.T) {
	for _, c := range []struct {
		name  string
		props []string
		want  string
	}{
		{"random values", []string{"recordcount", "100"}, fingerprintRandom},
		{"dataintegrity", []string{"recordcount", "100", "dataintegrity", "true", "fieldlength", "40"}, fingerprintIntegrity},
	} {
		t.Run(c.name, func(t *testing.T) {
			wk, err := newWorkload(t, c.props...).NewWorker(0, 1)
			require.NoError(t, err)
			h := sha256.New()
			n := 0
			for op := wk.NextInsert(); op != nil; op = wk.NextInsert() {
				fmt.Fprintf(h, "%s|", op.Key)
				for _, f := range op.Values {
					fmt.Fprintf(h, "%s=%s|", f.Name, f.Value)
				}
				n++
			}
			require.Equal(t, 100, n)
			require.Equal(t, c.want, fmt.Sprintf("%x", h.Sum(nil))[:16])
		})
	}
}

const (
	fingerprintRandom    = "6f3f550807d8acf0"
	fingerprintIntegrity = "51ad59c63f250d44"
)

// TestDataIntegrityValues checks YCSB's deterministic value: key, ':',
// field, then ':' and the Java hashCode of everything so far, repeated and
// cut to the field length.
func TestDataIntegrityValues(t *testing.T) {
	wk, err := newWorkload(t, "recordcount", "1", "dataintegrity", "true", "fieldlength", "60", "fieldcount", "1").NewWorker(0, 1)
	require.NoError(t, err)
	op := wk.NextInsert()
	v := string(op.Values[0].Value)
	require.Len(t, v, 60)
	prefix := op.Key + ":field0"
	require.True(t, strings.HasPrefix(v, prefix+":"))
	h := int32(0)
	for _, c := range []byte(prefix) {
		h = 31*h + int32(c)
	}
	require.True(t, strings.HasPrefix(v, fmt.Sprintf("%s:%d", prefix, h)), v)
	checked, ok := wk.Verify(op.Key, op.Values)
	require.Equal(t, 1, checked)
	require.True(t, ok)
	op.Values[0].Value[5] ^= 1
	_, ok = wk.Verify(op.Key, op.Values)
	require.False(t, ok)
}

func TestOperationMix(t *testing.T) {
	wl := newWorkload(t, "recordcount", "1000", "operationcount", "100000", "readproportion", "0.3", "updateproportion", "0.2",
		"insertproportion", "0.1", "scanproportion", "0.2", "readmodifywriteproportion", "0.1", "deleteproportion", "0.1",
		"readallfields", "false", "requestdistribution", "zipfian")
	wk, err := wl.NewWorker(0, 3)
	require.NoError(t, err)
	const n = 100000
	counts := map[workload.OpKind]int{}
	for i := 0; i < n; i++ {
		op := wk.NextTransaction()
		counts[op.Kind]++
		switch op.Kind {
		case workload.Read:
			require.Len(t, op.Fields, 1, "readallfields=false reads one field")
		case workload.Update:
			require.Len(t, op.Values, 1, "writeallfields=false writes one field")
			require.Len(t, op.Values[0].Value, 100)
		case workload.Insert:
			require.Len(t, op.Values, 10)
			require.GreaterOrEqual(t, op.KeyNum, int64(1000), "run-phase inserts continue after the loaded records")
		case workload.Scan:
			require.True(t, op.ScanCount >= 1 && op.ScanCount <= 1000)
		}
		if op.Kind != workload.Insert {
			require.Less(t, op.KeyNum, int64(1000)+int64(counts[workload.Insert]))
			require.True(t, strings.HasPrefix(op.Key, "user"))
		}
		wk.Done(op)
	}
	for kind, want := range map[workload.OpKind]float64{workload.Read: 0.3, workload.Update: 0.2, workload.Insert: 0.1,
		workload.Scan: 0.2, workload.ReadModifyWrite: 0.1, workload.Delete: 0.1} {
		got := float64(counts[kind]) / n
		require.InDelta(t, want, got, 5*math.Sqrt(want*(1-want)/n), kind.String())
	}
	require.Equal(t, int64(1000+counts[workload.Insert]-1), wl.LastInsertedKeyNum())
}

func TestLatestFollowsInserts(t *testing.T) {
	wl := newWorkload(t, "recordcount", "1000", "operationcount", "1000", "readproportion", "0.5", "updateproportion", "0",
		"insertproportion", "0.5", "requestdistribution", "latest")
	wk, err := wl.NewWorker(0, 1)
	require.NoError(t, err)
	var reads, nearLast int
	for i := 0; i < 20000; i++ {
		op := wk.NextTransaction()
		if op.Kind == workload.Read {
			reads++
			last := wl.LastInsertedKeyNum()
			require.LessOrEqual(t, op.KeyNum, last)
			if last-op.KeyNum < 10 {
				nearLast++
			}
		}
		wk.Done(op)
	}
	// A uniform choice would put 0.2% of reads there.
	require.Greater(t, float64(nearLast)/float64(reads), 0.1, "reads favour the newest records")
}

func BenchmarkNextTransaction(b *testing.B) {
	for _, dist := range []string{"uniform", "zipfian", "latest"} {
		b.Run("dist="+dist, func(b *testing.B) {
			wl := newWorkload(b, "recordcount", "1000000", "readproportion", "0.5", "updateproportion", "0.5", "requestdistribution", dist)
			wk, _ := wl.NewWorker(0, 1)
			b.ReportAllocs()
			for b.Loop() {
				wk.Done(wk.NextTransaction())
			}
		})
	}
}
