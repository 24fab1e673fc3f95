package results

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// column is one CSV column: its header and how a row's value is written
// and read back. One table per file serves writer and reader alike, so
// the two cannot drift.
type column[T any] struct {
	name string
	get  func(*T) string
	set  func(*T, string) error
}

func header[T any](cols []column[T]) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.name
	}
	return out
}

func formatRow[T any](cols []column[T], v *T) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.get(v)
	}
	return out
}

// timeLayout keeps sub-second precision so rows sort and align exactly.
const timeLayout = time.RFC3339Nano

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeLayout)
}

func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(timeLayout, s)
}

// fmtFloat writes NaN as an empty cell: a spreadsheet reads it as missing.
func fmtFloat(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func parseFloat(s string) (float64, error) {
	if s == "" {
		return math.NaN(), nil
	}
	return strconv.ParseFloat(s, 64)
}

func fmtInt(v int64) string { return strconv.FormatInt(v, 10) }

func parseInt(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	return strconv.ParseInt(s, 10, 64)
}

func strCol[T any](name string, f func(*T) *string) column[T] {
	return column[T]{name,
		func(v *T) string { return *f(v) },
		func(v *T, s string) error { *f(v) = s; return nil }}
}

// nameCol is a column of a name that also names files (a trial's ID:
// hdr/ID.hlog): a control character in it is refused on reading.
func nameCol[T any](name string, f func(*T) *string) column[T] {
	return column[T]{name,
		func(v *T) string { return *f(v) },
		func(v *T, s string) error {
			if i := strings.IndexFunc(s, unicode.IsControl); i >= 0 {
				return fmt.Errorf("%q: a control character at byte %d; want a name as dbarena writes it", s, i)
			}
			*f(v) = s
			return nil
		}}
}

// maxFigure bounds every figure read back: no rate, latency in µs,
// byte count or percentage dbarena writes comes near it, and a value
// past it (a trials.csv edited to 1e308 ops/s printed
// "-9,223,372,036,854,775,808 ops/s") is not a measurement.
const maxFigure = 1e15

// floatCol is a column of a figure from 0 to maxFigure, or empty (NaN);
// anything else is refused on reading, naming the value and the range.
func floatCol[T any](name string, f func(*T) *float64) column[T] {
	return checkedFloatCol(name, f, func(x float64) bool { return x >= 0 && x <= maxFigure },
		fmt.Sprintf("a figure from 0 to %g", maxFigure))
}

// signedFloatCol is a column of any finite value, or empty (NaN): a
// database's own metric may be negative.
func signedFloatCol[T any](name string, f func(*T) *float64) column[T] {
	return checkedFloatCol(name, f, func(x float64) bool { return !math.IsInf(x, 0) }, "a finite value")
}

// checkedFloatCol is a column of values ok accepts, or empty (NaN); a
// value it refuses is an error that says want.
func checkedFloatCol[T any](name string, f func(*T) *float64, ok func(float64) bool, want string) column[T] {
	return column[T]{name,
		func(v *T) string { return fmtFloat(*f(v)) },
		func(v *T, s string) error {
			x, err := parseFloat(s)
			if err != nil {
				return err
			}
			if !math.IsNaN(x) && !ok(x) {
				return fmt.Errorf("%s: want %s, or empty", s, want)
			}
			*f(v) = x
			return nil
		}}
}

// int64Col is a column of a count: from 0 up.
func int64Col[T any](name string, f func(*T) *int64) column[T] {
	return column[T]{name,
		func(v *T) string { return fmtInt(*f(v)) },
		func(v *T, s string) error {
			n, err := parseInt(s)
			if err != nil {
				return err
			}
			if n < 0 {
				return fmt.Errorf("%s: want a count, 0 or more", s)
			}
			*f(v) = n
			return nil
		}}
}

func intCol[T any](name string, f func(*T) *int) column[T] {
	return column[T]{name,
		func(v *T) string { return strconv.Itoa(*f(v)) },
		func(v *T, s string) error { n, err := parseInt(s); *f(v) = int(n); return err }}
}

func timeCol[T any](name string, f func(*T) *time.Time) column[T] {
	return column[T]{name,
		func(v *T) string { return fmtTime(*f(v)) },
		func(v *T, s string) (err error) { *f(v), err = parseTime(s); return err }}
}

// durationCol writes a duration in seconds.
func durationCol[T any](name string, f func(*T) *time.Duration) column[T] {
	return column[T]{name,
		func(v *T) string { return fmtFloat(f(v).Seconds()) },
		func(v *T, s string) error {
			x, err := parseFloat(s)
			if err != nil || math.IsNaN(x) {
				return err
			}
			// time.Duration holds about 292 years.
			if !(x >= 0 && x <= 9e9) {
				return fmt.Errorf("%s: want seconds from 0 to 9e9, or empty", s)
			}
			*f(v) = time.Duration(x * float64(time.Second))
			return nil
		}}
}

// pacingCols are the columns of a PacingLateness.
func pacingCols[T any](f func(*T) *PacingLateness) []column[T] {
	return []column[T]{
		floatCol("pacing_p50_us", func(v *T) *float64 { return &f(v).P50 }),
		floatCol("pacing_p99_us", func(v *T) *float64 { return &f(v).P99 }),
		floatCol("pacing_max_us", func(v *T) *float64 { return &f(v).Max }),
	}
}

// latencyField names one Latency figure and how to reach it.
type latencyField struct {
	name string
	get  func(*Latency) *float64
}

func latencyFields() []latencyField {
	return []latencyField{
		{"mean_us", func(l *Latency) *float64 { return &l.Mean }},
		{"p50_us", func(l *Latency) *float64 { return &l.P50 }},
		{"p90_us", func(l *Latency) *float64 { return &l.P90 }},
		{"p95_us", func(l *Latency) *float64 { return &l.P95 }},
		{"p99_us", func(l *Latency) *float64 { return &l.P99 }},
		{"p999_us", func(l *Latency) *float64 { return &l.P999 }},
		{"max_us", func(l *Latency) *float64 { return &l.Max }},
	}
}

// latencyCols are the latency columns of a row's Latency.
func latencyCols[T any](f func(*T) *Latency) []column[T] {
	var out []column[T]
	for _, fd := range latencyFields() {
		out = append(out, floatCol(fd.name, func(v *T) *float64 { return fd.get(f(v)) }))
	}
	return out
}

// FormatParams writes a matrix point as "k=v;k=v", as trials.csv's
// params column holds it.
func FormatParams(ps []Param) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Key + "=" + p.Value
	}
	return strings.Join(parts, ";")
}

func parseParams(s string) ([]Param, error) {
	if s == "" {
		return nil, nil
	}
	var out []Param
	for _, part := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("parameter %q: want key=value", part)
		}
		out = append(out, Param{Key: k, Value: v})
	}
	return out, nil
}

// opColumnPrefix turns "READ-MODIFY-WRITE" into "read_modify_write_".
func opColumnPrefix(op string) string {
	return strings.ReplaceAll(strings.ToLower(op), "-", "_") + "_"
}

// findOp returns the trial's entry for op, or nil.
func findOp(t *Trial, op string) *Op {
	for i := range t.Ops {
		if t.Ops[i].Name == op {
			return &t.Ops[i]
		}
	}
	return nil
}

// opFor returns the trial's entry for op, adding it when missing.
func opFor(t *Trial, op string) *Op {
	if o := findOp(t, op); o != nil {
		return o
	}
	t.Ops = append(t.Ops, Op{Name: op})
	return &t.Ops[len(t.Ops)-1]
}

// opCol is a column of one operation type's figures. A trial that did
// not run op leaves the cell empty rather than reading as zero latency,
// and an empty cell adds nothing when read back.
func opCol(op, name string, get func(*Op) string, set func(*Op, string) error) column[Trial] {
	return column[Trial]{opColumnPrefix(op) + name,
		func(t *Trial) string {
			if o := findOp(t, op); o != nil {
				return get(o)
			}
			return ""
		},
		func(t *Trial, s string) error {
			if s == "" {
				return nil
			}
			return set(opFor(t, op), s)
		}}
}

func trialOpCols(op string) []column[Trial] {
	cols := []column[Trial]{
		opCol(op, "ops", func(o *Op) string { return fmtInt(o.Operations) },
			func(o *Op, s string) (err error) { o.Operations, err = parseInt(s); return err }),
		opCol(op, "errors", func(o *Op) string { return fmtInt(o.Errors) },
			func(o *Op, s string) (err error) { o.Errors, err = parseInt(s); return err }),
	}
	for _, fd := range latencyFields() {
		cols = append(cols, opCol(op, fd.name, func(o *Op) string { return fmtFloat(*fd.get(&o.Latency)) },
			func(o *Op, s string) (err error) { *fd.get(&o.Latency), err = parseFloat(s); return err }))
	}
	return cols
}

func trialColumns() []column[Trial] {
	cols := []column[Trial]{
		nameCol("id", func(t *Trial) *string { return &t.ID }),
		intCol("index", func(t *Trial) *int { return &t.Index }),
		strCol("kind", func(t *Trial) *string { return &t.Kind }),
		strCol("target", func(t *Trial) *string { return &t.Target }),
		strCol("database", func(t *Trial) *string { return &t.Database }),
		strCol("driver", func(t *Trial) *string { return &t.Driver }),
		strCol("workload", func(t *Trial) *string { return &t.Workload }),
		{"params", func(t *Trial) string { return FormatParams(t.Params) },
			func(t *Trial, s string) (err error) { t.Params, err = parseParams(s); return err }},
		intCol("repetition", func(t *Trial) *int { return &t.Repetition }),
		intCol("threads", func(t *Trial) *int { return &t.Threads }),
		floatCol("target_ops_sec", func(t *Trial) *float64 { return &t.TargetRate }),
		timeCol("start", func(t *Trial) *time.Time { return &t.Start }),
		timeCol("end", func(t *Trial) *time.Time { return &t.End }),
		durationCol("duration_s", func(t *Trial) *time.Duration { return &t.Duration }),
		int64Col("operations", func(t *Trial) *int64 { return &t.Operations }),
		int64Col("errors", func(t *Trial) *int64 { return &t.Errors }),
		int64Col("aborted", func(t *Trial) *int64 { return &t.Aborted }),
		floatCol("throughput_ops_sec", func(t *Trial) *float64 { return &t.Throughput }),
		floatCol("errors_per_sec", func(t *Trial) *float64 { return &t.ErrorRate }),
	}
	cols = append(cols, pacingCols(func(t *Trial) *PacingLateness { return &t.Pacing })...)
	cols = append(cols, int64Col("late", func(t *Trial) *int64 { return &t.Late }))
	cols = append(cols, latencyCols(func(t *Trial) *Latency { return &t.Latency })...)
	for _, op := range OpNames() {
		cols = append(cols, trialOpCols(op)...)
	}
	cols = append(cols,
		floatCol("loader_cpu_pct", func(t *Trial) *float64 { return &t.LoaderCPU }),
		floatCol("loader_cpu_max_pct", func(t *Trial) *float64 { return &t.LoaderCPUMax }),
		intCol("loader_cpus", func(t *Trial) *int { return &t.LoaderCPUs }),
		floatCol("concurrency", func(t *Trial) *float64 { return &t.Concurrency }),
		// Flags are sentences that may hold "; " and ", " themselves:
		// one per line keeps them apart (CSV quotes the cell).
		column[Trial]{"flags", func(t *Trial) string { return joinFlags(t.Flags) },
			func(t *Trial, s string) error {
				if s != "" {
					for _, f := range strings.Split(s, "\n") {
						t.Flags = append(t.Flags, Flag(f))
					}
				}
				return nil
			}},
		strCol("status", func(t *Trial) *string { return &t.Status }),
		strCol("status_reason", func(t *Trial) *string { return &t.StatusReason }),
		// Counters and figures as name=value, one per line, names sorted.
		figuresCol("driver_counters", func(t *Trial) *map[string]float64 { return &t.Counters }),
		figuresCol("db_figures", func(t *Trial) *map[string]float64 { return &t.DBFigures }),
		strCol("bottleneck", func(t *Trial) *string { return &t.Bottleneck }),
		strCol("bottleneck_evidence", func(t *Trial) *string { return &t.BottleneckWhy }),
		strCol("reference_tool", func(t *Trial) *string { return &t.Reference.Tool }),
		strCol("reference_command", func(t *Trial) *string { return &t.Reference.Command }),
		floatCol("reference_ops_sec", func(t *Trial) *float64 { return &t.Reference.Throughput }),
		floatCol("reference_latency_mean_us", func(t *Trial) *float64 { return &t.Reference.MeanLatency }),
		strCol("reference_note", func(t *Trial) *string { return &t.Reference.Note }),
	)
	return cols
}

func pointColumns() []column[Point] {
	cols := []column[Point]{
		strCol("trial", func(p *Point) *string { return &p.Trial }),
		timeCol("time", func(p *Point) *time.Time { return &p.Time }),
		durationCol("elapsed_s", func(p *Point) *time.Duration { return &p.Elapsed }),
		{"warmup", func(p *Point) string { return strconv.FormatBool(p.Warmup) },
			func(p *Point, s string) (err error) { p.Warmup, err = strconv.ParseBool(s); return err }},
		durationCol("interval_s", func(p *Point) *time.Duration { return &p.Length }),
		strCol("op", func(p *Point) *string { return &p.Op }),
		int64Col("ops", func(p *Point) *int64 { return &p.Ops }),
		floatCol("ops_sec", func(p *Point) *float64 { return &p.Rate }),
		int64Col("errors", func(p *Point) *int64 { return &p.Errors }),
		floatCol("errors_per_sec", func(p *Point) *float64 { return &p.ErrorRate }),
		int64Col("aborted", func(p *Point) *int64 { return &p.Aborted }),
	}
	cols = append(cols, latencyCols(func(p *Point) *Latency { return &p.Latency })...)
	cols = append(cols, pacingCols(func(p *Point) *PacingLateness { return &p.Pacing })...)
	return append(cols, intCol("stage", func(p *Point) *int { return &p.Stage }))
}

func sysColumns() []column[Sys] {
	return []column[Sys]{
		timeCol("time", func(s *Sys) *time.Time { return &s.Time }),
		strCol("trial", func(s *Sys) *string { return &s.Trial }),
		strCol("host", func(s *Sys) *string { return &s.Host }),
		strCol("role", func(s *Sys) *string { return &s.Role }),
		floatCol("cpu_pct", func(s *Sys) *float64 { return &s.CPUPercent }),
		floatCol("memory_bytes", func(s *Sys) *float64 { return &s.MemoryBytes }),
		floatCol("disk_read_bytes_sec", func(s *Sys) *float64 { return &s.DiskReadBps }),
		floatCol("disk_write_bytes_sec", func(s *Sys) *float64 { return &s.DiskWriteBps }),
		floatCol("disk_read_iops", func(s *Sys) *float64 { return &s.DiskReadIOPS }),
		floatCol("disk_write_iops", func(s *Sys) *float64 { return &s.DiskWriteIOPS }),
		floatCol("disk_busy_pct", func(s *Sys) *float64 { return &s.DiskBusyPercent }),
		floatCol("net_rx_bytes_sec", func(s *Sys) *float64 { return &s.NetRxBps }),
		floatCol("net_tx_bytes_sec", func(s *Sys) *float64 { return &s.NetTxBps }),
		strCol("net_link", func(s *Sys) *string { return &s.NetLink }),
		floatCol("net_link_bytes_sec", func(s *Sys) *float64 { return &s.NetLinkBps }),
		floatCol("net_link_capacity_bytes_sec", func(s *Sys) *float64 { return &s.NetLinkCapacityBps }),
		floatCol("lead_thread_pct", func(s *Sys) *float64 { return &s.LeadThreadPercent }),
		floatCol(pageCacheColumn, func(s *Sys) *float64 { return &s.PageCacheWriteBps }),
		coresCol("core_busy_pct", func(s *Sys) *map[int]float64 { return &s.CoreBusyPercent }),
		coresCol("core_steal_pct", func(s *Sys) *map[int]float64 { return &s.CoreStealPercent }),
	}
}

// coresCol is a column of per-core figures: "0:95.2 1:40.1", cores in
// order; empty for none.
func coresCol[T any](name string, field func(*T) *map[int]float64) column[T] {
	return column[T]{name, func(v *T) string { return formatCores(*field(v)) },
		func(v *T, s string) error { return parseCores(field(v), s) }}
}

func formatCores(m map[int]float64) string {
	cores := make([]int, 0, len(m))
	for c := range m {
		cores = append(cores, c)
	}
	sort.Ints(cores)
	parts := make([]string, len(cores))
	for i, c := range cores {
		parts[i] = strconv.Itoa(c) + ":" + strconv.FormatFloat(m[c], 'f', 1, 64)
	}
	return strings.Join(parts, " ")
}

func parseCores(m *map[int]float64, s string) error {
	if s == "" {
		return nil
	}
	out := map[int]float64{}
	for _, f := range strings.Fields(s) {
		c, v, ok := strings.Cut(f, ":")
		n, err := strconv.Atoi(c)
		if !ok || err != nil || n < 0 {
			return fmt.Errorf("%q: want core:percent", f)
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) {
			return fmt.Errorf("%q: want core:percent", f)
		}
		out[n] = x
	}
	*m = out
	return nil
}

// pageCacheColumn is the column of Sys.PageCacheWriteBps; a sysmetrics.csv
// without it was written before it existed (see fromOldSysmetrics).
const pageCacheColumn = "pagecache_write_bytes_sec"

// figuresCol is a column of named figures: name=value lines, names
// sorted.
func figuresCol[T any](name string, field func(*T) *map[string]float64) column[T] {
	return column[T]{name, func(v *T) string { return formatFigures(*field(v)) },
		func(v *T, s string) error { return parseFigures(field(v), s) }}
}

func formatFigures(figures map[string]float64) string {
	names := make([]string, 0, len(figures))
	for k := range figures {
		names = append(names, k)
	}
	sort.Strings(names)
	lines := make([]string, len(names))
	for i, k := range names {
		lines[i] = k + "=" + fmtFloat(figures[k])
	}
	return strings.Join(lines, "\n")
}

func parseFigures(figures *map[string]float64, s string) error {
	if s == "" {
		return nil
	}
	*figures = map[string]float64{}
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return fmt.Errorf("%q: want name=value", line)
		}
		x, err := parseFloat(v)
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		(*figures)[k] = x
	}
	return nil
}

func dbMetricColumns() []column[DBMetric] {
	return []column[DBMetric]{
		timeCol("time", func(m *DBMetric) *time.Time { return &m.Time }),
		strCol("trial", func(m *DBMetric) *string { return &m.Trial }),
		strCol("host", func(m *DBMetric) *string { return &m.Host }),
		strCol("database", func(m *DBMetric) *string { return &m.Database }),
		strCol("metric", func(m *DBMetric) *string { return &m.Metric }),
		signedFloatCol("value", func(m *DBMetric) *float64 { return &m.Value }),
	}
}
