package measure_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/measure"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}

// fixedResults builds results with known contents: READ 1..1000µs, each
// started 1..1000 ns late by the harness, UPDATE 2 errors, 10 successes
// and 3 operations aborted by the run's stop, under a target rate.
func fixedResults(t *testing.T) measure.Results {
	r, err := measure.NewRecorder(measure.Options{Series: []string{"READ", "UPDATE", "SCAN"}, Workers: 1, Intended: true})
	require.NoError(t, err)
	h := r.Handle(0)
	for v := int64(1); v <= 1000; v++ {
		var f measure.Flags
		if v > 990 {
			f = measure.Late
		}
		h.Record(0, v*1000, v*2000, f)
		h.Pace(0, v)
	}
	for v := int64(1); v <= 10; v++ {
		h.Record(1, v*100_000, v*100_000, 0)
	}
	h.RecordError(1, "TIMEOUT", 2_000_000_000, 0)
	h.RecordError(1, "NOT_FOUND", 50_000, 0)
	for range 3 {
		h.RecordAborted(1)
	}
	res := measure.NewResults(r.Series(), true)
	r.Collect(res)
	return res
}

func TestWriteYCSBTextGolden(t *testing.T) {
	p := measure.NewPhase(time.Unix(1700000000, 0).UTC(), 2500*time.Millisecond, fixedResults(t))
	require.Equal(t, int64(1012), p.Operations)
	require.Equal(t, int64(2), p.Errors)
	require.Equal(t, int64(3), p.Aborted)
	require.InDelta(t, 404.8, p.Throughput, 1e-9)
	require.InDelta(t, 404, p.OKThroughput, 1e-9)
	require.InDelta(t, 0.8, p.ErrorThroughput, 1e-9)
	require.NotNil(t, p.Pacing)
	require.InDelta(t, 0.5, p.Pacing.P50, 0.01, "pacing lateness in µs")
	var buf bytes.Buffer
	require.NoError(t, measure.WriteYCSBText(&buf, p, true))
	golden(t, "ycsb.golden", buf.Bytes())
}
