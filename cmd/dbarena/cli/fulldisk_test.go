package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// smallDisk mounts a tmpfs of size bytes for the test (root only).
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("a full disk is made with a tmpfs mount, which needs root")
		}
		t.Skip("a full disk is made with a tmpfs mount, which needs root")
	}
	dir := filepath.Join(t.TempDir(), "disk")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size))
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// fill writes to path until the disk holding it is full.
func fill(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return err
		}
	}
}

// TestFullDiskTellsTheTruth fills the results disk in the middle of a
// measured trial: the run fails, and the manifest says so (failed, with
// the disk's error) rather than staying "running" while stdout said the
// run was still going; the rows written before are kept, and the report
// reads them once there is room.
func TestFullDiskTellsTheTruth(t *testing.T) {
	disk := smallDisk(t, "2m")
	srv := startOwnRedis(t)
	dir := t.TempDir()
	file := redisExperiment(t, dir, "full", srv.addr, "{duration: 10s, threads: 1}")
	res := filepath.Join(disk, "r")
	filler := filepath.Join(disk, "filler")
	filled := make(chan error, 1)
	go func() {
		// Two seconds of the run's trial on disk, then no more room.
		ok := poll(time.Minute, func() bool {
			b, _ := os.ReadFile(filepath.Join(res, results.TimeseriesFile))
			return strings.Count(string(b), "r.c,") >= 2
		})
		if !ok {
			filled <- errors.New("the trial's intervals never reached disk")
			return
		}
		filled <- fill(filler)
	}()
	code, out, errs := run(t, context.Background(), "run", file, "--results", res)
	require.NoError(t, <-filled)
	require.Equal(t, ExitFailure, code, errs)
	require.Contains(t, errs, "no space left on device")
	require.NotContains(t, out, "still going")
	require.Contains(t, out, "(failed")

	require.NoError(t, os.Remove(filler))
	d, err := results.Read(res)
	require.NoError(t, err)
	require.Equal(t, results.StatusFailed, d.Manifest.Status, "the manifest says how the run ended")
	require.Contains(t, d.Manifest.Error, "no space left on device")
	row, ok := rowsByID(d)["r.load.1"]
	require.True(t, ok, "the load's row is kept")
	require.Equal(t, results.StatusCompleted, row.Status)
	require.NoFileExists(t, filepath.Join(res, ".dbarena-reserve"), "the reserve is given back")

	code, out, errs = run(t, context.Background(), "report", res)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "report: ")
}

// TestFullDiskReportSaysSo leaves room for the measurements but not for
// the report: the exit status is 1, and the manifest, which says
// completed, also says that the report was not written and how to
// write it.
func TestFullDiskReportSaysSo(t *testing.T) {
	disk := smallDisk(t, "400k")
	srv := startOwnRedis(t)
	dir := t.TempDir()
	file := redisExperiment(t, dir, "noreport", srv.addr, "{duration: 2s, threads: 1}")
	res := filepath.Join(disk, "r")
	code, out, errs := run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitFailure, code, errs)
	require.Contains(t, out, "(completed; the report was not written: report: figure ")
	d, err := results.Read(res)
	require.NoError(t, err)
	require.Equal(t, results.StatusCompleted, d.Manifest.Status)
	require.Len(t, d.Manifest.Warnings, 1)
	require.Contains(t, d.Manifest.Warnings[0], "no space left on device; the measurements are complete: `dbarena report "+res+"` writes it again")
}

// leaveFree fills the disk at dir until free bytes are left.
func leaveFree(t *testing.T, dir string, free int64) string {
	t.Helper()
	var st syscall.Statfs_t
	require.NoError(t, syscall.Statfs(dir, &st))
	avail := int64(st.Bavail) * st.Bsize
	require.Greater(t, avail, free)
	path := filepath.Join(dir, "filler")
	require.NoError(t, os.WriteFile(path, make([]byte, avail-free), 0o644))
	return path
}

// TestFullDiskAtEverySize runs an experiment on a results disk with
// 60 kB, 150 kB and 400 kB free. Whatever the size, the run either is
// refused before anything starts (no room for the reserve that records
// how it ends: with 60 kB the manifest stayed "running" and the CSV
// files were cut at 4,096 and 8,192 bytes) or ends with a manifest that
// says how it ended, failed with the disk's error or completed with the
// warning that the report was not written; no CSV file holds half a row;
// and once there is room, `dbarena report` renders what was kept.
func TestFullDiskAtEverySize(t *testing.T) {
	srv := startOwnRedis(t)
	dir := t.TempDir()
	file := redisExperiment(t, dir, "sizes", srv.addr, "{duration: 3s, threads: 1}")
	for _, free := range []int64{60 << 10, 150 << 10, 400 << 10} {
		t.Run(fmt.Sprintf("%dk", free>>10), func(t *testing.T) {
			disk := smallDisk(t, "4m")
			filler := leaveFree(t, disk, free)
			res := filepath.Join(disk, "r")
			code, out, errs := run(t, context.Background(), "run", file, "--results", res)
			t.Logf("exit %d\n%s", code, out)
			require.NotEqual(t, ExitOK, code, "a full disk is not a success")
			if free < 256<<10 {
				require.Contains(t, errs, "its disk has no room for the 256 KiB a run keeps to record how it ended")
				require.NoDirExists(t, res, "refused before anything ran")
				return
			}
			d, err := results.Read(res)
			require.NoError(t, err, "the manifest is whole")
			switch d.Manifest.Status {
			case results.StatusFailed:
				require.Contains(t, d.Manifest.Error, "no space left on device")
			case results.StatusCompleted:
				require.NotEmpty(t, d.Manifest.Warnings, "a completed run whose report was not written says so")
				require.Contains(t, strings.Join(d.Manifest.Warnings, " "), "no space left on device")
			default:
				t.Fatalf("the manifest says %q", d.Manifest.Status)
			}
			for _, name := range []string{results.TrialsFile, results.TimeseriesFile, results.SysmetricsFile, results.DBMetricsFile} {
				b, err := os.ReadFile(filepath.Join(res, name))
				require.NoError(t, err)
				if len(b) > 0 {
					require.Equal(t, byte('\n'), b[len(b)-1], "%s ends with a whole row (%d bytes)", name, len(b))
				}
			}
			require.NoError(t, os.Remove(filler))
			code, out, errs = run(t, context.Background(), "report", res)
			require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
			require.FileExists(t, filepath.Join(res, results.ReportFile))
		})
	}
}
