// Package live serves a run's figures while it runs, in Prometheus' text
// exposition format (version 0.0.4) at /metrics, every name prefixed
// dbarena_ and every family with its HELP and TYPE:
//
//	dbarena_operations_total{...,op,class}      counter: completed operations
//	                                            by type and outcome (class OK
//	                                            or the error class)
//	dbarena_operation_latency_seconds{...,op}   histogram of the successful
//	                                            ones' latency (response time
//	                                            when paced), 16 buckets a
//	                                            doubling
//	dbarena_warmup{...}                         1 while the trial warms up
//	dbarena_db_<counter>_total{...,metric}      the database's own counters,
//	                                            as it counts them
//	dbarena_db_<gauge>{...,metric}              its levels and the last
//	                                            second's ratios
//
// The database's series are in base units (seconds, bytes, ratios of
// 1), as Prometheus names them: a counter of milliseconds is served in
// seconds. Each carries its own name, without the prefix and _total, in
// a metric label as well: rate() drops a series' name, and a dashboard that
// draws every counter of a database would otherwise lose which is which.
//
// The trial's identity (trial, target, database, workload) labels every
// series of its operations. Figures come from the runner's intervals, so
// they move once a second, and every sample carries the time its
// interval ended as its timestamp: a Prometheus scraping every second
// stores each count at the moment it was true, so rates over a few
// seconds are exact instead of off by a whole interval (a 6-second rate
// read 5/6 of the true one without). The price is Prometheus' staleness
// rule: a trial's series stays "current" for five minutes after the run
// instead of ending with it; the endpoint drops it five minutes after its
// last interval.
package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbarena/dbarena/dbmetrics"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
)

// Prefix begins every metric name served.
const Prefix = "dbarena_"

// bounds are the latency histogram's bucket upper bounds in seconds:
// 2^(k/16), sixteen a doubling, from about 7.6 µs (2^-17 s) to 64 s. A
// bucket spans 4.4% of its bound, and histogram_quantile interpolates
// inside one, so a quantile Prometheus computes is within that of the
// run's own: eight a doubling put a p99 of 288 µs at 301 (4.5%), the
// 1-2.5-5 steps before them one of 306 µs at about 450.
var bounds = func() []float64 {
	var b []float64
	for k := -17 * bucketsPerDoubling; k <= 6*bucketsPerDoubling; k++ {
		b = append(b, math.Exp2(float64(k)/bucketsPerDoubling))
	}
	return b
}()

// bucketsPerDoubling is the latency histogram's resolution.
const bucketsPerDoubling = 16

// Labels identify a trial's series.
type Labels struct {
	Trial, Target, Database, Workload string
}

// Exporter keeps the figures served. Its methods are safe for concurrent
// use.
type Exporter struct {
	// started numbers the scrapes as they begin; done is the highest
	// number of one that has been served: Server.Drain waits for one
	// begun after it was called.
	started, done atomic.Int64

	mu     sync.Mutex
	ops    map[opKey]*opSeries
	warmup map[Labels]stamped
	db     map[dbKey]dbValue
}

// dbValue is one database series' last row.
type dbValue struct {
	v    float64
	at   time.Time
	kind results.DBMetricKind
}

// stamped is a gauge's value and when it was read.
type stamped struct {
	v  float64
	at time.Time
}

type opKey struct {
	Labels
	op string
}

// opSeries is one operation type's counts of a trial, cumulative.
type opSeries struct {
	// at is when the last interval added ended: every sample carries
	// it as its timestamp.
	at      time.Time
	classes map[string]int64
	buckets []int64 // per bound, not cumulative; the last is +Inf
	sum     float64 // seconds
	count   int64
}

type dbKey struct{ target, database, host, metric string }

// New returns an empty exporter.
func New() *Exporter {
	return &Exporter{ops: map[opKey]*opSeries{}, warmup: map[Labels]stamped{}, db: map[dbKey]dbValue{}}
}

// Observer returns a runner.Observer that adds a trial's intervals to
// the exporter under l.
func (e *Exporter) Observer(l Labels) runner.Observer { return &observer{e: e, l: l} }

type observer struct {
	e *Exporter
	l Labels
}

// Interval adds one interval's operations.
func (o *observer) Interval(iv *runner.Interval) {
	e := o.e
	e.mu.Lock()
	defer e.mu.Unlock()
	w := 0.0
	if iv.Warmup && !iv.Final {
		w = 1
	}
	e.warmup[o.l] = stamped{w, iv.End}
	for i := range iv.Results {
		r := &iv.Results[i]
		ok := r.OK()
		if ok == 0 && r.ErrorCount() == 0 {
			continue
		}
		k := opKey{o.l, r.Name}
		s := e.ops[k]
		if s == nil {
			s = &opSeries{classes: map[string]int64{}, buckets: make([]int64, len(bounds)+1)}
			e.ops[k] = s
		}
		s.at = iv.End
		s.classes["OK"] += ok
		for class, n := range r.Errors {
			s.classes[class] += n
		}
		h := r.Latency()
		if ok == 0 || h == nil {
			continue
		}
		for _, bar := range h.Distribution() {
			if bar.Count == 0 {
				continue
			}
			sec := float64(bar.To) / 1e9
			s.buckets[sort.SearchFloat64s(bounds, sec)] += bar.Count
		}
		s.sum += h.Mean() * float64(h.TotalCount()) / 1e9
		s.count += h.TotalCount()
	}
}

// DBMetrics sets the database metrics of a target to one round's rows:
// a counter's rate row serves the counter's own reading, a gauge's and
// a ratio's their value.
func (e *Exporter) DBMetrics(target string, rows []results.DBMetric) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range rows {
		v := dbValue{r.Value, r.Time, r.Kind}
		metric := r.Metric
		if r.Kind == results.DBMetricRate {
			metric, v.v = strings.TrimSuffix(r.Metric, dbmetrics.RateSuffix), r.Counter
		}
		e.db[dbKey{target, r.Database, r.Host, metric}] = v
	}
}

// staleAfter is how long a trial's series stay served after its last
// interval: long enough for any scrape to see its last counts, short
// enough that Prometheus never receives samples older than its head
// block accepts (which it would log as out of bounds at every scrape of
// a long experiment).
const staleAfter = 5 * time.Minute

// forget drops the series whose last sample is older than staleAfter.
func (e *Exporter) forget(now time.Time) {
	for k, s := range e.ops {
		if now.Sub(s.at) > staleAfter {
			delete(e.ops, k)
		}
	}
	for l, w := range e.warmup {
		if now.Sub(w.at) > staleAfter {
			delete(e.warmup, l)
		}
	}
	for k, v := range e.db {
		if now.Sub(v.at) > staleAfter {
			delete(e.db, k)
		}
	}
}

// WriteTo writes the exposition.
func (e *Exporter) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	e.mu.Lock()
	e.forget(time.Now())
	e.writeOps(&b)
	e.writeDB(&b)
	e.mu.Unlock()
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

func (e *Exporter) writeOps(b *strings.Builder) {
	keys := make([]opKey, 0, len(e.ops))
	for k := range e.ops {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keyString(keys[i]) < keyString(keys[j]) })
	if len(keys) > 0 {
		b.WriteString("# HELP dbarena_operations_total Completed operations by type and outcome (class OK or the error class).\n")
		b.WriteString("# TYPE dbarena_operations_total counter\n")
	}
	for _, k := range keys {
		s := e.ops[k]
		for _, c := range slices.Sorted(maps.Keys(s.classes)) {
			fmt.Fprintf(b, "dbarena_operations_total{%s,op=%s,class=%s} %d %d\n", trialLabels(k.Labels), quote(k.op), quote(c), s.classes[c], ms(s.at))
		}
	}
	if len(keys) > 0 {
		b.WriteString("# HELP dbarena_operation_latency_seconds Latency of successful operations (response time when paced).\n")
		b.WriteString("# TYPE dbarena_operation_latency_seconds histogram\n")
	}
	for _, k := range keys {
		s := e.ops[k]
		labels := trialLabels(k.Labels) + ",op=" + quote(k.op)
		var cum int64
		for i, le := range bounds {
			cum += s.buckets[i]
			fmt.Fprintf(b, "dbarena_operation_latency_seconds_bucket{%s,le=%q} %d %d\n", labels, strconv.FormatFloat(le, 'g', -1, 64), cum, ms(s.at))
		}
		fmt.Fprintf(b, "dbarena_operation_latency_seconds_bucket{%s,le=\"+Inf\"} %d %d\n", labels, s.count, ms(s.at))
		fmt.Fprintf(b, "dbarena_operation_latency_seconds_sum{%s} %s %d\n", labels, strconv.FormatFloat(s.sum, 'g', -1, 64), ms(s.at))
		fmt.Fprintf(b, "dbarena_operation_latency_seconds_count{%s} %d %d\n", labels, s.count, ms(s.at))
	}
	trials := make([]Labels, 0, len(e.warmup))
	for l := range e.warmup {
		trials = append(trials, l)
	}
	sort.Slice(trials, func(i, j int) bool { return trialLabels(trials[i]) < trialLabels(trials[j]) })
	if len(trials) > 0 {
		b.WriteString("# HELP dbarena_warmup 1 while the trial warms up (its operations are not measured), else 0.\n")
		b.WriteString("# TYPE dbarena_warmup gauge\n")
	}
	for _, l := range trials {
		w := e.warmup[l]
		fmt.Fprintf(b, "dbarena_warmup{%s} %g %d\n", trialLabels(l), w.v, ms(w.at))
	}
}

func (e *Exporter) writeDB(b *strings.Builder) {
	type served struct {
		k    dbKey
		name string
		v    float64
		at   time.Time
		kind results.DBMetricKind
	}
	var all []served
	for k, v := range e.db {
		name, scale := promName(k.metric, v.kind)
		all = append(all, served{k, name, v.v * scale, v.at, v.kind})
	}
	sort.Slice(all, func(i, j int) bool {
		a, c := all[i], all[j]
		return a.name+"\x00"+a.k.target+"\x00"+a.k.host < c.name+"\x00"+c.k.target+"\x00"+c.k.host
	})
	last := ""
	for _, s := range all {
		if s.name != last {
			typ := "gauge"
			if s.kind == results.DBMetricRate {
				typ = "counter"
			}
			fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s %s\n", s.name, dbHelp(s.k, s.kind), s.name, typ)
			last = s.name
		}
		label := strings.TrimSuffix(strings.TrimPrefix(s.name, Prefix+"db_"), "_total")
		fmt.Fprintf(b, "%s{target=%s,database=%s,host=%s,metric=%s} %s %d\n", s.name, quote(s.k.target), quote(s.k.database), quote(s.k.host),
			quote(label), strconv.FormatFloat(s.v, 'g', -1, 64), ms(s.at))
	}
}

// unitSuffixes turn a database metric's unit into Prometheus' base
// unit: the name's ending and what the value is multiplied by.
var unitSuffixes = []struct {
	from, to string
	scale    float64
}{
	{"_ms", "_seconds", 1e-3},
	{"_mebibytes", "_bytes", 1 << 20},
	{"_percent", "_ratio", 1e-2},
}

// promName is the name a database metric is served under, in base
// units, a counter's ending in _total, and the factor to its values.
func promName(metric string, kind results.DBMetricKind) (string, float64) {
	scale := 1.0
	for _, u := range unitSuffixes {
		if strings.HasSuffix(metric, u.from) {
			metric, scale = strings.TrimSuffix(metric, u.from)+u.to, u.scale
			break
		}
	}
	name := Prefix + "db_" + sanitize(metric)
	if kind == results.DBMetricRate && !strings.HasSuffix(name, "_total") {
		name += "_total"
	}
	return name, scale
}

// sanitize keeps a name within Prometheus' alphabet: letters, digits,
// underscores and colons (a wait event's name may hold others).
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == ':' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

// dbHelp says what a database series is: its words, whose, and how it
// is read.
func dbHelp(k dbKey, kind results.DBMetricKind) string {
	words := strings.ReplaceAll(k.metric, "_", " ")
	switch kind {
	case results.DBMetricRate:
		return fmt.Sprintf("%s (%s): the database's own counter as it reports it, read every second, in base units.", words, k.database)
	case results.DBMetricRatio:
		return fmt.Sprintf("%s (%s): a fraction of 1 over the last second's counts.", words, k.database)
	}
	return fmt.Sprintf("%s (%s): the database's own level as read every second, in base units.", words, k.database)
}

// ms is a sample's timestamp: milliseconds since the Unix epoch.
func ms(t time.Time) int64 { return t.UnixMilli() }

func keyString(k opKey) string { return trialLabels(k.Labels) + "\x00" + k.op }

func trialLabels(l Labels) string {
	return "trial=" + quote(l.Trial) + ",target=" + quote(l.Target) + ",database=" + quote(l.Database) + ",workload=" + quote(l.Workload)
}

// labelEscaper escapes a label value as the text format wants:
// backslash, double quote and newline.
var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// quote writes a label value, quoted and escaped.
func quote(s string) string { return `"` + labelEscaper.Replace(s) + `"` }

// ServeHTTP serves the exposition at any path.
func (e *Exporter) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	n := e.started.Add(1)
	_, _ = e.WriteTo(w)
	for {
		d := e.done.Load()
		if d >= n || e.done.CompareAndSwap(d, n) {
			return
		}
	}
}

// Server serves an exporter over HTTP.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	e    *Exporter
	done chan struct{}
}

// Listen serves e at addr: HOST:PORT, or a bare PORT (or :PORT), which
// listens on loopback only: a live endpoint names the databases and
// their figures, and is not for the network unless asked.
func Listen(addr string, e *Exporter, log *slog.Logger) (*Server, error) {
	hostPort := addr
	if _, err := strconv.Atoi(strings.TrimPrefix(addr, ":")); err == nil {
		hostPort = net.JoinHostPort("127.0.0.1", strings.TrimPrefix(addr, ":"))
	}
	_, port, err := net.SplitHostPort(hostPort)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr %q: want HOST:PORT or a port: %w", addr, err)
	}
	// A port out of range is a mistake in the address, not a port
	// this machine could not give (which a ListenError is).
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return nil, fmt.Errorf("--metrics-addr %q: want HOST:PORT or a port, the port from 0 to 65535 (0: any free one)", addr)
	}
	ln, err := net.Listen("tcp", hostPort)
	if err != nil {
		return nil, &ListenError{fmt.Errorf("--metrics-addr %s: %w", addr, err)}
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", e)
	s := &Server{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}, ln: ln, e: e, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) && log != nil {
			log.Warn("live metrics endpoint stopped", "err", err)
		}
	}()
	return s, nil
}

// ListenError is an address that could not be listened on (taken, not
// this machine's), as opposed to one that is not an address.
type ListenError struct{ err error }

func (e *ListenError) Error() string { return e.err.Error() }
func (e *ListenError) Unwrap() error { return e.err }

// Addr is the address served, as host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Drain waits, when the endpoint has been scraped, for one more scrape,
// at most max: the last interval's counts came after the last scrape,
// and a run's end would otherwise take them away unseen (scraped every
// 0.1 s, the last page before it closed held 18,006 of a run's 20,000
// operations). It reports whether it waited, and whether the scrape
// came. An endpoint nobody scraped returns at once.
func (s *Server) Drain(max time.Duration) (waited, scraped bool) {
	n := s.e.started.Load()
	if n == 0 {
		return false, false
	}
	// A scrape under way began before the last counts: the one that
	// takes them begins after this.
	deadline := time.Now().Add(max)
	for s.e.done.Load() <= n {
		if !time.Now().Before(deadline) {
			return true, false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true, true
}

// Close stops serving, after letting a scrape in progress finish (at
// most a second).
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	<-s.done
	return err
}
