package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/runner"
)

// statusLine prints a YCSB-style status line every interval:
//
//	2026-11-22 14:30:10:004 10 sec: 123456 operations; 12345.6 current ops/sec; est completion in 20 sec [READ: Count=..., Max=..., ...]
//
// Latencies are in microseconds, over the operations since the previous
// line.
type statusLine struct {
	w        io.Writer
	every    time.Duration
	acc      measure.Results
	accOps   int64
	lastTime time.Duration
	sb       strings.Builder
}

func newStatusLine(w io.Writer, every time.Duration) *statusLine {
	return &statusLine{w: w, every: every}
}

// Interval implements runner.Observer.
func (s *statusLine) Interval(iv *runner.Interval) {
	if s.acc == nil {
		s.acc = measure.NewResults(seriesNames(iv.Results), iv.Results[0].Response != nil)
	}
	s.acc.Merge(iv.Results)
	s.accOps += iv.Ops
	if iv.Elapsed-s.lastTime < s.every && !iv.Final {
		return
	}
	rate := 0.0
	if span := iv.Elapsed - s.lastTime; span > 0 {
		rate = float64(s.accOps) / span.Seconds()
	}
	s.sb.Reset()
	fmt.Fprintf(&s.sb, "%s %d sec: %d operations; %s current ops/sec;",
		iv.End.Format("2006-01-02 15:04:05:000"), int64(iv.Elapsed.Seconds()), iv.TotalOps, num1(rate))
	if eta, ok := estimate(iv); ok {
		fmt.Fprintf(&s.sb, " est completion in %s", eta)
	}
	if iv.Warmup {
		s.sb.WriteString(" [WARMUP]")
	}
	for i := range s.acc {
		r := &s.acc[i]
		if r.OK()+r.ErrorCount() == 0 {
			continue
		}
		st := measure.StatsOf(r.Latency())
		fmt.Fprintf(&s.sb, " [%s: Count=%d, Max=%s, Min=%s, Avg=%s, 90=%s, 99=%s, 99.9=%s, 99.99=%s",
			r.Name, r.OK(), num1(st.Max), num1(st.Min), num1(st.Mean), num1(st.P90), num1(st.P99), num1(st.P999), num1(st.P9999))
		if n := r.ErrorCount(); n > 0 {
			fmt.Fprintf(&s.sb, ", Errors=%d", n)
		}
		s.sb.WriteString("]")
	}
	s.sb.WriteString("\n")
	io.WriteString(s.w, s.sb.String())
	s.acc.Reset()
	s.accOps = 0
	s.lastTime = iv.Elapsed
}

func seriesNames(r measure.Results) []string {
	out := make([]string, len(r))
	for i := range r {
		out[i] = r[i].Name
	}
	return out
}

// estimate returns the expected time left, from the operation count or the
// time limit, whichever ends the run first.
func estimate(iv *runner.Interval) (string, bool) {
	var left time.Duration
	ok := false
	if iv.ExpectedOps > 0 && iv.TotalOps > 0 && iv.Elapsed > 0 {
		rate := float64(iv.TotalOps) / iv.Elapsed.Seconds()
		rest := iv.ExpectedOps - iv.TotalOps
		if rest < 0 {
			rest = 0
		}
		left, ok = time.Duration(float64(rest)/rate*float64(time.Second)), true
	}
	if iv.Limit > 0 {
		if l := iv.Limit - iv.Elapsed; !ok || l < left {
			left, ok = l, true
		}
	}
	if left < 0 {
		left = 0
	}
	return left.Round(time.Second).String(), ok
}

// num1 formats with one decimal.
func num1(v float64) string { return fmt.Sprintf("%.1f", v) }

// progress redraws one line on a terminal every interval: phase, elapsed,
// throughput, p99 and the estimated time left.
type progress struct {
	w io.Writer
}

// Finish clears the progress line so the summary starts on a clean line.
func (p *progress) Finish() { io.WriteString(p.w, "\r\033[K") }

func newProgress(w io.Writer) *progress { return &progress{w: w} }

// Interval implements runner.Observer.
func (p *progress) Interval(iv *runner.Interval) {
	var p99 float64
	for i := range iv.Results {
		r := &iv.Results[i]
		if r.Counted == 0 {
			continue
		}
		if v := measure.StatsOf(r.Latency()).P99; v > p99 {
			p99 = v
		}
	}
	phase := "run"
	if iv.Warmup {
		phase = "warm-up"
	}
	secs := (iv.End.Sub(iv.Start)).Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(iv.Ops) / secs
	}
	line := fmt.Sprintf("\r\033[K%s %s  %s ops/s  worst p99 %s  %d ops", phase, iv.Elapsed.Round(time.Second), humanRate(rate), humanMicros(p99), iv.TotalOps)
	if eta, ok := estimate(iv); ok {
		line += "  ETA " + eta
	}
	io.WriteString(p.w, line)
}

func humanRate(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

func humanMicros(us float64) string {
	switch {
	case us >= 1e6:
		return fmt.Sprintf("%.2fs", us/1e6)
	case us >= 1e3:
		return fmt.Sprintf("%.2fms", us/1e3)
	case us >= 10:
		return fmt.Sprintf("%.0fµs", us)
	}
	// In-process drivers answer in well under a microsecond.
	return fmt.Sprintf("%.2fµs", us)
}
