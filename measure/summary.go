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

// PacingLate reports whether the harness started paced operations so
// late that it, not the database, shaped their response times: the
// pacing lateness's p99 above 100 µs and above a tenth of the service
// time's p99. Below 100 µs the delay is within a sub-millisecond
// database's own jitter; below a tenth of the service time it changes
// response times by less than the run-to-run noise.
func PacingLate(pacing, service Stats) bool {
	return pacing.P99 > max(pacingFloorUs, 0.1*service.P99)
}

// pacingFloorUs is PacingLate's absolute floor, in microseconds.
const pacingFloorUs = 100

// OpSummary is the result of one operation type.
type OpSummary struct {
	Name string `json:"name"`
	// BatchOf, when set, says the latencies are of batches of up to
	// that many records (a batched load's INSERT), each counted once
	// per record it held: not one record's.
	BatchOf int              `json:"latency_per_batch_of,omitempty"`
	OK      int64            `json:"ok"`
	Errors  map[string]int64 `json:"errors,omitempty"`
	// Service is latency from the actual start of each operation.
	Service Stats `json:"service"`
	// Response is latency from the intended start; present under a target
	// rate only.
	Response *Stats `json:"response,omitempty"`
	// Late counts operations issued more than the late threshold behind
	// their intended start.
	Late int64 `json:"late,omitempty"`
	// Pacing is the harness's own lateness in starting the paced
	// operations (measure.Handle.Pace); present under a target rate only.
	Pacing *Stats `json:"pacing,omitempty"`
	// Aborted counts operations the run's own stop cut short: neither
	// successes nor errors.
	Aborted int64 `json:"aborted,omitempty"`
	// CutOff summarises the operations that were due in the measured
	// window and had not completed when it closed, at their latency so
	// far (SeriesResult.CutOff); Response includes them.
	CutOff *Stats `json:"cut_off,omitempty"`
	// ErrorLatency summarises the failed operations' latencies.
	ErrorLatency *Stats `json:"error_latency,omitempty"`
}

// Summarize turns results into per-operation summaries, skipping series
// that saw no operation.
func Summarize(r Results) []OpSummary {
	var out []OpSummary
	for i := range r {
		s := &r[i]
		if s.OK() == 0 && s.ErrorCount() == 0 && s.Aborted == 0 && s.CutOffCount() == 0 {
			continue
		}
		o := OpSummary{Name: s.Name, OK: s.OK(), Service: StatsOf(s.Service), Late: s.Late, Aborted: s.Aborted}
		if s.Pacing != nil && s.Pacing.TotalCount() > 0 {
			st := StatsOf(s.Pacing)
			o.Pacing = &st
		}
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
		if s.CutOffCount() > 0 {
			st := StatsOf(s.CutOff)
			o.CutOff = &st
		}
		out = append(out, o)
	}
	return out
}

// Phase is the summary of one measured span: the warm-up or the measured
// phase of a run.
type Phase struct {
	Start     time.Time     `json:"start"`
	Duration  time.Duration `json:"-"`
	RuntimeMs int64         `json:"runtime_ms"`
	// Operations counts the operations that completed, successful or
	// failed, a composite operation once; Errors how many of them
	// failed.
	Operations int64 `json:"operations"`
	Errors     int64 `json:"errors"`
	// Aborted counts the operations the run's own stop cut short, which
	// are in neither Operations nor Errors.
	Aborted int64 `json:"aborted"`
	// Throughput is YCSB's: every completed operation, successful or
	// failed, per second. OKThroughput and ErrorThroughput split it;
	// dbarena judges databases by OKThroughput.
	Throughput      float64 `json:"throughput_ops_sec"`
	OKThroughput    float64 `json:"ok_ops_sec"`
	ErrorThroughput float64 `json:"errors_per_sec"`
	// Pacing is the harness's own lateness in starting paced operations,
	// over every operation type; nil in a closed loop.
	Pacing *Stats      `json:"pacing,omitempty"`
	Ops    []OpSummary `json:"ops"`
}

// LabelBatches marks the INSERT latencies of a load whose driver inserts
// up to size records a call: each batch's latency, counted once per
// record it held, against operation counts of records.
func (p *Phase) LabelBatches(size int) {
	for i := range p.Ops {
		if p.Ops[i].Name == "INSERT" {
			p.Ops[i].BatchOf = size
		}
	}
}

// NewPhase summarises results measured over d starting at start,
// counting a composite operation once.
func NewPhase(start time.Time, d time.Duration, r Results) Phase {
	p := Phase{Start: start, Duration: d, RuntimeMs: d.Milliseconds(), Ops: Summarize(r),
		Operations: r.TotalCounted(), Errors: r.TotalCountedErrors(), Aborted: r.TotalAborted()}
	if h := r.PacingHistogram(); h != nil && h.TotalCount() > 0 {
		st := StatsOf(h)
		p.Pacing = &st
	}
	p.SetRates()
	return p
}

// SetRates computes the phase's rates from its counts and duration.
func (p *Phase) SetRates() {
	p.Throughput, p.OKThroughput, p.ErrorThroughput = 0, 0, 0
	if secs := p.Duration.Seconds(); secs > 0 {
		p.Throughput = float64(p.Operations) / secs
		p.OKThroughput = float64(p.Operations-p.Errors) / secs
		p.ErrorThroughput = float64(p.Errors) / secs
	}
}
