package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/results"
)

// dash stands for a figure that is missing or not measurable (NaN).
const dash = "–"

// finite reports whether v is a usable number.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// fmtRate writes a throughput: whole ops/s with thousands separators,
// one decimal below 100 where the fraction still means something.
func fmtRate(v float64) string {
	switch {
	case !finite(v):
		return dash
	case math.Abs(v) < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return groupThousands(int64(math.Round(v)))
	}
}

// groupThousands writes n as "12,300".
func groupThousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// fmtMs writes a latency given in microseconds as milliseconds with two
// significant digits (at least the whole part): one unit across the
// report, so that "0.85 ms vs 5.4 ms" compares at a glance.
func fmtMs(us float64) string {
	if !finite(us) {
		return dash
	}
	return fmtSig(us/1e3) + " ms"
}

// fmtSig writes v with two significant digits, but never rounds away
// the whole part (1234 stays "1,234").
func fmtSig(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100:
		return groupThousands(int64(math.Round(v)))
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 0.1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a == 0:
		return "0"
	default:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
}

// fmtRatio writes how many times faster a is than b, as the verdict says
// it ("1.8x").
// An interval's bound beyond a hundredfold either way says only that
// the repetitions are too few or too spread: "<0.01x", ">100x".
func fmtRatio(r float64) string {
	switch {
	case r > 100:
		return ">100x"
	case r < 0.01:
		return "<0.01x"
	case r >= 10:
		return strconv.FormatFloat(r, 'f', 0, 64) + "x"
	case r < 2:
		// Near 1x a tenth is too coarse: [1.0x, 1.2x] would read as
		// excluding 1x where it holds 0.99x.
		return strconv.FormatFloat(r, 'f', 2, 64) + "x"
	}
	return strconv.FormatFloat(r, 'f', 1, 64) + "x"
}

// fmtShare writes a fraction of the best throughput, as the verdict table
// shows it ("0.56×").
func fmtShare(r float64) string {
	if !finite(r) {
		return dash
	}
	return strconv.FormatFloat(r, 'f', 2, 64) + "×"
}

// fmtBytes writes a size in binary units ("1.5 GiB").
func fmtBytes(n float64) string {
	if !finite(n) || n < 0 {
		return dash
	}
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", n)
	}
	return fmtSig(n) + " " + units[i]
}

// fmtNumber writes a raw figure, such as a database's own counter, for
// a reader rather than in scientific notation: a count with thousands
// separators ("12,530,500"), a fraction with four significant digits
// ("0.9934").
func fmtNumber(v float64) string {
	switch a := math.Abs(v); {
	case !finite(v):
		return dash
	case a >= 1e15:
		return fmtSI(v) // beyond int64's exact range: 1.2e+18 would say less
	case a >= 1000 || v == math.Trunc(v):
		return groupThousands(int64(math.Round(v)))
	default:
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
}

// fmtSI writes v with an SI suffix ("12k", "1.5M") for axis ticks.
func fmtSI(v float64) string {
	a := math.Abs(v)
	for _, u := range []struct {
		div float64
		suf string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if a >= u.div {
			return trimZeros(strconv.FormatFloat(v/u.div, 'f', 2, 64)) + u.suf
		}
	}
	return trimZeros(strconv.FormatFloat(v, 'f', 3, 64))
}

// trimZeros drops trailing zeros of a decimal ("1.50" -> "1.5").
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// fmtDuration rounds to what a reader cares about.
func fmtDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return dash
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}

// fmtTime writes a timestamp in UTC, so that reports made on machines in
// different zones read alike.
func fmtTime(t time.Time) string {
	if t.IsZero() {
		return dash
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// fmtParams writes a matrix point as "threads=8 · distribution=zipfian".
func fmtParams(ps []results.Param) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Key + "=" + p.Value
	}
	return strings.Join(parts, " · ")
}

// fmtCPU writes a CPU figure where 100 is one core.
func fmtCPU(v float64) string {
	if !finite(v) {
		return dash
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + "%"
}
