package measure

import (
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Percentiles reported everywhere, in this order.
var reportedPercentiles = [...]float64{50, 90, 95, 99, 99.9, 99.99}

// Stats are the figures of one latency histogram, in microseconds (YCSB's
// unit) with nanosecond resolution.
type Stats struct {
	Count int64   `json:"count"`
	Min   float64 `json:"min_us"`
	Mean  float64 `json:"mean_us"`
	P50   float64 `json:"p50_us"`
	P90   float64 `json:"p90_us"`
	P95   float64 `json:"p95_us"`
	P99   float64 `json:"p99_us"`
	P999  float64 `json:"p99_9_us"`
	P9999 float64 `json:"p99_99_us"`
	Max   float64 `json:"max_us"`
}

// StatsOf summarises h. An empty or nil histogram gives zero Stats.
func StatsOf(h *hdrhistogram.Histogram) Stats {
	if h == nil || h.TotalCount() == 0 {
		return Stats{}
	}
	q := h.ValueAtPercentilesSlice(reportedPercentiles[:])
	return Stats{
		Count: h.TotalCount(),
		Min:   us(float64(h.Min())),
		Mean:  us(h.Mean()),
		P50:   us(float64(q[0])),
		P90:   us(float64(q[1])),
		P95:   us(float64(q[2])),
		P99:   us(float64(q[3])),
		P999:  us(float64(q[4])),
		P9999: us(float64(q[5])),
		Max:   us(float64(h.Max())),
	}
}

// us converts nanoseconds to microseconds rounded to the nanosecond.
func us(ns float64) float64 { return math.Round(ns) / 1e3 }

// OpSummary is the result of one operation type.
type OpSummary struct {
	Name   string           `json:"name"`
	OK     int64            `json:"ok"`
	Errors map[string]int64 `json:"errors,omitempty"`
	// Service is latency from the actual start of each operation.
	Service Stats `json:"service"`
	// Response is latency from the intended start; present under a target
	// rate only.
	Response *Stats `json:"response,omitempty"`
	// Late counts operations issued more than the late threshold behind
	// their intended start.
	Late int64 `json:"late,omitempty"`
	// ErrorLatency summarises the failed operations' latencies.
	ErrorLatency *Stats `json:"error_latency,omitempty"`
}

// Summarize turns results into per-operation summaries, skipping series
// that saw no operation.
func Summarize(r Results) []OpSummary {
	var out []OpSummary
	for i := range r {
		s := &r[i]
		if s.OK() == 0 && s.ErrorCount() == 0 {
			continue
		}
		o := OpSummary{Name: s.Name, OK: s.OK(), Service: StatsOf(s.Service), Late: s.Late}
		if len(s.Errors) > 0 {
			o.Errors = make(map[string]int64, len(s.Errors))
			for c, n := range s.Errors {
				o.Errors[c] = n
			}
			st := StatsOf(s.ErrorLatency)
			o.ErrorLatency = &st
		}
		if s.Response != nil {
			st := StatsOf(s.Response)
			o.Response = &st
		}
		out = append(out, o)
	}
	return out
}

// Phase is the summary of one measured span: the warm-up or the measured
// phase of a run.
type Phase struct {
	Start      time.Time     `json:"start"`
	Duration   time.Duration `json:"-"`
	RuntimeMs  int64         `json:"runtime_ms"`
	Operations int64         `json:"operations"`
	Errors     int64         `json:"errors"`
	Throughput float64       `json:"throughput_ops_sec"`
	Ops        []OpSummary   `json:"ops"`
}

// NewPhase summarises results measured over d starting at start.
// Throughput counts successful and failed operations alike, as YCSB does,
// and a composite operation once.
func NewPhase(start time.Time, d time.Duration, r Results) Phase {
	p := Phase{Start: start, Duration: d, RuntimeMs: d.Milliseconds(), Ops: Summarize(r), Operations: r.TotalCounted()}
	for i := range r {
		if r[i].Counted > 0 {
			p.Errors += r[i].ErrorCount()
		}
	}
	if d > 0 {
		p.Throughput = float64(p.Operations) / d.Seconds()
	}
	return p
}
