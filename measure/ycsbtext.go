package measure

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/dbarena/dbarena/measure/hlog"
)

// WriteYCSBText writes a phase in YCSB's text exporter format
// ("[OVERALL], RunTime(ms), 1234" ...), so that scripts written for YCSB's
// output keep working. Latency percentiles are in microseconds; dbarena
// prints fractions where YCSB prints whole microseconds, which every parser
// that reads the values as numbers accepts. Under a target rate, response
// times appear as "[Intended-OP]" blocks as YCSB's measurement.interval=both
// names them, and failed operations' latencies as "[OP-FAILED]". Two
// kinds of line are dbarena's own, in the same shape: "[OVERALL],
// AbortedOperations" counts the operations the run's stop cut short
// (in no other count), "[Intended-OP], CutOffOperations" how many of
// that block's operations the window's end cut off, counted at their
// latency so far, and a "[PACING]" block gives the harness's own
// lateness in starting paced operations. "[INSERT], LatencyPerBatchOf,
// 100" says a batched load's latencies are each batch's, of up to 100
// records, counted once per record.
func WriteYCSBText(w io.Writer, p Phase, interrupted bool) error {
	bw := bufio.NewWriter(w)
	line := func(section, metric, value string) {
		fmt.Fprintf(bw, "[%s], %s, %s\n", section, metric, value)
	}
	line("OVERALL", "RunTime(ms)", strconv.FormatInt(p.RuntimeMs, 10))
	line("OVERALL", "Throughput(ops/sec)", num(p.Throughput))
	if interrupted {
		line("OVERALL", "Interrupted", "true")
	}
	if p.Aborted > 0 {
		line("OVERALL", "AbortedOperations", strconv.FormatInt(p.Aborted, 10))
	}
	if p.Pacing != nil {
		writeStats(line, hlog.Tag{Kind: hlog.Pacing}.String(), *p.Pacing)
	}
	for _, o := range p.Ops {
		writeStats(line, o.Name, o.Service)
		if o.BatchOf > 1 {
			// dbarena's own line: the latencies above are a batch's.
			line(o.Name, "LatencyPerBatchOf", strconv.Itoa(o.BatchOf))
		}
		line(o.Name, "Return=OK", strconv.FormatInt(o.OK, 10))
		for _, c := range sortedKeys(o.Errors) {
			line(o.Name, "Return="+c, strconv.FormatInt(o.Errors[c], 10))
		}
		if o.Response != nil {
			// YCSB names response times in its text as in its interval
			// logs, and so does dbarena.
			intended := hlog.Tag{Kind: hlog.Intended, Op: o.Name}.String()
			writeStats(line, intended, *o.Response)
			line(intended, "LateOperations", strconv.FormatInt(o.Late, 10))
			if o.CutOff != nil {
				line(intended, "CutOffOperations", strconv.FormatInt(o.CutOff.Count, 10))
			}
		}
		if o.ErrorLatency != nil {
			writeStats(line, o.Name+"-FAILED", *o.ErrorLatency)
		}
	}
	return bw.Flush()
}

func writeStats(line func(section, metric, value string), name string, s Stats) {
	line(name, "Operations", strconv.FormatInt(s.Count, 10))
	line(name, "AverageLatency(us)", num(s.Mean))
	line(name, "MinLatency(us)", num(s.Min))
	line(name, "MaxLatency(us)", num(s.Max))
	for _, pv := range []struct {
		label string
		v     float64
	}{
		{"50th", s.P50}, {"90th", s.P90}, {"95th", s.P95}, {"99th", s.P99},
		{"99.9", s.P999}, {"99.99", s.P9999},
	} {
		line(name, pv.label+"PercentileLatency(us)", num(pv.v))
	}
}

// num formats a float the shortest way that reads back exactly.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
