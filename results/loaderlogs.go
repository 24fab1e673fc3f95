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

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/internal/bounds"
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

// fromLoaderLogs reads the logs trial id's loaders left in
// hdr/ID.loaders as readLog reads a trial's log: their measured
// intervals added up, each loader's moved onto this machine's clock by
// the offset recorded beside it, a second of the trial counted once
// whichever loaders wrote it. It says where its latency came from; ok
// is false when there are no such logs or none holds a measured
// interval. warnings name a log cut mid-line or offsets that cannot be
// read.
func (d *Data) fromLoaderLogs(id string, s span) (hists *logHists, n int, source string, warnings []string, ok bool) {
	rel := filepath.Join(HdrDir, id+LoaderLogs)
	dir := filepath.Join(d.Dir, rel)
	logs, _ := filepath.Glob(filepath.Join(dir, "loader-*.hlog"))
	if len(logs) == 0 {
		return nil, 0, "", nil, false
	}
	offsets, err := readLoaderOffsets(filepath.Join(dir, LoaderOffsetsFile))
	if err != nil {
		return nil, 0, "", []string{fmt.Sprintf("trial %s: its loaders' logs in %s could not be put on one clock: %v", id, rel, err)}, false
	}
	sort.Strings(logs)
	hists = &logHists{byTag: map[string]*hdrhistogram.Histogram{}}
	starts := map[time.Time]bool{}
	for _, path := range logs {
		var i int
		if _, err := fmt.Sscanf(filepath.Base(path), "loader-%d.hlog", &i); err != nil {
			continue
		}
		f, err := bounds.OpenRegular(path)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("trial %s: %v", id, err))
			continue
		}
		if err := hists.add(f, path, s, offsets[i], time.Second, starts); err != nil {
			warnings = append(warnings, fmt.Sprintf("trial %s: loader %d: %v; its intervals before it are used", id, i, err))
		}
		f.Close()
	}
	if len(starts) == 0 {
		return nil, 0, "", warnings, false
	}
	return hists, len(starts), "latency merged from its loaders' logs in " + rel, warnings, true
}
