package report

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/procid"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/measure/hlog"
	"github.com/dbarena/dbarena/results"
)

// writeKilledDir writes what `kill -9` during the first measured trial
// leaves: the load's row, the trial's intervals (timeseries.csv and its
// hlog) but no row for it, and a manifest still "running" whose writer
// is gone.
func writeKilledDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	w, err := results.Create(dir)
	require.NoError(t, err)
	self, err := procid.Self()
	require.NoError(t, err)
	host, err := os.Hostname()
	require.NoError(t, err)
	t0 := start()
	require.NoError(t, w.WriteManifest(&results.Manifest{Experiment: "killed", Status: results.StatusRunning,
		PID: self.PID, PIDStart: self.Start + 1, BootID: self.Boot, Start: t0, Loader: results.Host{Hostname: host, CPUs: 2},
		PlannedSteps: 2, CompletedSteps: 1,
		Targets: []results.TargetInfo{{Name: "redis", Database: "redis", Driver: "redis", Provider: "local", Up: t0}},
		Steps: []results.Step{{ID: "redis.load.1", Kind: results.KindLoad, Target: "redis", Workload: "a", Threads: 4},
			{ID: "redis.a", Kind: results.KindRun, Target: "redis", Workload: "a", Repetition: 1, Threads: 2}}}))
	require.NoError(t, w.AddTrial(results.Trial{ID: "redis.load.1", Kind: results.KindLoad, Target: "redis", Database: "redis",
		Driver: "redis", Workload: "a", Start: t0, End: t0.Add(time.Second), Duration: time.Second, Operations: 200,
		Throughput: 200, Status: results.StatusCompleted}))

	f, err := os.Create(w.HdrPath("redis.a"))
	require.NoError(t, err)
	trialStart := t0.Add(2 * time.Second)
	hl, err := hlog.NewWriter(f, trialStart, "dbarena trial redis.a; values in nanoseconds")
	require.NoError(t, err)
	for i := 0; i < 5; i++ {
		h := measure.NewHistogram()
		for v := int64(1); v <= 1000; v++ {
			require.NoError(t, h.RecordValue(50_000+v*int64(100+10*i)))
		}
		s, e := trialStart.Add(time.Duration(i)*time.Second), trialStart.Add(time.Duration(i+1)*time.Second)
		require.NoError(t, hl.WriteInterval("READ", s, e, h))
		st := measure.StatsOf(h)
		lat := results.Latency{Mean: st.Mean, P50: st.P50, P90: st.P90, P95: st.P95, P99: st.P99, P999: st.P999, Max: st.Max}
		pt := results.Point{Trial: "redis.a", Time: e, Elapsed: e.Sub(trialStart), Length: e.Sub(s), Op: "READ", Ops: 1000, Rate: 1000, Latency: lat}
		all := pt
		all.Op = results.AllOps
		require.NoError(t, w.AddPoints([]results.Point{pt, all}))
	}
	require.NoError(t, f.Close())
	require.NoError(t, w.Close())
	return dir
}

// TestReportOfKilledRun renders a directory a killed run left: the cut
// trial is in the verdict, the trials table and its over-time figure,
// flagged as rebuilt, instead of "no measured runs yet".
func TestReportOfKilledRun(t *testing.T) {
	dir := writeKilledDir(t)
	d, err := results.Read(dir)
	require.NoError(t, err)
	require.Equal(t, results.StatusInterrupted, d.Manifest.Status)

	v := Verdict(d)
	require.NotContains(t, v, "no measured runs yet")
	require.Contains(t, v, "a: redis 1,000 ops/s")
	require.Contains(t, v, "warning: redis.a: reconstructed: the run ended before this trial's row was written")
	require.Contains(t, v, "warning: redis.a: interrupted: partial trial")

	path, err := Write(d)
	require.NoError(t, err)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	html := string(b)
	requireHas(t, html, "redis.a")
	requireHas(t, html, "reconstructed: the run ended before this trial&#39;s row was written; figures rebuilt from its 5 measured intervals on disk")
	requireHas(t, html, "1,000", "the rebuilt throughput")
	requireSVG(t, filepath.Join(dir, results.FiguresDir, "overtime-a.svg"))
}
