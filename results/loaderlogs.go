package results

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/internal/bounds"
	"github.com/dbarena/dbarena/measure/hlog"
	"github.com/dbarena/dbarena/merge"
)

// maxOffsetsBytes bounds a loader log directory's clock-offset file: a
// line per loader, and at most 1,000 loaders.
const maxOffsetsBytes = 1 << 20

// loaderLogDirs lists the trials whose loaders' logs are still in
// hdr/ID.loaders: runs killed before the merge.
func (d *Data) loaderLogDirs() []string {
	dirs, _ := filepath.Glob(filepath.Join(d.Dir, HdrDir, "*"+LoaderLogs))
	sort.Strings(dirs)
	var ids []string
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			ids = append(ids, strings.TrimSuffix(filepath.Base(dir), LoaderLogs))
		}
	}
	return ids
}

// mergeLoaderLogs merges the interval logs trial id's loaders left in
// hdr/ID.loaders, each moved onto this machine's clock by the offset
// recorded beside it, into one log in memory, as the run would have
// written it to hdr/ID.hlog. ok is false when there is no such
// directory or none of its logs holds an interval; flags name a loader
// log cut mid-line.
func (d *Data) mergeLoaderLogs(id string) (log *bytes.Buffer, flags []string, ok bool, err error) {
	dir := filepath.Join(d.Dir, HdrDir, id+LoaderLogs)
	logs, _ := filepath.Glob(filepath.Join(dir, "loader-*.hlog"))
	if len(logs) == 0 {
		return nil, nil, false, nil
	}
	offsets, err := readLoaderOffsets(filepath.Join(dir, LoaderOffsetsFile))
	if err != nil {
		return nil, nil, false, err
	}
	sort.Strings(logs)
	var inputs []merge.Input
	for _, path := range logs {
		var i int
		if _, err := fmt.Sscanf(filepath.Base(path), "loader-%d.hlog", &i); err != nil {
			continue
		}
		if !holdsInterval(path) {
			continue
		}
		inputs = append(inputs, merge.Input{Name: fmt.Sprintf("loader %d", i), Path: path, Offset: offsets[i]})
	}
	if len(inputs) == 0 {
		return nil, nil, false, nil
	}
	m, err := merge.Merge(inputs, merge.Options{KeepCut: true})
	if err != nil {
		return nil, nil, false, err
	}
	var buf bytes.Buffer
	if err := m.WriteLog(&buf, "dbarena trial "+id+" merged from loaders by report; values in nanoseconds"); err != nil {
		return nil, nil, false, err
	}
	return &buf, m.Flags, true, nil
}

// readLoaderOffsets reads the clock offsets of a trial's loaders
// (loader,offset_ns); a missing file means every loader ran on this
// machine's clock.
func readLoaderOffsets(path string) (map[int]time.Duration, error) {
	out := map[int]time.Duration{}
	data, err := bounds.ReadFile(path, maxOffsetsBytes)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for n, row := range rows {
		if n == 0 {
			continue // the header
		}
		i, err1 := strconv.Atoi(row[0])
		ns, err2 := strconv.ParseInt(row[len(row)-1], 10, 64)
		if len(row) != 2 || err1 != nil || err2 != nil || i < 0 {
			return nil, fmt.Errorf("%s: line %d: want loader,offset_ns (a loader index and nanoseconds), got %q", path, n+1, strings.Join(row, ","))
		}
		out[i] = time.Duration(ns)
	}
	return out, nil
}

// WriteLoaderOffsets writes the clock offsets of a trial's loaders, by
// loader index, where [Data] reads them back to merge their logs.
func WriteLoaderOffsets(path string, offsets []time.Duration) error {
	var b strings.Builder
	b.WriteString("loader,offset_ns\n")
	for i, o := range offsets {
		fmt.Fprintf(&b, "%d,%d\n", i, o.Nanoseconds())
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// holdsInterval says whether the interval log at path holds an interval.
func holdsInterval(path string) bool {
	f, err := bounds.OpenRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = hlog.NewReader(f).Next()
	return err == nil
}

// fromLoaderLogs reads the merge of trial id's loaders' logs as
// readLog reads a trial's log, and says where its latency came from;
// ok is false when there are none to merge. warnings name a log cut
// mid-line or a merge that failed.
func (d *Data) fromLoaderLogs(id string, s span) (hists *logHists, n int, source string, warnings []string, ok bool) {
	log, flags, ok, err := d.mergeLoaderLogs(id)
	dir := filepath.Join(HdrDir, id+LoaderLogs)
	if err != nil {
		return nil, 0, "", []string{fmt.Sprintf("trial %s: its loaders' logs in %s could not be merged: %v", id, dir, err)}, false
	}
	if !ok {
		return nil, 0, "", nil, false
	}
	for _, f := range flags {
		warnings = append(warnings, fmt.Sprintf("trial %s: %s", id, f))
	}
	hists, n, err = readLogFrom(log, dir, s)
	if err != nil || n == 0 {
		return nil, 0, "", warnings, false
	}
	return hists, n, "latency merged from its loaders' logs in " + dir, warnings, true
}
