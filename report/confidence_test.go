package report

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// TestFarOutside: a repetition is far outside its siblings at 25% from
// the median and twice as far as any other; each side of both gates.
func TestFarOutside(t *testing.T) {
	for _, tc := range []struct {
		name string
		xs   []float64
		want []int
	}{
		{"one slow among steady ones", []float64{21576, 15074, 4082}, []int{2}},
		{"the issue's postgres.a.rep3", []float64{11532, 12285, 4683}, []int{2}},
		{"a wide spread, no single one", []float64{10000, 13000, 17000}, nil},
		{"25% from the median, twice as far: far", []float64{1000, 1000 * 1.251, 1000 / 1.1}, []int{1}},
		{"just under 25%: not", []float64{1000, 1000 * 1.249, 1000 / 1.1}, nil},
		{"25% but only 1.9 times as far as a sibling: not", []float64{1000, 1260, 1000 / 1.13}, nil},
		{"two repetitions: never", []float64{1000, 3000}, nil},
		{"one fast one", []float64{1000, 1020, 1600, 990}, []int{2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, farOutside(tc.xs))
		})
	}
}

// outlierData is one target's three repetitions of workload a, the
// third slow, with the machine's, the load generator's and the
// database's CPU each second of each window.
func outlierData(db3, machine3 float64, flags []results.Flag) *results.Data {
	start := time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)
	d := &results.Data{Manifest: results.Manifest{Targets: []results.TargetInfo{{Name: "pg", Hosts: []string{"pg"}}}}}
	for rep, x := range []float64{12000, 12300, 4600} {
		s := start.Add(time.Duration(rep) * 20 * time.Second)
		tr := results.Trial{ID: fmt.Sprintf("pg.a.rep%d", rep+1), Kind: results.KindRun, Target: "pg", Workload: "a", Repetition: rep + 1,
			Start: s, End: s.Add(6 * time.Second), Duration: 6 * time.Second, Throughput: x, Status: results.StatusCompleted}
		db, machine := 97.0, 150.0
		if rep == 2 {
			db, machine, tr.Flags = db3, machine3, flags
		}
		for sec := 1; sec <= 6; sec++ {
			at := s.Add(time.Duration(sec) * time.Second)
			d.Sys = append(d.Sys, results.Sys{Usage: results.Usage{Time: at, Host: "machine", Role: "machine", CPUPercent: machine}},
				results.Sys{Usage: results.Usage{Time: at, Host: "loader", Role: "loader", CPUPercent: 50}},
				results.Sys{Usage: results.Usage{Time: at, Host: "pg", Role: "database", CPUPercent: db}})
		}
		d.Trials = append(d.Trials, tr)
	}
	return d
}

// TestCauseOf: the slow repetition is named with what the system
// metrics say, each cause on both sides of its 20% gate.
func TestCauseOf(t *testing.T) {
	cause := func(d *results.Data) string {
		s := summarize(d)
		os := outliers(d, s)
		require.Len(t, os, 1)
		require.Equal(t, "pg.a.rep3", os[0].trial.ID)
		return os[0].String()
	}
	// Others took 3% during the siblings (150 - 50 - 97).
	require.Contains(t, cause(outlierData(97, 170.1, nil)), "other processes took 23% of the machine's CPU meanwhile (its siblings: 3%)")
	require.Contains(t, cause(outlierData(97, 169.9, nil)), "no cause found in the system metrics")
	require.Contains(t, cause(outlierData(76.9, 129.9, nil)), "the database used 77% CPU (its siblings: 97%)")
	require.Contains(t, cause(outlierData(77.1, 130.1, nil)), "no cause found")
	flagged := []results.Flag{results.Flagf(results.FlagInterfered, "other processes 40%% took 40%% of core 1, where pg ran")}
	got := cause(outlierData(97, 150, flagged))
	require.Contains(t, got, "pg.a.rep3 at 4,600 ops/s, 0.38x its siblings' median of 12,150: other processes 40% took 40% of core 1")
}
