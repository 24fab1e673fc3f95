package results

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/dbarena/dbarena/internal/bounds"
	"github.com/dbarena/dbarena/internal/procid"
)

// Data is a whole results directory read back.
type Data struct {
	Dir      string
	Manifest Manifest
	Trials   []Trial
	Points   []Point
	Sys      []Sys
	DB       []DBMetric
	// Warnings name rows skipped because a killed run left them
	// incomplete.
	Warnings []string
}

// Read loads a results directory. A missing CSV file reads as empty (an
// old or partial directory); a missing manifest is an error, since
// without it the directory is not a results directory. A trial whose
// intervals reached disk but whose row did not (its run was killed
// mid-trial) gets a row rebuilt from them, flagged FlagReconstructed.
func Read(dir string) (*Data, error) {
	d := &Data{Dir: dir}
	// The manifest is a few KiB; a cap keeps a wrong file (a link to a
	// device, a huge download) from filling the memory.
	b, err := readManifest(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("read results %s: %w (is it a results directory?)", dir, err)
	}
	if err := json.Unmarshal(b, &d.Manifest); err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, ManifestFile), err)
	}
	d.settleStatus()
	if d.Trials, err = readCSV(d, filepath.Join(dir, TrialsFile), trialColumns(), maxTrialRows); err != nil {
		return nil, err
	}
	if d.Points, err = readCSV(d, filepath.Join(dir, TimeseriesFile), pointColumns(), maxSeriesRows); err != nil {
		return nil, err
	}
	if d.Sys, err = readCSV(d, filepath.Join(dir, SysmetricsFile), sysColumns(), maxSeriesRows); err != nil {
		return nil, err
	}
	if err := d.fromOldSysmetrics(filepath.Join(dir, SysmetricsFile)); err != nil {
		return nil, err
	}
	if d.DB, err = readCSV(d, filepath.Join(dir, DBMetricsFile), dbMetricColumns(), maxSeriesRows); err != nil {
		return nil, err
	}
	if d.Manifest.Format < 2 {
		d.fromFormat1()
	}
	d.reconstruct()
	return d, nil
}

// The rows a results directory's files may hold: an experiment plans at
// most 10,000 trials, and a day's soak at one-second intervals is 86,400
// rows per operation type. Past them a report would take minutes and
// gigabytes (10^6 trial rows: 98 s, 7.43 GB) for a file that is not one
// dbarena wrote.
const (
	maxTrialRows  = 100_000
	maxSeriesRows = 5_000_000
)

// readManifest reads the manifest, a regular file of a few KiB: a cap
// keeps a wrong file (a link to a device, a huge download) from filling
// the memory, and a FIFO from hanging the read.
func readManifest(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if t := fi.Mode().Type(); t&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDir) != 0 {
		return nil, fmt.Errorf("%s: not a regular file (%s); want the file dbarena wrote", path, t)
	}
	return bounds.ReadFile(path, bounds.MaxFileBytes)
}

// fromFormat1 turns version 1's rates, which counted failed operations,
// into successful operations per second.
func (d *Data) fromFormat1() {
	for i := range d.Trials {
		d.Trials[i].SetRates()
	}
	for i := range d.Points {
		p := &d.Points[i]
		if p.Ops > 0 && p.Rate > 0 {
			p.Length = time.Duration(float64(p.Ops) / p.Rate * float64(time.Second))
			p.SetRates()
		}
	}
}

// fromOldSysmetrics reads a sysmetrics.csv written before
// pagecache_write_bytes_sec existed, whose process trees had
// /proc/PID/io's write_bytes in disk_write_bytes_sec: bytes dirtied in
// the page cache, counted in whole folios, up to 30 times what their
// disk wrote. Those move to PageCacheWriteBps and the trees' disk writes
// become unknown, so that an old directory shows them for what they are.
// A process tree is told by what it could not measure, IOPS and network,
// which every machine and remote host (node_exporter) measured; pods
// (kubelet) had no disk figures to move. Other rows have no page-cache
// figure.
func (d *Data) fromOldSysmetrics(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	head, err := csv.NewReader(f).Read()
	if err == io.EOF || slices.Contains(head, pageCacheColumn) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: header: %w", path, err)
	}
	nan := math.NaN()
	for i := range d.Sys {
		s := &d.Sys[i]
		s.PageCacheWriteBps = nan
		tree := s.Role != "machine" && math.IsNaN(s.DiskReadIOPS) && math.IsNaN(s.DiskWriteIOPS) &&
			math.IsNaN(s.NetRxBps) && math.IsNaN(s.NetTxBps)
		if tree {
			s.PageCacheWriteBps, s.DiskWriteBps = s.DiskWriteBps, nan
		}
	}
	return nil
}

// readCSV reads rows by header name, so columns added later or in another
// order still read. A last line cut short by a kill is skipped with a
// warning; a bad row anywhere else is an error naming file and line.
func readCSV[T any](d *Data, path string, cols []column[T], maxRows int) ([]T, error) {
	f, err := bounds.OpenRegular(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: header: %w", path, err)
	}
	byName := make(map[string]column[T], len(cols))
	for _, c := range cols {
		byName[c.name] = c
	}
	var out []T
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if len(out) == maxRows {
			return nil, fmt.Errorf("read %s: more than %d rows, the limit for this file; is it the right results directory?", path, maxRows)
		}
		// FieldPos panics without a record: a parse error has none,
		// and says where the bad record started.
		var line int
		var pe *csv.ParseError
		switch {
		case err == nil:
			line, _ = r.FieldPos(0)
		case errors.As(err, &pe):
			line = pe.StartLine
		}
		if err == nil && len(rec) != len(head) {
			err = fmt.Errorf("%d fields, want %d", len(rec), len(head))
		}
		if err != nil {
			if _, nextErr := r.Read(); nextErr == io.EOF {
				d.Warnings = append(d.Warnings, fmt.Sprintf("%s:%d: incomplete last row skipped (%v)", path, line, err))
				return out, nil
			}
			return nil, fmt.Errorf("read %s:%d: %w", path, line, err)
		}
		var v T
		for i, name := range head {
			c, ok := byName[name]
			if !ok {
				continue
			}
			if err := c.set(&v, rec[i]); err != nil {
				return nil, fmt.Errorf("read %s:%d: column %s: %w", path, line, name, err)
			}
		}
		out = append(out, v)
	}
}

// settleStatus marks a directory still "running" whose writer is gone (it
// was killed outright, so it could not say so) as interrupted. The
// writer's start time, when recorded, keeps a later process that was
// given the same PID from passing for it.
func (d *Data) settleStatus() {
	m := &d.Manifest
	if m.Status != StatusRunning || m.PID <= 0 {
		return
	}
	if host, err := os.Hostname(); err != nil || host != m.Loader.Hostname {
		return // another machine's run: nothing to check here
	}
	if (procid.ID{PID: m.PID, Start: m.PIDStart, Boot: m.BootID}).Alive() {
		return // still running (or a process we may not signal)
	}
	m.Status = StatusInterrupted
	d.Warnings = append(d.Warnings, fmt.Sprintf("%s: the run (pid %d) ended without finishing; treated as interrupted", filepath.Join(d.Dir, ManifestFile), m.PID))
}
