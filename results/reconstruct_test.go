package results

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/procid"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/measure/hlog"
)

// killedRun is what a run killed during its trial "pg.a.threads=4" left:
// the load's row, the trial's timeseries rows and hlog intervals (a
// warm-up, three measured ones, and a fourth that reached the log but not
// timeseries.csv), and the manifest still "running".
type killedRun struct {
	dir     string
	base    time.Time
	read    []*hdrhistogram.Histogram // per measured interval
	update  []*hdrhistogram.Histogram
	readOps []int64 // per measured interval, errors included
	errors  int64
}

const killedTrial = "pg.a.threads=4"

func writeKilledRun(t *testing.T, withPlan bool) *killedRun {
	t.Helper()
	k := &killedRun{dir: t.TempDir(), base: time.Date(2026, 11, 25, 13, 0, 0, 0, time.UTC)}
	w, err := Create(k.dir)
	require.NoError(t, err)
	self, err := procid.Self()
	require.NoError(t, err)
	host, err := os.Hostname()
	require.NoError(t, err)
	// This process's PID with another start time: the writer is gone.
	m := &Manifest{Experiment: "killed", Status: StatusRunning, PID: self.PID, PIDStart: self.Start + 1,
		BootID: self.Boot, Start: k.base.Add(-10 * time.Second), Loader: Host{Hostname: host, CPUs: 2},
		PlannedSteps: 3, CompletedSteps: 1,
		Targets: []TargetInfo{{Name: "pg", Database: "postgres", Driver: "postgres", Provider: "local"}}}
	if withPlan {
		m.Steps = []Step{
			{ID: "pg.load.1", Kind: KindLoad, Target: "pg", Workload: "a", Repetition: 1, Threads: 4},
			{ID: killedTrial, Kind: KindRun, Target: "pg", Workload: "a", Params: []Param{{"threads", "4"}}, Repetition: 1, Threads: 4},
			{ID: "pg.a.threads=8", Kind: KindRun, Target: "pg", Workload: "a", Params: []Param{{"threads", "8"}}, Repetition: 1, Threads: 8},
		}
	}
	require.NoError(t, w.WriteManifest(m))
	load := Trial{ID: "pg.load.1", Kind: KindLoad, Target: "pg", Database: "postgres", Driver: "postgres", Workload: "a",
		Operations: 1000, Throughput: 500, Duration: 2 * time.Second, Status: StatusCompleted}
	require.NoError(t, w.AddTrial(load))
	require.NoError(t, w.AddPoints([]Point{{Trial: load.ID, Time: k.base.Add(-time.Second), Elapsed: 2 * time.Second, Op: AllOps, Ops: 1000, Rate: 500}}))

	f, err := os.Create(w.HdrPath(killedTrial))
	require.NoError(t, err)
	hl, err := hlog.NewWriter(f, k.base, "dbarena trial "+killedTrial+"; values in nanoseconds")
	require.NoError(t, err)
	var sys []Sys
	for i := 0; i < 5; i++ { // 0: warm-up; 1-3 measured; 4: in the log only
		start, end := k.base.Add(time.Duration(i)*time.Second), k.base.Add(time.Duration(i+1)*time.Second)
		read, update := measure.NewHistogram(), measure.NewHistogram()
		for v := int64(1); v <= 100; v++ {
			require.NoError(t, read.RecordValue(v*int64(i+1)*1000))
			if v%4 == 0 {
				require.NoError(t, update.RecordValue(v*int64(i+1)*7000))
			}
		}
		warm := i == 0
		require.NoError(t, hl.WriteInterval(hlog.Tag{Warmup: warm, Op: "READ"}.String(), start, end, read))
		require.NoError(t, hl.WriteInterval(hlog.Tag{Warmup: warm, Op: "UPDATE"}.String(), start, end, update))
		if i == 4 {
			break
		}
		readErrs := int64(0)
		if i == 2 {
			readErrs = 3
		}
		all := measure.NewHistogram()
		all.Merge(read)
		all.Merge(update)
		readOps := read.TotalCount() + readErrs
		lat := func(h *hdrhistogram.Histogram) Latency { return latencyOf(h) }
		pts := []Point{
			{Trial: killedTrial, Time: end, Elapsed: end.Sub(k.base), Warmup: i == 0, Op: "READ", Ops: readOps, Rate: float64(readOps), Errors: readErrs, Latency: lat(read)},
			{Trial: killedTrial, Time: end, Elapsed: end.Sub(k.base), Warmup: i == 0, Op: "UPDATE", Ops: update.TotalCount(), Rate: float64(update.TotalCount()), Latency: lat(update)},
			{Trial: killedTrial, Time: end, Elapsed: end.Sub(k.base), Warmup: i == 0, Op: AllOps, Ops: readOps + update.TotalCount(), Rate: float64(readOps + update.TotalCount()), Errors: readErrs, Latency: lat(all)},
		}
		require.NoError(t, w.AddPoints(pts))
		sys = append(sys, Sys{Trial: killedTrial, Usage: Usage{Time: end, Host: "loader", Role: "loader", CPUPercent: float64(10 * (i + 1))}})
		if i > 0 {
			k.read, k.update = append(k.read, read), append(k.update, update)
			k.readOps = append(k.readOps, readOps)
			k.errors += readErrs
		}
	}
	sys = append(sys, Sys{Trial: killedTrial, Usage: Usage{Time: k.base, Host: "loader", Role: "loader", CPUPercent: 99}}) // in the warm-up
	require.NoError(t, w.AddSys(sys))
	require.NoError(t, f.Close())
	require.NoError(t, w.Close())
	return k
}

// merged adds up histograms as the run would have at the trial's end.
func merged(hs ...[]*hdrhistogram.Histogram) *hdrhistogram.Histogram {
	out := measure.NewHistogram()
	for _, h := range hs {
		for _, x := range h {
			out.Merge(x)
		}
	}
	return out
}

func rebuiltRow(t *testing.T, d *Data) *Trial {
	t.Helper()
	require.Len(t, d.Trials, 2, "the load's row, and the killed trial's rebuilt")
	require.Equal(t, "pg.load.1", d.Trials[0].ID)
	require.False(t, d.Trials[0].Reconstructed)
	return &d.Trials[1]
}

func TestReconstructFromIntervals(t *testing.T) {
	k := writeKilledRun(t, true)
	d, err := Read(k.dir)
	require.NoError(t, err)
	require.Equal(t, StatusInterrupted, d.Manifest.Status)
	row := rebuiltRow(t, d)

	require.True(t, row.Reconstructed)
	require.Equal(t, killedTrial, row.ID)
	require.Equal(t, 1, row.Index)
	require.Equal(t, KindRun, row.Kind)
	require.Equal(t, StatusInterrupted, row.Status)
	require.Equal(t, []Param{{"threads", "4"}}, row.Params)
	require.Equal(t, "postgres", row.Database)
	require.Equal(t, "postgres", row.Driver)
	require.Equal(t, 4, row.Threads)
	// Three measured intervals: the warm-up and the interval that never
	// reached timeseries.csv are left out.
	require.Equal(t, k.base.Add(time.Second), row.Start)
	require.Equal(t, k.base.Add(4*time.Second), row.End)
	require.Equal(t, 3*time.Second, row.Duration)
	update := merged(k.update)
	wantOps := k.readOps[0] + k.readOps[1] + k.readOps[2] + update.TotalCount()
	require.Equal(t, wantOps, row.Operations)
	require.Equal(t, k.errors, row.Errors)
	require.InDelta(t, float64(wantOps-k.errors)/3, row.Throughput, 1e-9, "successful operations per second")
	require.InDelta(t, float64(k.errors)/3, row.ErrorRate, 1e-9)
	// Latency is exact: the intervals' histograms merged.
	require.Equal(t, latencyOf(merged(k.read, k.update)), row.Latency)
	require.Len(t, row.Ops, 2)
	require.Equal(t, Op{Name: "READ", Operations: k.readOps[0] + k.readOps[1] + k.readOps[2], Errors: k.errors, Latency: latencyOf(merged(k.read))}, row.Ops[0])
	require.Equal(t, Op{Name: "UPDATE", Operations: update.TotalCount(), Latency: latencyOf(update)}, row.Ops[1])
	require.InDelta(t, row.Throughput*row.Latency.Mean/1e6, row.Concurrency, 1e-9)
	require.InDelta(t, 25.0, row.LoaderCPU, 1e-9, "the loader's mean CPU from the start to the end of the measured span")
	require.Equal(t, 40.0, row.LoaderCPUMax)
	require.Equal(t, 2, row.LoaderCPUs)
	require.Len(t, row.Flags, 1)
	require.Equal(t, FlagReconstructed, row.Flags[0].Kind(), row.Flags[0])
	require.Contains(t, row.Flags[0], "3 measured intervals")
	require.Contains(t, row.Flags[0], "latency merged from hdr/"+killedTrial+".hlog")
}

func TestReconstructFallbacks(t *testing.T) {
	for _, tc := range []struct {
		name string
		plan bool
		// damage changes the directory as a different kill would leave it.
		damage func(t *testing.T, k *killedRun)
		check  func(t *testing.T, k *killedRun, d *Data)
	}{
		{
			name: "no hlog: latency from the time series",
			plan: true,
			damage: func(t *testing.T, k *killedRun) {
				require.NoError(t, os.Remove(filepath.Join(k.dir, HdrDir, killedTrial+".hlog")))
			},
			check: func(t *testing.T, k *killedRun, d *Data) {
				row := rebuiltRow(t, d)
				all := merged(k.read, k.update)
				want := latencyOf(all)
				require.InDelta(t, want.Mean, row.Latency.Mean, 0.01, "the mean is exact, weighted by operations")
				require.Equal(t, want.Max, row.Latency.Max, "the max is exact")
				require.InEpsilon(t, want.P99, row.Latency.P99, 0.35, "percentiles are approximate")
				require.Contains(t, row.Flags[0], "approximated from timeseries.csv")
				require.Equal(t, 3*time.Second, row.Duration)
			},
		},
		{
			name: "hlog cut mid-line",
			plan: true,
			damage: func(t *testing.T, k *killedRun) {
				path := filepath.Join(k.dir, HdrDir, killedTrial+".hlog")
				b, err := os.ReadFile(path)
				require.NoError(t, err)
				lines := strings.SplitAfter(string(b), "\n")
				// Drop the interval only the log had, and cut the last
				// measured UPDATE line in half.
				lines = lines[:len(lines)-3]
				last := lines[len(lines)-1]
				lines[len(lines)-1] = last[:len(last)/2]
				require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644))
			},
			check: func(t *testing.T, k *killedRun, d *Data) {
				row := rebuiltRow(t, d)
				require.Equal(t, latencyOf(merged(k.read, k.update[:2])), row.Latency, "every complete interval merged")
				require.Contains(t, strings.Join(d.Warnings, "\n"), "intervals before it are used")
			},
		},
		{
			name: "older manifest without the plan",
			plan: false,
			check: func(t *testing.T, k *killedRun, d *Data) {
				row := rebuiltRow(t, d)
				require.Equal(t, "pg", row.Target)
				require.Equal(t, "postgres", row.Database)
				require.Equal(t, "a", row.Workload)
				require.Equal(t, KindRun, row.Kind)
				require.Equal(t, latencyOf(merged(k.read, k.update)), row.Latency)
			},
		},
		{
			name: "killed in the warm-up",
			plan: true,
			damage: func(t *testing.T, k *killedRun) {
				keepWarmup(t, k.dir)
			},
			check: func(t *testing.T, k *killedRun, d *Data) {
				require.Len(t, d.Trials, 1, "nothing measured: no row")
				require.Contains(t, strings.Join(d.Warnings, "\n"), "trial "+killedTrial+": the run ended before the trial measured anything")
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := writeKilledRun(t, tc.plan)
			if tc.damage != nil {
				tc.damage(t, k)
			}
			d, err := Read(k.dir)
			require.NoError(t, err)
			tc.check(t, k, d)
		})
	}
}

// keepWarmup leaves only the warm-up interval of the killed trial in its
// log and time series.
func keepWarmup(t *testing.T, dir string) {
	t.Helper()
	path := filepath.Join(dir, HdrDir, killedTrial+".hlog")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var keep []string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if strings.HasPrefix(l, "#") || strings.HasPrefix(l, `"`) || strings.HasPrefix(l, "Tag="+hlog.WarmupPrefix) {
			keep = append(keep, l)
		}
	}
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(keep, "")), 0o644))
	path = filepath.Join(dir, TimeseriesFile)
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	keep = nil
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if !strings.HasPrefix(l, killedTrial+",") || strings.Contains(l, ",true,") {
			keep = append(keep, l)
		}
	}
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(keep, "")), 0o644))
}

// TestRowOnDiskWins: a trial whose row was written keeps that row.
func TestRowOnDiskWins(t *testing.T) {
	k := writeKilledRun(t, true)
	d, err := Read(k.dir)
	require.NoError(t, err)
	row := rebuiltRow(t, d)
	row.Reconstructed, row.Flags, row.Status, row.Operations = false, nil, StatusCompleted, 42
	f, err := os.OpenFile(filepath.Join(k.dir, TrialsFile), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	c := &csvFile[Trial]{path: f.Name(), f: f, w: csv.NewWriter(f), cols: trialColumns()}
	require.NoError(t, c.append([]Trial{*row}))
	require.NoError(t, c.close())

	d, err = Read(k.dir)
	require.NoError(t, err)
	require.Len(t, d.Trials, 2)
	require.False(t, d.Trials[1].Reconstructed)
	require.EqualValues(t, 42, d.Trials[1].Operations)
}
