package results

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func sampleTrial() Trial {
	start := time.Date(2026, 11, 22, 10, 0, 0, 123456789, time.UTC)
	return Trial{
		ID: "postgres.a.threads=8", Index: 3, Kind: KindRun, Target: "postgres", Database: "postgres",
		Driver: "postgres", Workload: "a", Params: []Param{{"threads", "8"}, {"requestdistribution", "zipfian"}},
		Repetition: 1, Threads: 8, TargetRate: 0, Start: start, End: start.Add(30 * time.Second),
		Duration: 25 * time.Second, Operations: 1000, Errors: 2, Throughput: 40,
		Latency: Latency{Mean: 1.5, P50: 1, P90: 2, P95: 3, P99: 4, P999: 5, Max: 6},
		Ops: []Op{
			{Name: "READ", Operations: 500, Errors: 1, Latency: Latency{Mean: 1, P50: 1, P90: 1, P95: 1, P99: 2, P999: 3, Max: 4}},
			{Name: "UPDATE", Operations: 500, Errors: 1, Latency: Latency{Mean: 2, P50: 2, P90: 2, P95: 2, P99: 3, P999: 4, Max: 6}},
		},
		LoaderCPU: 95.5, LoaderCPUMax: 100, LoaderCPUs: 2, Concurrency: 7.9,
		Flags: []Flag{"client-bound: loader CPU 96% of 200%; use more loaders", "errors: 2"}, Status: StatusCompleted,
		Counters: map[string]float64{"dynamodb.consumed_rcu": 1234.5, "dynamodb.retries": 3},
		Reference: Reference{Tool: "pgbench", Command: "pgbench -n -M prepared -c 8 -T 25 -f read.sql postgres://x",
			Throughput: 42.5, MeanLatency: 188, Note: "keys uniform, where the workload chose them zipfian"},
	}
}

func TestRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	w, err := Create(dir)
	require.NoError(t, err)
	tr := sampleTrial()
	require.NoError(t, w.AddTrial(tr))
	pt := Point{Trial: tr.ID, Time: tr.Start.Add(time.Second), Elapsed: time.Second, Warmup: true, Op: "READ",
		Ops: 10, Rate: 10, Errors: 1, Latency: Latency{1, 2, 3, 4, 5, 6, 7}}
	require.NoError(t, w.AddPoints([]Point{pt}))
	sy := Sys{Trial: tr.ID, Usage: Usage{Time: tr.Start, Host: "postgres", Role: "database", CPUPercent: 50,
		MemoryBytes: 1 << 20, DiskReadBps: 1, DiskWriteBps: 2, PageCacheWriteBps: 60, DiskReadIOPS: math.NaN(), DiskWriteIOPS: math.NaN(),
		NetRxBps: 3, NetTxBps: 4}}
	require.NoError(t, w.AddSys([]Sys{sy}))
	m := &Manifest{Tool: "dbarena", Experiment: "x", Status: StatusCompleted, Start: tr.Start}
	require.NoError(t, w.WriteManifest(m))
	require.NoError(t, w.Close())

	d, err := Read(dir)
	require.NoError(t, err)
	require.Empty(t, d.Warnings)
	require.Equal(t, "x", d.Manifest.Experiment)
	require.Len(t, d.Trials, 1)
	require.Equal(t, tr, d.Trials[0])
	require.Equal(t, []Point{pt}, d.Points)
	require.Len(t, d.Sys, 1)
	require.True(t, math.IsNaN(d.Sys[0].DiskReadIOPS), "NaN survives as an empty cell")
	require.Equal(t, 3.0, d.Sys[0].NetRxBps)
	require.Equal(t, 2.0, d.Sys[0].DiskWriteBps, "a tree with a cgroup keeps its disk writes")
	require.Equal(t, 60.0, d.Sys[0].PageCacheWriteBps)

	_, err = Create(dir)
	require.ErrorContains(t, err, "already holds a results directory")
}

// TestOldSysmetrics reads a sysmetrics.csv from before
// pagecache_write_bytes_sec: a process tree's disk writes were its
// dirtied page cache, and read as such; hosts that measured IOPS or
// network (machines, node_exporter hosts) keep their disk figures.
func TestOldSysmetrics(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir)
	require.NoError(t, err)
	require.NoError(t, w.WriteManifest(&Manifest{Tool: "dbarena", Status: StatusCompleted, Format: FormatVersion}))
	require.NoError(t, w.Close())
	const old = `time,trial,host,role,cpu_pct,memory_bytes,disk_read_bytes_sec,disk_write_bytes_sec,disk_read_iops,disk_write_iops,net_rx_bytes_sec,net_tx_bytes_sec
2026-11-25T16:36:25Z,a,loader,loader,1,4,5,600,,,,
2026-11-25T16:36:25Z,a,postgres,database,1,4,7,1244000000,,,,
2026-11-25T16:36:25Z,a,machine,machine,1,4,9,46000000,3,4,5,6
2026-11-25T16:36:25Z,a,db-1,database,1,4,11,12,13,14,15,16
2026-11-25T16:36:25Z,a,pod,database,1,4,,,,,,
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, SysmetricsFile), []byte(old), 0o644))
	d, err := Read(dir)
	require.NoError(t, err)
	require.Len(t, d.Sys, 5)
	for i, want := range []struct{ read, write, dirtied float64 }{
		{5, math.NaN(), 600},
		{7, math.NaN(), 1244000000},
		{9, 46000000, math.NaN()},
		{11, 12, math.NaN()},
		{math.NaN(), math.NaN(), math.NaN()},
	} {
		s := d.Sys[i]
		for _, f := range []struct {
			name      string
			want, got float64
		}{{"read", want.read, s.DiskReadBps}, {"write", want.write, s.DiskWriteBps}, {"dirtied", want.dirtied, s.PageCacheWriteBps}} {
			if math.IsNaN(f.want) {
				require.True(t, math.IsNaN(f.got), "%s %s: %v", s.Host, f.name, f.got)
			} else {
				require.Equal(t, f.want, f.got, "%s %s", s.Host, f.name)
			}
		}
	}
}

// TestRedact hides a secret in the free text of both files and leaves
// numbers and identifiers alone, so the directory still reads back.
func TestRedact(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir)
	require.NoError(t, err)
	w.Redact(func(s string) string { return strings.ReplaceAll(s, "hunter22", "REDACTED") })
	tr := sampleTrial()
	tr.Flags = []Flag{"errors: AUTH hunter22 refused"}
	tr.Reference.Command = "redis-benchmark -a hunter22"
	tr.Reference.Note = "reference failed: WRONGPASS hunter22"
	require.NoError(t, w.AddTrial(tr))
	m := &Manifest{Status: StatusFailed, Error: "open: password hunter22 refused", Warnings: []string{"w hunter22"},
		Targets: []TargetInfo{{Name: "redis", Properties: map[string]string{"redis.addr": "h:1", "x.url": "redis://:hunter22@h"}}}}
	require.NoError(t, w.WriteManifest(m))
	require.NoError(t, w.Close())
	require.Equal(t, "open: password hunter22 refused", m.Error, "the caller's manifest is not changed")

	for _, f := range []string{ManifestFile, TrialsFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		require.NotContains(t, string(b), "hunter22", f)
	}
	d, err := Read(dir)
	require.NoError(t, err)
	require.Equal(t, "open: password REDACTED refused", d.Manifest.Error)
	require.Equal(t, []string{"w REDACTED"}, d.Manifest.Warnings)
	require.Equal(t, map[string]string{"redis.addr": "h:1", "x.url": "redis://:REDACTED@h"}, d.Manifest.Targets[0].Properties)
	require.Equal(t, []Flag{"errors: AUTH REDACTED refused"}, d.Trials[0].Flags)
	require.Equal(t, "redis-benchmark -a REDACTED", d.Trials[0].Reference.Command)
	require.Equal(t, "reference failed: WRONGPASS REDACTED", d.Trials[0].Reference.Note)
	require.Equal(t, tr.ID, d.Trials[0].ID)
	require.Equal(t, tr.Operations, d.Trials[0].Operations)
}

func TestTruncatedLastRowIsSkipped(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir)
	require.NoError(t, err)
	tr := sampleTrial()
	require.NoError(t, w.AddTrial(tr))
	require.NoError(t, w.AddTrial(tr))
	require.NoError(t, w.WriteManifest(&Manifest{Status: StatusRunning}))
	require.NoError(t, w.Close())
	path := filepath.Join(dir, TrialsFile)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b[:len(b)-40], 0o644)) // a kill mid-row

	d, err := Read(dir)
	require.NoError(t, err)
	require.Len(t, d.Trials, 1)
	require.Len(t, d.Warnings, 1)
	require.Regexp(t, `trials.csv:\d+: incomplete last row skipped`, d.Warnings[0])
}

func TestBadRowNamesFileAndLine(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"status":"completed"}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, SysmetricsFile), []byte("time,host,cpu_pct\n,a,1\n,b,x\n,c,3\n"), 0o644))
	_, err := Read(dir)
	require.ErrorContains(t, err, "sysmetrics.csv:3: column cpu_pct")

	_, err = Read(t.TempDir())
	require.ErrorContains(t, err, "is it a results directory?")
}

// TestFiguresReadBackAreChecked: a figure out of range is refused on
// reading, naming the file, line, column and range: a trials.csv edited
// to 1e308 ops/s printed "-9,223,372,036,854,775,808 ops/s", and -1
// printed "-1.0 ops/s". Both sides of each bound.
func TestFiguresReadBackAreChecked(t *testing.T) {
	manifest := []byte(`{"status":"completed"}`)
	for _, tc := range []struct {
		file, csv, err string
	}{
		{SysmetricsFile, "time,host,cpu_pct\n,a,1e308\n", "sysmetrics.csv:2: column cpu_pct: 1e308: want a figure from 0 to 1e+15"},
		{SysmetricsFile, "time,host,cpu_pct\n,a,-1\n", "sysmetrics.csv:2: column cpu_pct: -1: want a figure from 0 to 1e+15"},
		{SysmetricsFile, "time,host,cpu_pct\n,a,1e15\n,b,0\n,c,\n", ""},
		{SysmetricsFile, "time,host,cpu_pct\n,a,Inf\n", "want a figure"},
		{TimeseriesFile, "trial,elapsed_s,op,ops\nx,1,ALL,-3\n", "timeseries.csv:2: column ops: -3: want a count, 0 or more"},
		{TimeseriesFile, "trial,elapsed_s,op,ops\nx,1e300,ALL,3\n", "column elapsed_s: 1e300: want seconds from 0 to 9e9"},
		{TimeseriesFile, "trial,elapsed_s,op,ops\nx,9e9,ALL,0\n", ""},
	} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, ManifestFile), manifest, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.csv), 0o644))
		_, err := Read(dir)
		if tc.err == "" {
			require.NoError(t, err, tc.csv)
			continue
		}
		require.ErrorContains(t, err, tc.err, tc.csv)
	}
}

func TestManifestSizeIsCapped(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, ManifestFile)))
	_, err := Read(dir)
	require.ErrorContains(t, err, "manifest.json: larger than the 64 MiB limit")
}

// TestInputsAreRegularFilesWithinLimits: a FIFO in place of a results
// file hung `dbarena report` forever; a trials.csv of 10^6 rows took 98 s
// and 7.43 GB. Both are refused with the file named.
func TestInputsAreRegularFilesWithinLimits(t *testing.T) {
	for _, name := range []string{ManifestFile, TrialsFile, filepath.Join(HdrDir, "x.c.hlog")} {
		dir := t.TempDir()
		if name != ManifestFile {
			require.NoError(t, os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"status":"completed"}`), 0o644))
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, syscall.Mkfifo(filepath.Join(dir, name), 0o644))
		done := make(chan error, 1)
		go func() {
			d, err := Read(dir)
			if err == nil {
				_, _, err = d.TrialStats("x.c")
			}
			done <- err
		}()
		select {
		case err := <-done:
			require.ErrorContains(t, err, "not a regular file", name)
		case <-time.After(5 * time.Second):
			t.Fatalf("%s as a FIFO: the read hangs", name)
		}
	}

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"status":"completed"}`), 0o644))
	var b strings.Builder
	b.WriteString("id,operations\n")
	for i := range maxTrialRows + 1 {
		fmt.Fprintf(&b, "t%d,1\n", i)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, TrialsFile), []byte(b.String()), 0o644))
	_, err := Read(dir)
	require.ErrorContains(t, err, "trials.csv: more than 100000 rows")
	lines := strings.SplitAfter(b.String(), "\n")
	require.NoError(t, os.WriteFile(filepath.Join(dir, TrialsFile), []byte(strings.Join(lines[:len(lines)-2], "")), 0o644))
	d, err := Read(dir)
	require.NoError(t, err, "100,000 rows are within the limit")
	require.Len(t, d.Trials, maxTrialRows)
}
