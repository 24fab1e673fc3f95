package hlog

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// FormatVersion is the log format version written in the first line; 1.3 is
// the version the Java HistogramLogWriter of HdrHistogram 2.x writes.
const FormatVersion = "1.3"

// MaxValueUnitRatio divides a histogram's largest value for the Interval_Max
// column. It is the Java writer's default and turns dbarena's nanoseconds
// into milliseconds; readers take the maximum from the histogram itself, so
// the column is for people reading the file.
const MaxValueUnitRatio = 1_000_000

// Legend is the CSV header line that precedes the interval lines.
const Legend = `"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"`

// javaDateLayout is java.util.Date.toString's layout, used by Java for the
// human-readable part of the StartTime line.
const javaDateLayout = "Mon Jan 02 15:04:05 MST 2006"

// Writer writes one interval log. It writes each line with a single Write
// call and keeps no buffer, so wrap a file in a bufio.Writer and flush it as
// needed. A Writer is meant for one goroutine: calls must not overlap.
type Writer struct {
	w    io.Writer
	base time.Time // StartTime and BaseTime, truncated to the millisecond
	err  error     // first write error; later calls return it
}

// NewWriter writes the log header to w: the format version, the comment (if
// not empty) as a "#" line, the StartTime, a BaseTime equal to it and the
// legend. Interval timestamps are then relative to start, truncated to the
// millisecond. The date after the StartTime is printed in UTC.
//
// Java's writer leaves BaseTime out by default and its reader guesses whether
// timestamps are relative; an explicit BaseTime removes the guess.
func NewWriter(w io.Writer, start time.Time, comment string) (*Writer, error) {
	if strings.ContainsAny(comment, "\r\n") {
		return nil, errors.New("hlog: comment must be a single line")
	}
	// A comment that looks like a time header would be taken for one.
	if strings.HasPrefix(comment, "[StartTime:") || strings.HasPrefix(comment, "[BaseTime:") {
		return nil, fmt.Errorf("hlog: comment %q would be read as a time header", comment)
	}
	if start.UnixMilli() < 0 {
		return nil, fmt.Errorf("hlog: start time %s is before 1970", start.Format(time.RFC3339))
	}
	// Java's StartTime has millisecond resolution; timestamps are relative
	// to what the line says, not to the sub-millisecond start.
	base := time.UnixMilli(start.UnixMilli())
	secs := fixed3(base.UnixMilli(), 1_000)

	var b strings.Builder
	fmt.Fprintf(&b, "#[Histogram log format version %s]\n", FormatVersion)
	if comment != "" {
		fmt.Fprintf(&b, "#%s\n", comment)
	}
	fmt.Fprintf(&b, "#[StartTime: %s (seconds since epoch), %s]\n", secs, base.UTC().Format(javaDateLayout))
	fmt.Fprintf(&b, "#[BaseTime: %s (seconds since epoch)]\n", secs)
	b.WriteString(Legend + "\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return nil, fmt.Errorf("hlog: write header: %w", err)
	}
	return &Writer{w: w, base: base}, nil
}

// WriteInterval writes the histogram h of the interval [start, end) under
// tag, or untagged if tag is "". Tags may not contain commas, white space or
// control characters, which would split the line for Java's reader. The
// interval may not begin before the log's start time: HistogramLogProcessor
// would silently skip it.
func (w *Writer) WriteInterval(tag string, start, end time.Time, h *hdrhistogram.Histogram) error {
	if w.err != nil {
		return w.err
	}
	if err := ValidateTag(tag); err != nil {
		return err
	}
	if h == nil {
		return errors.New("hlog: nil histogram")
	}
	offset, length := start.Sub(w.base), end.Sub(start)
	if offset < 0 {
		return fmt.Errorf("hlog: interval starts at %s, before the log start %s", start.Format(time.RFC3339Nano), w.base.Format(time.RFC3339Nano))
	}
	if length < 0 {
		return fmt.Errorf("hlog: interval ends at %s, before it starts at %s", end.Format(time.RFC3339Nano), start.Format(time.RFC3339Nano))
	}
	payload, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return fmt.Errorf("hlog: encode histogram for tag %q: %w", tag, err)
	}

	line := make([]byte, 0, len(payload)+len(tag)+48)
	if tag != "" {
		line = append(line, "Tag="...)
		line = append(line, tag...)
		line = append(line, ',')
	}
	line = append(line, fixed3(int64(offset), int64(time.Second))...)
	line = append(line, ',')
	line = append(line, fixed3(int64(length), int64(time.Second))...)
	line = append(line, ',')
	line = append(line, fixed3(h.Max(), MaxValueUnitRatio)...)
	line = append(line, ',')
	line = append(line, payload...)
	line = append(line, '\n')
	if _, err := w.w.Write(line); err != nil {
		w.err = fmt.Errorf("hlog: write interval: %w", err)
		return w.err
	}
	return nil
}

// ValidateTag reports whether tag can be written: "" (untagged) or a string
// without commas, white space or control characters.
func ValidateTag(tag string) error {
	for _, r := range tag {
		if r == ',' || unicode.IsSpace(r) || unicode.IsControl(r) {
			return fmt.Errorf("hlog: tag %q: commas, white space and control characters are not allowed", tag)
		}
	}
	return nil
}

// fixed3 formats n/unit, n >= 0, with three decimals, rounding half up;
// unit is a multiple of 1000 (nanoseconds or milliseconds per second,
// nanoseconds per millisecond). Java's %.3f rounds the shortest decimal form
// half up, Go's rounds the exact binary value: for 2_768_500 ns Java prints
// 2.769 ms and Go's fmt 2.768 (checked with JDK 17). Integer arithmetic
// prints what Java prints.
func fixed3(n, unit int64) string {
	step := max(unit/1000, 1) // the value of the third decimal, in n's unit
	q, rem := n/step, n%step
	if rem*2 >= step {
		q++
	}
	frac := strconv.FormatInt(q%1000, 10)
	return strconv.FormatInt(q/1000, 10) + "." + strings.Repeat("0", 3-len(frac)) + frac
}
