// Package merge combines the HdrHistogram interval logs of several load
// generators (processes on one host, hosts, pods) into one cluster-wide
// series and summary. Histograms are added, never averaged: the merged
// p99 is the p99 of every operation any loader measured, as if one
// loader had measured them all. Each loader's timestamps may be shifted
// by its measured clock offset before the intervals are put into common
// time windows.
package merge

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/internal/bounds"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/measure/hlog"
)

// Input is one loader's interval log.
type Input struct {
	// Name identifies the loader in messages; the path when empty.
	Name string
	Path string
	// Offset is the loader's clock minus the reference clock: +30ms
	// means its timestamps read 30 ms late, and 30 ms is taken off them.
	Offset time.Duration
}

// Options tune a merge.
type Options struct {
	// Window is the length of the merged intervals (default 1 s).
	Window time.Duration
	// Start aligns the windows; zero: the earliest corrected interval
	// start of any loader.
	Start time.Time
	// Late is how far a loader's first interval may start after the
	// earliest's, or its last end before the latest's, before it is
	// flagged (default 2 windows).
	Late time.Duration
}

// Loader describes what one input held.
type Loader struct {
	Name        string
	Offset      time.Duration
	First, Last time.Time // corrected start of its first, end of its last interval
	Intervals   int
	// Counts are the values recorded per tag.
	Counts map[string]int64
}

// Window is the merged histogram of one tag over one time window.
type Window struct {
	Start time.Time
	Tag   string
	// Hist is sparse, so that memory grows with the buckets used: a dense
	// histogram of dbarena's range is 270 KB, and an hour of one-second
	// windows over ten tags would hold 9.7 GB of them. MergeInto adds it
	// to a dense histogram (measure.NewHistogram) for percentiles.
	Hist *hdrhistogram.PackedHistogram
}

// Result is a merge.
type Result struct {
	Loaders []Loader
	// Windows are in time order, then tag order.
	Windows []Window
	// Totals are each tag's histogram over the whole run.
	Totals     map[string]*hdrhistogram.Histogram
	Start, End time.Time
	Window     time.Duration
	// Flags name loaders that started late or stopped early: their
	// share is missing from the windows at the edges.
	Flags []string
}

// interval is a read interval with its loader.
type interval struct {
	loader int
	iv     hlog.Interval
}

// Merge reads every input and merges their intervals by time window and
// tag.
func Merge(inputs []Input, opts Options) (*Result, error) {
	if len(inputs) == 0 {
		return nil, errors.New("merge: no interval logs")
	}
	if opts.Window <= 0 {
		opts.Window = time.Second
	}
	if opts.Late <= 0 {
		opts.Late = 2 * opts.Window
	}
	r := &Result{Totals: map[string]*hdrhistogram.Histogram{}, Window: opts.Window}
	all, err := r.read(inputs)
	if err != nil {
		return nil, err
	}
	base := r.Start
	if !opts.Start.IsZero() {
		base = opts.Start
	}
	r.window(all, base)
	for _, l := range r.Loaders {
		if d := l.First.Sub(r.Start); d > opts.Late {
			r.Flags = append(r.Flags, fmt.Sprintf("%s started %s after the first loader", l.Name, d.Round(time.Millisecond)))
		}
		if d := r.End.Sub(l.Last); d > opts.Late {
			r.Flags = append(r.Flags, fmt.Sprintf("%s stopped %s before the last loader", l.Name, d.Round(time.Millisecond)))
		}
	}
	return r, nil
}

// read reads every input's intervals, moved onto the common clock by
// its offset, and sets the loaders' spans and the merge's.
func (r *Result) read(inputs []Input) ([]interval, error) {
	var all []interval
	runs := map[string]string{} // run or trial id -> the first input of it
	anonymous := 0              // logs that name no run
	for i, in := range inputs {
		name := in.Name
		if name == "" {
			name = in.Path
		}
		ivs, comment, err := readLog(in.Path)
		if err != nil {
			return nil, fmt.Errorf("merge: %s: %w", name, err)
		}
		switch id := runOf(comment); {
		case id == "":
			anonymous++
		case runs[id] == "":
			runs[id] = name
		}
		if len(ivs) == 0 {
			return nil, fmt.Errorf("merge: %s: no intervals: the loader measured nothing", name)
		}
		l := Loader{Name: name, Offset: in.Offset, Counts: map[string]int64{}}
		for _, iv := range ivs {
			iv.Start = iv.Start.Add(-in.Offset)
			end := iv.Start.Add(iv.Length)
			if l.Intervals == 0 || iv.Start.Before(l.First) {
				l.First = iv.Start
			}
			if end.After(l.Last) {
				l.Last = end
			}
			l.Intervals++
			l.Counts[iv.Tag] = saturatingAdd(l.Counts[iv.Tag], iv.Histogram.TotalCount())
			all = append(all, interval{loader: i, iv: iv})
		}
		r.Loaders = append(r.Loaders, l)
	}
	if err := oneRun(runs); err != nil {
		return nil, err
	}
	if anonymous > 0 {
		if err := together(r.Loaders); err != nil {
			return nil, err
		}
	}
	r.Start, r.End = r.Loaders[0].First, r.Loaders[0].Last
	for _, l := range r.Loaders[1:] {
		if l.First.Before(r.Start) {
			r.Start = l.First
		}
		if l.Last.After(r.End) {
			r.End = l.Last
		}
	}
	return all, nil
}

// window adds every interval into the window (of r.Window from base)
// holding its midpoint and into its tag's total, and lists the windows
// in time order, tags sorted within each.
func (r *Result) window(all []interval, base time.Time) {
	windows := map[int64]map[string]*hdrhistogram.PackedHistogram{}
	proto := measure.NewHistogram()
	var dropped int64
	for _, x := range all {
		// An interval belongs to the window holding its midpoint: a
		// loader's one-second intervals are offset from another's by a
		// fraction of a second, and each lands in exactly one window.
		mid := x.iv.Start.Add(x.iv.Length / 2)
		k := int64(mid.Sub(base) / r.Window)
		if mid.Before(base) {
			k--
		}
		byTag := windows[k]
		if byTag == nil {
			byTag = map[string]*hdrhistogram.PackedHistogram{}
			windows[k] = byTag
		}
		w := byTag[x.iv.Tag]
		if w == nil {
			w = hdrhistogram.NewPacked(proto.LowestTrackableValue(), proto.HighestTrackableValue(), int(proto.SignificantFigures()))
			byTag[x.iv.Tag] = w
		}
		dropped = saturatingAdd(dropped, w.Merge(x.iv.Histogram))
		total := r.Totals[x.iv.Tag]
		if total == nil {
			total = measure.NewHistogram()
			r.Totals[x.iv.Tag] = total
		}
		x.iv.Histogram.MergeInto(total)
	}
	if dropped > 0 {
		r.Flags = append(r.Flags, fmt.Sprintf("%d values outside %d ns to %s were left out", dropped, proto.LowestTrackableValue(), time.Duration(proto.HighestTrackableValue())))
	}
	keys := make([]int64, 0, len(windows))
	for k := range windows {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		tags := make([]string, 0, len(windows[k]))
		for t := range windows[k] {
			tags = append(tags, t)
		}
		sort.Strings(tags)
		for _, t := range tags {
			r.Windows = append(r.Windows, Window{Start: base.Add(time.Duration(k) * r.Window), Tag: t, Hist: windows[k][t]})
		}
	}
}

// saturatingAdd adds counts without wrapping: a decoded histogram may
// hold buckets whose sum passes math.MaxInt64.
func saturatingAdd(a, b int64) int64 {
	if b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}

// readLog reads a log's intervals and comment.
func readLog(path string) ([]hlog.Interval, string, error) {
	f, err := bounds.OpenRegular(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	rd := hlog.NewReader(f)
	var out []hlog.Interval
	for {
		iv, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out, rd.Comment(), nil
		}
		if err != nil {
			return nil, "", err
		}
		out = append(out, iv)
	}
}

// runOf reads the run a log belongs to from its comment: "run ID" in a
// loader's log (dbarena ycsb --run-id, which every loader of one run
// shares), "trial ID" in an experiment's (its hdr/ folder holds one log
// per trial). "" when the comment names neither: a log of another tool,
// or of a single process that was given no run id.
func runOf(comment string) string {
	for _, part := range strings.Split(comment, ";") {
		f := strings.Fields(part)
		switch {
		case len(f) >= 2 && f[0] == "run":
			return f[1]
		case len(f) >= 3 && f[0] == "dbarena" && f[1] == "trial":
			return f[2]
		}
	}
	return ""
}

// oneRun refuses logs of different runs or trials. Their sum is no
// result: a results directory's hdr/ folder holds a load and runs at
// other thread counts, which merged into one figure and exited 0.
func oneRun(runs map[string]string) error {
	if len(runs) < 2 {
		return nil
	}
	ids := make([]string, 0, len(runs))
	for id := range runs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	named := make([]string, len(ids))
	for i, id := range ids {
		named[i] = fmt.Sprintf("%s (%s)", id, runs[id])
	}
	return fmt.Errorf("merge: the logs come from %d different runs or trials: %s; merge the loaders of one run (they share a run id), not different trials",
		len(ids), strings.Join(named, ", "))
}

// together refuses logs that name no run unless they all measured at
// one moment: loaders of one run measure side by side, where two
// standalone runs made one after the other (a memory-driver run and a
// PostgreSQL run half a minute apart) merged into one figure of neither.
func together(loaders []Loader) error {
	latestFirst, earliestLast := loaders[0], loaders[0]
	for _, l := range loaders[1:] {
		if l.First.After(latestFirst.First) {
			latestFirst = l
		}
		if l.Last.Before(earliestLast.Last) {
			earliestLast = l
		}
	}
	if latestFirst.First.Before(earliestLast.Last) {
		return nil
	}
	return fmt.Errorf("merge: %s ended at %s, before %s began at %s: logs that name no run (no --run-id) must overlap in time, as the loaders of one run do; these look like separate runs",
		earliestLast.Name, earliestLast.Last.UTC().Format(time.RFC3339Nano), latestFirst.Name, latestFirst.First.UTC().Format(time.RFC3339Nano))
}

// WriteLog writes the merged windows as one interval log, readable by
// HdrHistogram's own tools.
func (r *Result) WriteLog(w io.Writer, comment string) error {
	hw, err := hlog.NewWriter(w, r.Start, comment)
	if err != nil {
		return err
	}
	dense := measure.NewHistogram()
	for _, win := range r.Windows {
		dense.Reset()
		win.Hist.MergeInto(dense)
		if err := hw.WriteInterval(win.Tag, win.Start, win.Start.Add(r.Window), dense); err != nil {
			return err
		}
	}
	return nil
}

// Op is one tag's merged summary.
type Op struct {
	Tag        string
	Throughput float64
	measure.Stats
}

// Summary is each tag's count, throughput over the merged span and
// latency percentiles (microseconds), tags sorted.
func (r *Result) Summary() []Op {
	tags := make([]string, 0, len(r.Totals))
	for t := range r.Totals {
		tags = append(tags, t)
	}
	sort.Strings(tags)
	span := r.End.Sub(r.Start).Seconds()
	out := make([]Op, 0, len(tags))
	for _, t := range tags {
		op := Op{Tag: t, Stats: measure.StatsOf(r.Totals[t])}
		if span > 0 {
			op.Throughput = float64(op.Count) / span
		}
		out = append(out, op)
	}
	return out
}
