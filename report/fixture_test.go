package report

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// start is the fixtures' experiment start.
func start() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }

// fixture describes a results directory to write: per target, per
// workload, one throughput per repetition.
type fixture struct {
	status   string
	targets  []results.TargetInfo
	workload []string
	// rates[target][workload] are the repetitions' throughputs.
	rates map[string]map[string][]float64
	// base[target] is the p50 in microseconds; other percentiles scale
	// from it.
	base map[string]float64
	// flags[trial ID] are validity flags; errors[trial ID] error counts.
	flags  map[string][]results.Flag
	errors map[string]int64
	// refs[trial ID] is a reference tool's run after the trial.
	refs map[string]results.Reference
	// noPoints lists trials written without a time series.
	noPoints map[string]bool
	// skip lists trials never run (the run stopped before them).
	skip   map[string]bool
	noLoad bool
}

// fullFixture is two targets x three workloads x two repetitions with
// loads and system metrics, one client-bound trial and one with errors.
func fullFixture() fixture {
	return fixture{
		status: results.StatusCompleted,
		targets: []results.TargetInfo{
			{Name: "postgres", Database: "postgres", Driver: "postgres", Provider: "local", Version: "16.4", Nodes: 1,
				CPUs: 2, MemoryBytes: 8 << 30, Hosts: []string{"pg-1"}, DataBytes: 2 << 30, ServerMemoryBytes: 4 << 30,
				Native: map[string]float64{"pg_buffer_hit_ratio": 0.993, "pg_blocks_hit": 1.25305e+07}, Properties: map[string]string{"postgres.user": "bench"}},
			{Name: "cassandra", Database: "cassandra", Driver: "cql", Provider: "local", Version: "5.0.2", Nodes: 1,
				MemoryBytes: 2 << 30, Hosts: []string{"cass-1"}, DataBytes: 3 << 30},
		},
		workload: []string{"a", "b", "c"},
		rates: map[string]map[string][]float64{
			"postgres":  {"a": {12000, 12600}, "b": {9000, 9400}, "c": {20000, 20200}},
			"cassandra": {"a": {6800, 6900}, "b": {10100, 9900}, "c": {10000, 10100}},
		},
		base: map[string]float64{"postgres": 420, "cassandra": 950},
		flags: map[string][]results.Flag{
			"cassandra.b.2": {"client-bound: the load generator used 190% CPU of 200% available; the database may be faster than measured (use more or bigger load machines)"},
			"postgres.c.1":  {"errors: 12 of 200000 operations failed"},
		},
		errors: map[string]int64{"postgres.c.1": 12},
	}
}

// write builds the results directory with the results package's own
// writer and reads it back, as the CLI would.
func (fx fixture) write(t *testing.T) *results.Data {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "results")
	w, err := results.Create(dir)
	require.NoError(t, err)
	m := &results.Manifest{Tool: "dbarena", Version: "v0.9.0", Commit: "abc1234", Experiment: "pg-vs-cassandra",
		SpecFile: "compare.yaml", Spec: "name: pg-vs-cassandra\nrepetitions: 2\n", Seed: 42, Start: start(), Status: fx.status,
		Loader:  results.Host{Hostname: "loadgen", OS: "linux", Arch: "amd64", CPUs: 2, MemoryBytes: 16 << 30},
		Targets: fx.targets, Warnings: []string{"cassandra: compaction still running after the load"}}
	clock := start()
	index := 0
	for _, target := range fx.targets {
		up := clock
		if !fx.noLoad {
			tr := fx.trial(target.Name, results.KindLoad, "", 1, index, clock, 20, 2*fx.rates[target.Name]["c"][0])
			fx.add(t, w, tr, clock, 20, 0)
			clock, index = clock.Add(21*time.Second), index+1
		}
		for _, wl := range fx.workload {
			for rep, rate := range fx.rates[target.Name][wl] {
				tr := fx.trial(target.Name, results.KindRun, wl, rep+1, index, clock, 12, rate)
				if fx.skip[tr.ID] {
					continue
				}
				fx.add(t, w, tr, clock, 12, 2)
				clock, index = clock.Add(13*time.Second), index+1
			}
		}
		m.CompletedSteps = index
		require.NoError(t, w.AddSys(sysRows(target.Hosts[0], up, clock)))
	}
	m.PlannedSteps = len(fx.targets) * (1 + len(fx.workload)*2)
	if fx.status == results.StatusCompleted {
		end := clock
		m.End = &end
	}
	require.NoError(t, w.WriteManifest(m))
	require.NoError(t, w.Close())
	d, err := results.Read(dir)
	require.NoError(t, err)
	return d
}

// trial makes one trial row; secs is its whole length, warm-up included.
func (fx fixture) trial(target, kind, wl string, rep, index int, start time.Time, secs int, rate float64) results.Trial {
	id := fmt.Sprintf("%s.%s.%d", target, wl, rep)
	if kind == results.KindLoad {
		id = target + ".load.1"
	}
	b := fx.base[target]
	if wl == "c" {
		b /= 2 // reads only: faster
	}
	lat := results.Latency{Mean: 1.3 * b, P50: b, P90: 2 * b, P95: 3 * b, P99: 5 * b, P999: 20 * b, Max: 80 * b}
	measured := secs
	if kind == results.KindRun {
		measured -= 2
	}
	var ops int64 // no throughput recorded: no operations counted
	if !math.IsNaN(rate) {
		ops = int64(rate * float64(measured))
	}
	tr := results.Trial{ID: id, Index: index, Kind: kind, Target: target, Database: target, Driver: target, Workload: wl,
		Repetition: rep, Threads: 16, Start: start.Add(time.Duration(secs-measured) * time.Second),
		End: start.Add(time.Duration(secs) * time.Second), Duration: time.Duration(measured) * time.Second,
		Operations: ops, Errors: fx.errors[id], Throughput: rate, Latency: lat,
		LoaderCPU: 120, LoaderCPUMax: 150, LoaderCPUs: 2, Concurrency: rate * lat.Mean / 1e6,
		Flags: fx.flags[id], Status: results.StatusCompleted, Reference: fx.refs[id]}
	if fx.status == results.StatusInterrupted && fx.noPoints[id] {
		tr.Status = results.StatusInterrupted
	}
	if kind == results.KindLoad {
		tr.Ops = []results.Op{{Name: "INSERT", Operations: ops, Latency: lat}}
	} else {
		tr.Ops = []results.Op{{Name: "READ", Operations: ops / 2, Latency: lat}, {Name: "UPDATE", Operations: ops - ops/2, Errors: tr.Errors, Latency: lat}}
	}
	return tr
}

// add appends a trial and, unless it has none, its time series.
func (fx fixture) add(t *testing.T, w *results.Writer, tr results.Trial, start time.Time, secs, warm int) {
	t.Helper()
	require.NoError(t, w.AddTrial(tr))
	if fx.noPoints[tr.ID] {
		return
	}
	var ps []results.Point
	for i := 1; i <= secs; i++ {
		wiggle := 1 + 0.05*math.Sin(float64(i))
		l := tr.Latency
		l.P99 *= 2 - wiggle
		var ops int64 // a NaN rate counts none
		if !math.IsNaN(tr.Throughput) {
			ops = int64(tr.Throughput * wiggle)
		}
		for _, op := range []string{"READ", results.AllOps} {
			ps = append(ps, results.Point{Trial: tr.ID, Time: start.Add(time.Duration(i) * time.Second),
				Elapsed: time.Duration(i) * time.Second, Length: time.Second, Warmup: i <= warm, Op: op, Ops: ops,
				Rate: tr.Throughput * wiggle, Latency: l})
		}
	}
	require.NoError(t, w.AddPoints(ps))
}

// sysRows are one sample per second of the database host, the loader and
// the machine, with IOPS unmeasurable (NaN).
func sysRows(dbHost string, from, to time.Time) []results.Sys {
	var out []results.Sys
	nan := math.NaN()
	for ts, i := from, 0; ts.Before(to); ts, i = ts.Add(time.Second), i+1 {
		f := float64(i)
		out = append(out,
			results.Sys{Usage: results.Usage{Time: ts, Host: dbHost, Role: "database", CPUPercent: 150 + 20*math.Sin(f/5), MemoryBytes: 1.5e9 + 1e6*f,
				DiskReadBps: 2e6, DiskWriteBps: 8e6 + 1e5*f, DiskReadIOPS: nan, DiskWriteIOPS: nan, NetRxBps: 3e6, NetTxBps: 5e6}},
			results.Sys{Usage: results.Usage{Time: ts, Host: "loadgen", Role: "loader", CPUPercent: 120 + 10*math.Cos(f/3), MemoryBytes: 2e8,
				DiskReadBps: nan, DiskWriteBps: nan, DiskReadIOPS: nan, DiskWriteIOPS: nan, NetRxBps: 5e6, NetTxBps: 3e6}},
			results.Sys{Usage: results.Usage{Time: ts, Host: "machine", Role: "machine", CPUPercent: 290, MemoryBytes: 9e9,
				DiskReadBps: 2.1e6, DiskWriteBps: 8.5e6, DiskReadIOPS: 40, DiskWriteIOPS: 300, NetRxBps: 8e6, NetTxBps: 8e6}})
	}
	return out
}
