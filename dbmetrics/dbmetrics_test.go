package dbmetrics_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/dbmetrics"
	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/results"
)

// script is a reader that returns its readings in turn: a stand-in for a
// database whose counters the test sets, to check the arithmetic.
type script struct {
	mu       sync.Mutex
	readings [][]driver.Metric
	errs     []error
}

func (s *script) ReadMetrics(context.Context) ([]driver.Metric, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms, err := s.readings[0], s.errs[0]
	if len(s.readings) > 1 {
		s.readings, s.errs = s.readings[1:], s.errs[1:]
	}
	return ms, err
}

func reading(hits, requests, memory float64) []driver.Metric {
	return []driver.Metric{
		{Name: "x_hits", Kind: driver.MetricCounter, Value: hits},
		{Name: "x_requests", Kind: driver.MetricCounter, Value: requests},
		{Name: "x_memory_bytes", Kind: driver.MetricGauge, Value: memory},
		{Name: "x_hit_ratio", Kind: driver.MetricRatio, Part: "x_hits", Whole: "x_requests"},
	}
}

func TestSamplerRatesRatiosAndWindows(t *testing.T) {
	var rows []results.DBMetric
	s := dbmetrics.New(time.Second, func(r []results.DBMetric) { rows = append(rows, r...) })
	var logged bytes.Buffer
	s.Logger = slog.New(slog.NewTextHandler(&logged, nil))
	boom := errors.New("no such view")
	src := &script{
		readings: [][]driver.Metric{
			reading(100, 200, 5), reading(190, 300, 6), reading(190, 300, 6),
			reading(10, 20, 7), // a restart: counters went back
			reading(20, 40, 7),
		},
		errs: []error{nil, boom, boom, nil, nil},
	}
	s.Add("db", "node-1", "postgres", src)
	ctx := context.Background()
	var ends []time.Time
	for range 5 {
		s.Round(ctx)
		ends = append(ends, time.Now())
		time.Sleep(20 * time.Millisecond)
	}
	byMetric := map[string][]float64{}
	for _, r := range rows {
		require.Equal(t, "node-1", r.Host)
		require.Equal(t, "postgres", r.Database)
		byMetric[r.Metric] = append(byMetric[r.Metric], r.Value)
	}
	// The first reading gives gauges only; the restart gives no rates.
	require.Len(t, byMetric["x_memory_bytes"], 5)
	require.Len(t, byMetric["x_hits_per_s"], 3)
	require.Zero(t, byMetric["x_hits_per_s"][1], "no hits in the third interval")
	require.Greater(t, byMetric["x_hits_per_s"][0], 0.0)
	// Ratios: 90 of 100 in the second interval, none in the third (no
	// requests), 10 of 20 in the last.
	require.Equal(t, []float64{0.9, 0.5}, byMetric["x_hit_ratio"])
	require.NotContains(t, byMetric, "x_hits", "counters are written as rates only")

	// The window's ratio is the parts' sum over the wholes', not the
	// mean of 0.9 and 0.5.
	all := s.Figures("db", ends[0].Add(-time.Hour), ends[4])
	require.InDelta(t, 100.0/120.0, all["x_hit_ratio"], 1e-9)
	last := s.Figures("db", ends[3], ends[4])
	require.InDelta(t, 0.5, last["x_hit_ratio"], 1e-9)
	s.Forget("db", ends[3])
	require.InDelta(t, 0.5, s.Figures("db", ends[0].Add(-time.Hour), ends[4])["x_hit_ratio"], 1e-9)
	require.InDelta(t, 100.0/120.0, s.Totals("db")["x_hit_ratio"], 1e-9, "totals outlive Forget")

	// The same error twice is reported once.
	require.Equal(t, 1, strings.Count(logged.String(), "no such view"), logged.String())
	s.Remove("db")
	require.Nil(t, s.Figures("db", ends[0], ends[4]))
}

type counting struct{ n float64 }

func (c *counting) Counters() []driver.Counter {
	c.n += 4
	return []driver.Counter{{Name: "dynamodb.consumed_rcu", Value: c.n}}
}

func TestFromCounters(t *testing.T) {
	var rows []results.DBMetric
	s := dbmetrics.New(time.Second, func(r []results.DBMetric) { rows = append(rows, r...) })
	s.Add("counters", "dynamodb", "dynamodb", dbmetrics.FromCounters(&counting{}))
	s.Round(context.Background())
	time.Sleep(10 * time.Millisecond)
	s.Round(context.Background())
	require.Len(t, rows, 1)
	require.Equal(t, "dynamodb_consumed_rcu_per_s", rows[0].Metric)
	require.Greater(t, rows[0].Value, 4.0)
}

func TestSamplerStartStop(t *testing.T) {
	got := make(chan []results.DBMetric, 10)
	s := dbmetrics.New(20*time.Millisecond, func(r []results.DBMetric) { got <- r })
	s.Add("db", "h", "redis", &script{readings: [][]driver.Metric{reading(1, 1, 1)}, errs: []error{nil}})
	s.Start(context.Background())
	<-got
	s.Stop()
	s.Stop() // twice is harmless
}

// TestRateAcrossAGap: a counter a reading left out keeps its last value
// and time, so the next rate spans the whole gap instead of reading
// double.
func TestRateAcrossAGap(t *testing.T) {
	var rows []results.DBMetric
	s := dbmetrics.New(time.Second, func(r []results.DBMetric) { rows = append(rows, r...) })
	c := func(v float64) []driver.Metric {
		return []driver.Metric{{Name: "x_ops", Kind: driver.MetricCounter, Value: v}}
	}
	s.Add("db", "h", "d", &script{readings: [][]driver.Metric{c(100), nil, c(300)}, errs: []error{nil, errors.New("one node down"), nil}})
	start := time.Now()
	for range 3 {
		s.Round(context.Background())
		time.Sleep(50 * time.Millisecond)
	}
	span := time.Since(start) - 50*time.Millisecond
	require.Len(t, rows, 1)
	require.InEpsilon(t, 200/span.Seconds(), rows[0].Value, 0.25, "200 over the two intervals, not one")
}

// blocking reads only when released.
type blocking struct {
	entered, release chan struct{}
	calls            int
}

func (b *blocking) ReadMetrics(context.Context) ([]driver.Metric, error) {
	b.calls++
	b.entered <- struct{}{}
	<-b.release
	return nil, nil
}

// TestRemoveWaitsForAReading: Remove returns only once a reading of the
// source in progress ended, and the reader is not called after it, so
// the caller may close it.
func TestRemoveWaitsForAReading(t *testing.T) {
	s := dbmetrics.New(time.Second, nil)
	b := &blocking{entered: make(chan struct{}, 1), release: make(chan struct{})}
	s.Add("db", "h", "d", b)
	go s.Round(context.Background())
	<-b.entered
	removed := make(chan struct{})
	go func() {
		s.Remove("db")
		close(removed)
	}()
	select {
	case <-removed:
		t.Fatal("Remove returned while the reading ran")
	case <-time.After(100 * time.Millisecond):
	}
	close(b.release)
	<-removed
	s.Round(context.Background())
	require.Equal(t, 1, b.calls)
}

// TestPauseSkipsAndResumePrimes: a paused source is not read; once
// resumed its first reading only primes its counters, so that no rate
// spans the pause.
func TestPauseSkipsAndResumePrimes(t *testing.T) {
	var rows []results.DBMetric
	s := dbmetrics.New(time.Second, func(r []results.DBMetric) { rows = append(rows, r...) })
	c := func(v float64) []driver.Metric {
		return []driver.Metric{{Name: "x_ops", Kind: driver.MetricCounter, Value: v}}
	}
	src := &script{readings: [][]driver.Metric{c(100), c(200), c(200), c(250)}, errs: []error{nil, nil, nil, nil}}
	s.Add("db", "h", "d", src)
	s.Round(context.Background()) // primes at 100
	s.Pause("db")
	s.Round(context.Background())
	s.Round(context.Background())
	require.Empty(t, rows, "paused: not read")
	require.Len(t, src.readings, 3, "the reader was not called while paused")
	s.Resume("db")
	s.Round(context.Background()) // 200: primes again
	require.Empty(t, rows, "no rate across the pause")
	time.Sleep(20 * time.Millisecond)
	s.Round(context.Background()) // 200 -> 200
	require.Len(t, rows, 1)
	require.Zero(t, rows[0].Value)
	s.Pause("nothing")  // an unknown name is no error
	s.Resume("nothing") // nor here
}

// TestReattachKeepsTheFigures: a paused source read through a new
// connection keeps its ratios so far, and its counters prime again.
func TestReattachKeepsTheFigures(t *testing.T) {
	var rows []results.DBMetric
	s := dbmetrics.New(time.Second, func(r []results.DBMetric) { rows = append(rows, r...) })
	s.Add("db", "h", "d", &script{readings: [][]driver.Metric{reading(100, 200, 5), reading(190, 300, 6)}, errs: []error{nil, nil}})
	s.Round(context.Background())
	s.Round(context.Background())
	before := s.Totals("db")
	require.InDelta(t, 0.9, before["x_hit_ratio"], 1e-9, "90 hits of 100 requests")
	s.Pause("db")
	require.False(t, s.Reattach("nothing", &script{}))
	require.True(t, s.Reattach("db", &script{readings: [][]driver.Metric{reading(1000, 1000, 7), reading(1010, 1020, 7)}, errs: []error{nil, nil}}))
	n := len(rows)
	s.Round(context.Background()) // primes the new connection's counters
	s.Round(context.Background())
	require.Greater(t, len(rows), n, "read again")
	require.InDelta(t, 100.0/120, s.Totals("db")["x_hit_ratio"], 1e-9, "both periods: 100 hits of 120 requests")
}
