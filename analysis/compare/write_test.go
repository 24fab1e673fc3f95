package compare

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/NAME.golden, or rewrites it under
// -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./analysis/compare/ -update to create it")
	require.Equal(t, string(want), got)
}

// goldenRuns are two runs with a bit of everything: a speed-up, a p99
// drop under client-bound repetitions, one repetition left, keys in one
// run only and a new database version.
func goldenRuns(t *testing.T) (a, b *results.Data) {
	threads := func(n string, ts []results.Trial) []results.Trial {
		for i := range ts {
			ts[i].Params = []results.Param{{Key: "threads", Value: n}}
		}
		return ts
	}
	ma, mb := manifest(), manifest()
	redis := results.TargetInfo{Name: "redis", Database: "redis", Driver: "redis", Provider: "docker", Version: "7.2.4", Nodes: 1}
	ma.Targets = append(ma.Targets, redis)
	mb.Targets = append(mb.Targets, redis)
	mb.Targets[0].Version = "17.0"

	var ta, tb []results.Trial
	ta = append(ta, reps("pg", "a", []float64{10210, 10090, 10150}, []float64{2210, 2290, 2250})...)
	tb = append(tb, reps("pg", "a", []float64{11920, 12110, 12040}, []float64{2230, 2180, 2270})...)

	pa := threads("8", reps("pg", "b", []float64{8400, 8650, 8200}, []float64{4100, 4180, 4020}))
	pa[1].Flags = []results.Flag{"client-bound: the load generator used 96% CPU of 800% available"}
	pb := threads("8", reps("pg", "b", []float64{8550, 8300, 8480}, []float64{3120, 3050, 3190}))
	for i, p50 := range []float64{806, 835, 812} { // only the tail improved
		pb[i].Latency.P50 = p50
	}
	ta = append(ta, pa...)
	tb = append(tb, pb...)
	ta = append(ta, threads("16", reps("pg", "b", []float64{9100, 9200}, []float64{7000, 7100}))...)

	ta = append(ta, reps("redis", "a", []float64{51200, 50800, 51500}, []float64{380, 395, 372})...)
	rb := reps("redis", "a", []float64{53900, 26000}, []float64{361, 900})
	rb[1].Status = results.StatusInterrupted
	tb = append(tb, rb...)
	tb = append(tb, reps("redis", "c", []float64{48000, 48200}, []float64{410, 404})...)
	return write(t, ma, ta), write(t, mb, tb)
}

func TestWriteGolden(t *testing.T) {
	a, b := goldenRuns(t)
	r, err := Compare(a, b, 0)
	require.NoError(t, err)
	r.A, r.B = "runs/before", "runs/after" // not the temporary directories
	var buf bytes.Buffer
	require.NoError(t, r.Write(&buf))
	golden(t, "report", buf.String())
}

func TestWriteNothingToCompare(t *testing.T) {
	r := &Report{A: "x", B: "y", OnlyInA: []Key{{Target: "pg", Workload: "a"}}}
	var buf bytes.Buffer
	require.NoError(t, r.Write(&buf))
	golden(t, "nothing", buf.String())
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteError(t *testing.T) {
	err := (&Report{}).Write(failingWriter{})
	require.ErrorContains(t, err, "write comparison: disk full")
}
