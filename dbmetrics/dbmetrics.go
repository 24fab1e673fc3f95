// Package dbmetrics samples databases' own metrics while an experiment
// runs: once per interval it reads every database through its driver's
// driver.MetricsReader (on a connection of its own, not the workers'),
// turns counters into per-second rates, computes ratios of the same
// interval, and hands the rows to a sink (the experiment writes them to
// dbmetrics.csv). It also keeps each ratio's parts, so that a trial's
// figure over its measured window is the sum of parts over the sum of
// wholes rather than a mean of per-second ratios.
//
// A database that does not answer a metric query is reported once per
// distinct error and sampled again the next interval: metrics never stop
// a run.
package dbmetrics

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/results"
)

// RateSuffix ends the name of a counter's per-second figure.
const RateSuffix = "_per_s"

// Sampler reads its sources once per interval. Its methods are safe for
// concurrent use.
type Sampler struct {
	interval time.Duration
	sink     func([]results.DBMetric)
	// Logger receives the one warning per distinct error of a source.
	Logger *slog.Logger

	mu      sync.Mutex
	sources map[string]*source
	cancel  context.CancelFunc
	done    chan struct{}
}

// New returns a sampler that reads every interval and passes each
// round's rows to sink, from its own goroutine.
func New(interval time.Duration, sink func([]results.DBMetric)) *Sampler {
	return &Sampler{interval: interval, sink: sink, sources: map[string]*source{}}
}

// Add starts sampling r under name (replacing a source of that name).
// Rows carry host (unless a metric names its own) and database.
func (s *Sampler) Add(name, host, database string, r driver.MetricsReader) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sources[name] = &source{host: host, database: database, r: r, prev: map[key]reading{},
		warned: map[string]bool{}, ratios: map[string]*ratioLog{}}
}

// Remove stops sampling name, waiting for a reading of it in progress:
// once it returns, the reader is not called again and may be closed.
// Its ratio logs go with it: read the figures first.
func (s *Sampler) Remove(name string) {
	s.mu.Lock()
	src := s.sources[name]
	delete(s.sources, name)
	s.mu.Unlock()
	if src != nil {
		src.reading.Lock()
		src.removed = true
		src.reading.Unlock()
	}
}

// Pause stops reading name until Resume, waiting for a reading in
// progress: the database is about to be stopped, and a query would wait
// on it.
func (s *Sampler) Pause(name string) { s.setPaused(name, true) }

// Resume reads name again. Its counters start afresh: a rate over the
// pause would read a stopped database's standstill as its own.
func (s *Sampler) Resume(name string) { s.setPaused(name, false) }

func (s *Sampler) setPaused(name string, paused bool) {
	s.mu.Lock()
	src := s.sources[name]
	s.mu.Unlock()
	if src == nil {
		return
	}
	src.reading.Lock()
	defer src.reading.Unlock()
	if src.paused && !paused {
		s.mu.Lock()
		src.prev = map[key]reading{}
		s.mu.Unlock()
	}
	src.paused = paused
}

// Reattach reads name through r from now on, keeping what was read
// before: a paused database's connection was closed, and a new one takes
// its place. Its counters start afresh. It reports false when there is
// no such source.
func (s *Sampler) Reattach(name string, r driver.MetricsReader) bool {
	s.mu.Lock()
	src := s.sources[name]
	s.mu.Unlock()
	if src == nil {
		return false
	}
	src.reading.Lock()
	defer src.reading.Unlock()
	s.mu.Lock()
	src.r, src.prev = r, map[key]reading{}
	s.mu.Unlock()
	src.paused = false
	return true
}

// Start samples until Stop or ctx ends.
func (s *Sampler) Start(ctx context.Context) {
	ctx, s.cancel = context.WithCancel(ctx)
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		t := time.NewTicker(s.interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				s.Round(ctx)
			}
		}
	}()
}

// Stop ends sampling and waits for a round in progress.
func (s *Sampler) Stop() {
	if s.cancel == nil {
		return
	}
	s.cancel()
	<-s.done
}

// Round reads every source once and passes the rows to the sink. Start
// calls it every interval; a test may call it itself.
func (s *Sampler) Round(ctx context.Context) {
	s.mu.Lock()
	names := make([]string, 0, len(s.sources))
	for name := range s.sources {
		names = append(names, name)
	}
	s.mu.Unlock()
	sort.Strings(names)
	var rows []results.DBMetric
	for _, name := range names {
		s.mu.Lock()
		src := s.sources[name]
		s.mu.Unlock()
		if src == nil {
			continue
		}
		rows = append(rows, s.read(ctx, name, src)...)
	}
	if len(rows) > 0 && s.sink != nil {
		s.sink(rows)
	}
}

// maxWarned bounds the distinct errors reported per source: texts that
// vary (addresses, several nodes' errors joined) must not fill the log.
const maxWarned = 10

// read reads one source, bounded by the interval so that a database that
// hangs does not hold the others' rows, and reports a new error once. A
// reading is stamped at the middle of its query: a slow answer then
// shifts the rate's span by half its time, not all of it.
func (s *Sampler) read(ctx context.Context, name string, src *source) []results.DBMetric {
	src.reading.Lock()
	defer src.reading.Unlock()
	if src.removed || src.paused {
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, max(s.interval, time.Second))
	defer cancel()
	start := time.Now()
	ms, err := src.r.ReadMetrics(rctx)
	at := start.Add(time.Since(start) / 2)
	if err != nil && ctx.Err() == nil && s.Logger != nil {
		s.mu.Lock()
		first := !src.warned[err.Error()] && len(src.warned) < maxWarned
		if first {
			src.warned[err.Error()] = true
		}
		last := first && len(src.warned) == maxWarned
		s.mu.Unlock()
		if first {
			s.Logger.Warn("database metrics: a query failed; sampling goes on without what it would have read (reported once)",
				"source", name, "err", err)
		}
		if last {
			s.Logger.Warn("database metrics: further errors of this source are not reported", "source", name)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return src.next(at, ms)
}

// Figures returns the source's ratios over from..to: for each, the sum
// of its parts over the sum of its wholes across the intervals that
// ended in the window, all hosts together (a cluster's hit ratio). A
// ratio whose wholes sum to 0 is left out.
func (s *Sampler) Figures(name string, from, to time.Time) map[string]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	src := s.sources[name]
	if src == nil {
		return nil
	}
	out := map[string]float64{}
	for metric, l := range src.ratios {
		var part, whole float64
		for _, p := range l.points {
			if !p.at.Before(from) && !p.at.After(to) {
				part += p.part
				whole += p.whole
			}
		}
		if whole > 0 {
			out[metric] = part / whole
		}
	}
	return out
}

// Totals returns the source's ratios over everything it sampled.
func (s *Sampler) Totals(name string) map[string]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	src := s.sources[name]
	if src == nil {
		return nil
	}
	out := map[string]float64{}
	for metric, l := range src.ratios {
		if l.whole > 0 {
			out[metric] = l.part / l.whole
		}
	}
	return out
}

// Forget drops the source's ratio points before t (its totals stay): a
// run calls it once a trial's figures are read, so that a long run keeps
// only the current trial's points in memory.
func (s *Sampler) Forget(name string, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	src := s.sources[name]
	if src == nil {
		return
	}
	for _, l := range src.ratios {
		i := sort.Search(len(l.points), func(i int) bool { return !l.points[i].at.Before(t) })
		l.points = append(l.points[:0], l.points[i:]...)
	}
}

// key names one metric of one host.
type key struct{ host, name string }

// source is one database sampled, with what its last reading left.
type source struct {
	host, database string
	r              driver.MetricsReader
	// reading is held while the reader is called; removed, set under it,
	// says the source is gone and its reader may be closed.
	reading sync.Mutex
	removed bool
	// paused, set under reading, says the database is paused (a target
	// the experiment stopped while it measures another): not read.
	paused bool
	// prev is each counter's last reading (guarded by the sampler's mu,
	// as are warned and ratios).
	prev   map[key]reading
	warned map[string]bool
	ratios map[string]*ratioLog
}

// reading is one counter's value and when it was read.
type reading struct {
	v  float64
	at time.Time
}

// ratioLog is one ratio's parts and wholes, interval by interval, and
// their sums since the source was added.
type ratioLog struct {
	points      []ratioPoint
	part, whole float64
}

type ratioPoint struct {
	at          time.Time
	part, whole float64
}

// next turns a reading taken at at into rows: counters' rates since
// their previous reading (none for the first, or after a reset; a
// counter a failed query left out keeps its last reading, so its next
// rate spans the whole gap), gauges, and ratios of this interval's
// figures.
func (src *source) next(at time.Time, ms []driver.Metric) []results.DBMetric {
	// cur is this interval's figure of each counter (its increase) and
	// gauge (its level), for the ratios: a ratio of counters sums their
	// increases over a window, which rates of uneven intervals would
	// not.
	cur := map[key]float64{}
	var rows []results.DBMetric
	row := func(host, metric string, v float64, kind results.DBMetricKind, counter float64) {
		if host == "" {
			host = src.host
		}
		rows = append(rows, results.DBMetric{Time: at, Host: host, Database: src.database, Metric: metric, Value: v,
			Kind: kind, Counter: counter})
	}
	for _, m := range ms {
		k := key{m.Host, m.Name}
		switch m.Kind {
		case driver.MetricCounter:
			prev, seen := src.prev[k]
			src.prev[k] = reading{m.Value, at}
			dt := at.Sub(prev.at).Seconds()
			if !seen || dt <= 0 || m.Value < prev.v {
				continue
			}
			cur[k] = m.Value - prev.v
			row(m.Host, m.Name+RateSuffix, (m.Value-prev.v)/dt, results.DBMetricRate, m.Value)
		case driver.MetricGauge:
			cur[k] = m.Value
			row(m.Host, m.Name, m.Value, results.DBMetricGauge, 0)
		}
	}
	for _, m := range ms {
		if m.Kind != driver.MetricRatio {
			continue
		}
		part, ok1 := cur[key{m.Host, m.Part}]
		whole, ok2 := cur[key{m.Host, m.Whole}]
		if !ok1 || !ok2 {
			continue
		}
		l := src.ratios[m.Name]
		if l == nil {
			l = &ratioLog{}
			src.ratios[m.Name] = l
		}
		l.points = append(l.points, ratioPoint{at: at, part: part, whole: whole})
		l.part += part
		l.whole += whole
		if whole > 0 {
			row(m.Host, m.Name, part/whole, results.DBMetricRatio, 0)
		}
	}
	return rows
}

// FromCounters reads a driver's own counts (driver.CounterSource) as
// database metrics: DynamoDB's consumed capacity and throttles, which
// the client sees and the service does not report per second.
func FromCounters(cs driver.CounterSource) driver.MetricsReader { return counters{cs} }

type counters struct{ cs driver.CounterSource }

func (c counters) ReadMetrics(context.Context) ([]driver.Metric, error) {
	return driver.CountersAsMetrics(c.cs.Counters()), nil
}
