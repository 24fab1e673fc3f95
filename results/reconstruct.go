package results

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/internal/bounds"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/measure/hlog"
)

// intervalSlack absorbs the millisecond rounding of hlog timestamps when
// the log's intervals are matched with timeseries.csv's.
const intervalSlack = 50 * time.Millisecond

// reconstruct adds a row for every trial whose intervals reached disk but
// whose row did not: the row is written when the trial ends, so a run
// killed mid-trial (kill -9, the machine lost) leaves only the trial's
// timeseries.csv rows and hdr/ID.hlog. The row is rebuilt from those, the
// latency by merging the trial's HdrHistogram intervals (exact, as the
// histograms add up losslessly) and the counts from the time series, and
// is flagged as reconstructed. A trial cut during its warm-up measured
// nothing and gets a warning instead.
func (d *Data) reconstruct() {
	have := map[string]bool{}
	for i := range d.Trials {
		have[d.Trials[i].ID] = true
	}
	byTrial := map[string][]Point{}
	var ids []string
	for _, p := range d.Points {
		if have[p.Trial] {
			continue
		}
		if _, ok := byTrial[p.Trial]; !ok {
			ids = append(ids, p.Trial)
		}
		byTrial[p.Trial] = append(byTrial[p.Trial], p)
	}
	// A log without a single timeseries row: killed between the log's
	// flush and the rows' (one interval at most).
	logs, _ := filepath.Glob(filepath.Join(d.Dir, HdrDir, "*.hlog"))
	sort.Strings(logs)
	for _, path := range logs {
		id := strings.TrimSuffix(filepath.Base(path), ".hlog")
		if _, ok := byTrial[id]; !ok && !have[id] {
			ids = append(ids, id)
			byTrial[id] = nil
		}
	}
	// Loaders' logs a kill left unmerged.
	for _, id := range d.loaderLogDirs() {
		if _, ok := byTrial[id]; !ok && !have[id] {
			ids = append(ids, id)
			byTrial[id] = nil
		}
	}
	for _, id := range ids {
		if row, ok := d.rebuild(id, byTrial[id]); ok {
			d.Trials = append(d.Trials, row)
		}
	}
}

// rebuild makes the row of trial id from its points and its log; ok is
// false when neither holds a measured interval.
func (d *Data) rebuild(id string, points []Point) (Trial, bool) {
	row := d.describe(id)
	span, measured := measuredSpan(points)
	logPath := filepath.Join(d.Dir, HdrDir, id+".hlog")
	hists, n, logErr := d.readLog(logPath, span)
	latencySource := "latency merged from " + filepath.Join(HdrDir, id+".hlog")
	if n == 0 {
		// A trial run by loaders: their own logs, when the run was
		// killed before it merged them.
		h, m, src, warnings, ok := d.fromLoaderLogs(id, span)
		d.Warnings = append(d.Warnings, warnings...)
		if ok {
			hists, n, logErr, latencySource = h, m, nil, src
		}
	}
	if measured == 0 && n == 0 {
		msg := fmt.Sprintf("trial %s: the run ended before the trial measured anything (in its warm-up or first interval); no row rebuilt", id)
		if logErr != nil {
			msg += fmt.Sprintf(" (%v)", logErr)
		}
		d.Warnings = append(d.Warnings, msg)
		return row, false
	}
	row.Start, row.End = span.start, span.end
	if measured == 0 {
		row.Start, row.End = hists.start, hists.end
	}
	row.Duration = row.End.Sub(row.Start)
	counts := countOps(points)
	if n > 0 {
		if measured == 0 {
			counts = hists.counts()
		}
		row.Latency = latencyOf(hists.all())
		for _, c := range counts.ops {
			o := Op{Name: c.name, Operations: c.ops, Errors: c.errs, Latency: c.lat}
			if h := hists.of(c.name); h != nil {
				o.Latency = latencyOf(h)
			}
			row.Ops = append(row.Ops, o)
		}
	} else {
		latencySource = "latency percentiles approximated from timeseries.csv (no readable " + filepath.Join(HdrDir, id+".hlog") + ")"
		row.Latency = counts.all.lat
		for _, c := range counts.ops {
			row.Ops = append(row.Ops, Op{Name: c.name, Operations: c.ops, Errors: c.errs, Latency: c.lat})
		}
	}
	if logErr != nil {
		d.Warnings = append(d.Warnings, fmt.Sprintf("trial %s: %v; intervals before it are used", id, logErr))
	}
	row.Operations, row.Errors = counts.all.ops, counts.all.errs
	row.SetRates()
	row.Concurrency = row.Throughput * row.Latency.Mean / 1e6 // Little's law; latency in µs
	d.loaderCPU(&row)
	intervals := max(measured, n)
	row.Flags = append(row.Flags, Flagf(FlagReconstructed, "the run ended before this trial's row was written; figures rebuilt from its %d measured intervals on disk, %s",
		intervals, latencySource))
	row.Reconstructed = true
	return row, true
}

// describe fills in what the plan in the manifest says of trial id; for a
// manifest without the plan (an older writer) it reads the target, kind
// and workload from the ID.
func (d *Data) describe(id string) Trial {
	m := &d.Manifest
	row := Trial{ID: id, Kind: KindRun, Index: len(m.Steps), Status: StatusInterrupted}
	switch m.Status {
	case StatusRunning, StatusFailed:
		row.Status = m.Status
	}
	found := false
	for i, st := range m.Steps {
		if st.ID == id {
			row.Index, row.Kind, row.Target, row.Workload = i, st.Kind, st.Target, st.Workload
			row.Params, row.Repetition, row.Threads, row.TargetRate = st.Params, st.Repetition, st.Threads, st.TargetRate
			found = true
			break
		}
	}
	if !found {
		for _, t := range m.Targets {
			if strings.HasPrefix(id, t.Name+".") && len(t.Name) > len(row.Target) {
				row.Target = t.Name
			}
		}
		// "target.load.N", or "target.workload[.key=value...][.repN]":
		// matrix values may hold dots, so only the workload is read.
		if rest, ok := strings.CutPrefix(id, row.Target+"."); ok && row.Target != "" {
			first, _, _ := strings.Cut(rest, ".")
			if first == KindLoad {
				row.Kind = KindLoad
			} else {
				row.Workload = first
			}
		}
	}
	for _, t := range m.Targets {
		if t.Name == row.Target {
			row.Database, row.Driver = t.Database, t.Driver
		}
	}
	return row
}

// span is a stretch of wall-clock time.
type span struct{ start, end time.Time }

// measuredSpan returns the time the trial's measured (not warm-up)
// intervals cover and how many there are. An interval starts where the
// one before it ended; the first one where the trial did (its end less
// its elapsed time).
func measuredSpan(points []Point) (span, int) {
	var all []Point
	for _, p := range points {
		if p.Op == AllOps {
			all = append(all, p)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Time.Before(all[j].Time) })
	var s span
	n := 0
	for i, p := range all {
		if p.Warmup {
			continue
		}
		if n == 0 {
			s.start = p.Time.Add(-p.Elapsed)
			if i > 0 {
				s.start = all[i-1].Time
			}
		}
		s.end = p.Time
		n++
	}
	return s, n
}

// opCount is one operation type's (or all operations') measured totals.
type opCount struct {
	name      string
	ops, errs int64
	// lat approximates the latency from the intervals' figures: the mean
	// and max are exact, a percentile is the operation-weighted mean of
	// the intervals' (used only without a readable hlog).
	lat Latency
}

// opCounts are a trial's measured totals.
type opCounts struct {
	all opCount
	ops []opCount // in YCSB's operation order
}

// countOps sums the measured points per operation type.
func countOps(points []Point) opCounts {
	acc := map[string]*opCount{}
	weights := map[string]float64{}
	for _, p := range points {
		if p.Warmup {
			continue
		}
		c := acc[p.Op]
		if c == nil {
			c = &opCount{name: p.Op}
			acc[p.Op] = c
		}
		c.ops += p.Ops
		c.errs += p.Errors
		w := float64(p.Ops)
		if w <= 0 {
			continue
		}
		weights[p.Op] += w
		for _, f := range latencyFields() {
			if v := *f.get(&p.Latency); !math.IsNaN(v) {
				if f.name == "max_us" {
					*f.get(&c.lat) = math.Max(*f.get(&c.lat), v)
				} else {
					*f.get(&c.lat) += w * v
				}
			}
		}
	}
	var out opCounts
	for name, c := range acc {
		if w := weights[name]; w > 0 {
			for _, f := range latencyFields() {
				if f.name != "max_us" {
					*f.get(&c.lat) /= w
				}
			}
		}
		if name == AllOps {
			out.all = *c
		} else {
			out.ops = append(out.ops, *c)
		}
	}
	sortOps(out.ops, func(c opCount) string { return c.name })
	return out
}

// sortOps orders by YCSB's operation order, unknown names last by name.
func sortOps[T any](xs []T, name func(T) string) {
	rank := map[string]int{}
	for i, op := range OpNames() {
		rank[op] = i + 1
	}
	sort.SliceStable(xs, func(i, j int) bool {
		a, b := name(xs[i]), name(xs[j])
		ra, rb := rank[a], rank[b]
		if ra == 0 {
			ra = len(rank) + 1
		}
		if rb == 0 {
			rb = len(rank) + 1
		}
		if ra != rb {
			return ra < rb
		}
		return a < b
	})
}

// logHists are a trial's measured intervals merged per hlog tag.
type logHists struct {
	byTag      map[string]*hdrhistogram.Histogram
	start, end time.Time
}

// of returns the latency histogram of op as the trial row reports it:
// response time (from the intended start) when it was recorded, service
// time otherwise; nil when the log has neither.
func (l *logHists) of(op string) *hdrhistogram.Histogram {
	if h := l.byTag[hlog.Tag{Kind: hlog.Intended, Op: op}.String()]; h != nil {
		return h
	}
	cut := l.byTag[hlog.Tag{Kind: hlog.CutOff, Op: op}.String()]
	if cut == nil {
		return l.byTag[op]
	}
	// A closed loop's latency: the completed operations and those the
	// window's end cut off, at their latency so far.
	h := measure.NewHistogram()
	if s := l.byTag[op]; s != nil {
		h.Merge(s)
	}
	h.Merge(cut)
	return h
}

// all merges every operation type's latency histogram.
func (l *logHists) all() *hdrhistogram.Histogram {
	out := measure.NewHistogram()
	for tag := range l.byTag {
		if t := hlog.ParseTag(tag); t.Kind == hlog.Service {
			out.Merge(l.of(t.Op))
		}
	}
	return out
}

// counts are the operation counts the histograms hold, for a trial with
// no timeseries row: successful operations, and failed ones from the
// [hlog.Failed] tags (a log written before those tags has none).
func (l *logHists) counts() opCounts {
	var out opCounts
	for tag, h := range l.byTag {
		if t := hlog.ParseTag(tag); t.Kind == hlog.Service {
			errs := int64(0)
			if f := l.byTag[hlog.Tag{Kind: hlog.Failed, Op: t.Op}.String()]; f != nil {
				errs = f.TotalCount()
			}
			out.ops = append(out.ops, opCount{name: t.Op, ops: h.TotalCount() + errs, errs: errs})
			out.all.ops += h.TotalCount() + errs
			out.all.errs += errs
		}
	}
	sortOps(out.ops, func(c opCount) string { return c.name })
	return out
}

// readLog merges the measured intervals of the trial's hlog that end
// within s (all of them when s is empty: no timeseries rows to match),
// and returns how many intervals it merged. A log a kill cut mid-line
// yields the intervals before the cut and the error.
func (d *Data) readLog(path string, s span) (*logHists, int, error) {
	f, err := bounds.OpenRegular(path)
	if errors.Is(err, os.ErrNotExist) {
		return &logHists{byTag: map[string]*hdrhistogram.Histogram{}}, 0, nil
	}
	if err != nil {
		return &logHists{byTag: map[string]*hdrhistogram.Histogram{}}, 0, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	return readLogFrom(f, path, s)
}

// readLogFrom is readLog of a log read from r, named path in errors.
func readLogFrom(rd io.Reader, path string, s span) (*logHists, int, error) {
	l := &logHists{byTag: map[string]*hdrhistogram.Histogram{}}
	starts := map[time.Time]bool{}
	err := l.add(rd, path, s, 0, 0, starts)
	return l, len(starts), err
}

// add merges into l the measured intervals of the log read from rd that
// end within s, each moved offset earlier (a loader's clock ahead of
// this one), and marks their starts in starts, rounded to round when
// it is not 0. A log a kill cut mid-line gives the intervals before
// the cut and the error.
func (l *logHists) add(rd io.Reader, path string, s span, offset, round time.Duration, starts map[time.Time]bool) error {
	r := hlog.NewReader(rd)
	for {
		iv, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if hlog.ParseTag(iv.Tag).Warmup || iv.Histogram == nil {
			continue
		}
		start := iv.Start.Add(-offset)
		end := start.Add(iv.Length)
		if !s.end.IsZero() && end.After(s.end.Add(intervalSlack)) {
			continue // its timeseries rows did not reach disk: keep the two in step
		}
		if h := l.byTag[iv.Tag]; h != nil {
			iv.Histogram.MergeInto(h)
		} else {
			h = measure.NewHistogram()
			iv.Histogram.MergeInto(h)
			l.byTag[iv.Tag] = h
		}
		if l.start.IsZero() || start.Before(l.start) {
			l.start = start
		}
		if end.After(l.end) {
			l.end = end
		}
		if round > 0 {
			start = start.Round(round)
		}
		starts[start] = true
	}
}

// latencyOf summarizes a histogram of nanoseconds in microseconds.
func latencyOf(h *hdrhistogram.Histogram) Latency { return LatencyOf(measure.StatsOf(h)) }

// LatencyOf is measure's summary as the results files hold it.
func LatencyOf(s measure.Stats) Latency {
	return Latency{Mean: s.Mean, P50: s.P50, P90: s.P90, P95: s.P95, P99: s.P99, P999: s.P999, Max: s.Max}
}

// PacingOf keeps the figures of a pacing lateness summary the results
// files hold.
func PacingOf(s measure.Stats) PacingLateness {
	return PacingLateness{P50: s.P50, P99: s.P99, Max: s.Max}
}

// loaderCPU fills in the load generator's CPU over the trial's measured
// span from the system metrics, as the run does for a trial it finishes.
func (d *Data) loaderCPU(row *Trial) {
	var sum float64
	var n int
	for _, s := range d.Sys {
		if s.Role != "loader" || math.IsNaN(s.CPUPercent) || s.Time.Before(row.Start) || s.Time.After(row.End) {
			continue
		}
		sum += s.CPUPercent
		row.LoaderCPUMax = math.Max(row.LoaderCPUMax, s.CPUPercent)
		n++
	}
	if n > 0 {
		row.LoaderCPU = sum / float64(n)
		row.LoaderCPUs = d.Manifest.Loader.CPUs
	}
}
