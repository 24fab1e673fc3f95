package hlog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Interval is one interval line of a log.
type Interval struct {
	// Tag is the line's tag, "" for an untagged line.
	Tag string
	// Start is absolute: the log's base time plus the line's timestamp.
	Start time.Time
	// Length is the Interval_Length column.
	Length time.Duration
	// Max is the Interval_Max column as written: milliseconds for
	// nanosecond values. Histogram.Max() is the exact maximum.
	Max float64
	// Histogram holds the interval's values; its tag and start and end
	// times (in milliseconds) are set from the line. It is sparse: its
	// memory grows with the buckets the interval uses, not with the range
	// the encoding declares. A 39 KB log of histograms declaring 1 to 2^63
	// at 5 digits, 49 MiB each when dense, ran dbarena merge out of memory.
	// MergeInto adds it to a dense histogram.
	Histogram *hdrhistogram.PackedHistogram
}

// maxLineBytes bounds one line. An interval of a wide histogram (1 ns to an
// hour at 3 digits) with every bucket used encodes to well under 1 MiB.
const maxLineBytes = 64 << 20

// maxSeconds bounds every time in a log: the StartTime and BaseTime
// headers and the interval start and length, in seconds. 9e9 s is the
// year 2255 as a time since the epoch and stays within time.Duration's
// 292 years, so no conversion wraps around to a negative time.
const maxSeconds = 9e9

// maxCountPerSecond bounds an interval's count by its length, and
// maxLogCount a log's: ten billion values a second is a thousand loaders
// at ten million operations a second each, and a quadrillion values in
// one log is that rate for more than a day. A count past them is a
// corrupt or forged log, not a measurement, and adding such counts up
// wraps around int64 into false totals (4,611,686,018,427,387,904
// operations); a thousand logs at the limit still add up within int64.
const (
	maxCountPerSecond = 1e10
	maxLogCount       = 1e15
)

// maxTags bounds the distinct tags of a log. A reader keeps a histogram
// per tag (a dense one is about 260 kB), and a run writes at most a few
// per operation type (service, response, failures, cut-offs, each also
// in the warm-up) and YCSB has six types: a log of a million distinct
// tags would fill the memory of whatever merges it.
const maxTags = 1000

// relativeCutoff is the Java reader's rule for logs without a BaseTime: a
// first timestamp more than a year before the StartTime is taken as relative
// to the StartTime, any other as seconds since the epoch.
const relativeCutoff = 365 * 24 * 3600.0

// Reader reads the intervals of a log written by Writer or by the Java
// HistogramLogWriter. It reads the StartTime and BaseTime headers and skips
// other comments, the legend and empty lines. Like Writer, it is meant for
// one goroutine.
type Reader struct {
	sc   *bufio.Scanner
	line int
	err  error // sticky: Next returns it once reading has failed

	start, base         float64 // seconds since the epoch
	haveStart, haveBase bool
	// total counts the values of the intervals read (maxLogCount).
	total int64
	// tags are the distinct tags read (maxTags).
	tags map[string]struct{}
	// comment is the first "#" line before the first interval that is
	// neither the format version nor a time: the comment NewWriter (or
	// Java's outputComment) wrote.
	comment string
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	return &Reader{sc: sc}
}

// StartTime returns the log's StartTime, or the first interval's start if
// the log has none, and whether either has been read yet.
func (r *Reader) StartTime() (time.Time, bool) {
	return secondsToTime(r.start), r.haveStart
}

// Comment returns the log's comment header as the writer gave it ("dbarena
// trial pg.a; values in nanoseconds"), once the reading has passed it: ""
// when the log has none.
func (r *Reader) Comment() string { return r.comment }

// Next returns the next interval, or io.EOF after the last one. Errors name
// the line number; after an error, Next returns the same error again.
func (r *Reader) Next() (Interval, error) {
	if r.err != nil {
		return Interval{}, r.err
	}
	iv, err := r.next()
	if err != nil && !errors.Is(err, io.EOF) {
		r.err = err
	}
	return iv, err
}

func (r *Reader) next() (Interval, error) {
	for r.sc.Scan() {
		r.line++
		text := strings.TrimSpace(r.sc.Text())
		var err error
		switch {
		case text == "":
			continue
		case strings.HasPrefix(text, "#[StartTime:"):
			r.start, err = headerSeconds(text, "#[StartTime:")
			r.haveStart = true
		case strings.HasPrefix(text, "#[BaseTime:"):
			r.base, err = headerSeconds(text, "#[BaseTime:")
			r.haveBase = true
		case text[0] == '#' && r.comment == "" && !r.haveStart && !strings.HasPrefix(text, "#[Histogram log format version"):
			r.comment = strings.TrimSpace(text[1:])
			continue
		case text[0] == '#', strings.HasPrefix(text, `"StartTimestamp"`):
			continue
		default:
			iv, err := r.parseInterval(text)
			if err != nil {
				return Interval{}, fmt.Errorf("hlog: line %d: %w", r.line, err)
			}
			return iv, nil
		}
		if err != nil {
			return Interval{}, fmt.Errorf("hlog: line %d: %w", r.line, err)
		}
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return Interval{}, fmt.Errorf("hlog: line %d: longer than the %d MiB limit of a line", r.line+1, maxLineBytes>>20)
		}
		return Interval{}, fmt.Errorf("hlog: line %d: %w", r.line+1, err)
	}
	return Interval{}, io.EOF
}

// headerSeconds parses the number after prefix in a StartTime or BaseTime
// line; what follows it (a date, "(seconds since epoch)") is ignored.
func headerSeconds(text, prefix string) (float64, error) {
	field, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(text, prefix)), " ")
	field = strings.TrimSuffix(field, "]")
	v, err := parseSeconds(field)
	if err != nil {
		return 0, fmt.Errorf("%s header: %w", strings.Trim(prefix, "#[:"), err)
	}
	return v, nil
}

// parseInterval parses "[Tag=T,]start,length,max,payload".
func (r *Reader) parseInterval(text string) (Interval, error) {
	var iv Interval
	if rest, ok := strings.CutPrefix(text, "Tag="); ok {
		tag, fields, ok := strings.Cut(rest, ",")
		switch {
		case !ok:
			return iv, errors.New("tag without interval fields")
		case tag == "":
			return iv, errors.New(`empty tag after "Tag="`)
		}
		if _, ok := r.tags[tag]; !ok {
			if len(r.tags) == maxTags {
				return iv, fmt.Errorf("tag %q: more than %d distinct tags in one log; not a log dbarena or HdrHistogram wrote", tag, maxTags)
			}
			if r.tags == nil {
				r.tags = map[string]struct{}{}
			}
			r.tags[tag] = struct{}{}
		}
		iv.Tag, text = tag, fields
	}
	fields := strings.Split(text, ",")
	if len(fields) != 4 {
		return iv, fmt.Errorf("want 4 comma-separated fields (start, length, max, histogram), got %d", len(fields))
	}
	names := [3]string{"start timestamp", "interval length", "interval max"}
	var nums [3]float64
	for i := range nums {
		v, err := parseNumber(fields[i])
		if err != nil {
			return iv, fmt.Errorf("%s: %w", names[i], err)
		}
		nums[i] = v
	}
	if nums[1] < 0 {
		return iv, fmt.Errorf("interval length: negative %s", fields[1])
	}
	// A start may be relative to a later BaseTime, hence negative.
	if math.Abs(nums[0]) > maxSeconds || nums[1] > maxSeconds {
		return iv, fmt.Errorf("start timestamp %s, length %s: want seconds within %.0g", fields[0], fields[1], maxSeconds)
	}
	h, err := hdrhistogram.DecodePacked([]byte(fields[3]))
	if err != nil {
		return iv, fmt.Errorf("decode histogram: %w", err)
	}
	n, err := countOf(h, nums[1])
	if err != nil {
		return iv, err
	}
	if float64(r.total)+float64(n) > maxLogCount {
		return iv, fmt.Errorf("the log's histograms hold more than %.0g values in all: not a log of real operations", maxLogCount)
	}
	r.total += n

	r.settleTimes(nums[0])
	iv.Start = secondsToTime(r.base).Add(secondsToDuration(nums[0]))
	iv.Length = secondsToDuration(nums[1])
	iv.Max = nums[2]
	iv.Histogram = h
	h.SetTag(iv.Tag)
	h.SetStartTimeMs(iv.Start.UnixMilli())
	h.SetEndTimeMs(iv.Start.Add(iv.Length).UnixMilli())
	return iv, nil
}

// settleTimes fills in a missing StartTime or BaseTime from the first
// interval's timestamp, as the Java reader does, so that both read a log
// the same way.
func (r *Reader) settleTimes(ts float64) {
	if !r.haveStart {
		r.start, r.haveStart = ts, true
	}
	if !r.haveBase {
		r.base, r.haveBase = 0, true
		if ts < r.start-relativeCutoff {
			r.base = r.start
		}
	}
}

// parseNumber parses a decimal number, refusing the NaN, infinities and
// hexadecimal forms strconv accepts but no log writer produces.
func parseNumber(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || strings.ContainsAny(s, "xXnN_") {
		return 0, fmt.Errorf("%q is not a decimal number", s)
	}
	return v, nil
}

// parseSeconds parses a time since the epoch in seconds, from 0 to
// maxSeconds.
func parseSeconds(s string) (float64, error) {
	v, err := parseNumber(s)
	if err != nil {
		return 0, err
	}
	if v < 0 || v > maxSeconds {
		return 0, fmt.Errorf("%s: want seconds since the epoch from 0 to %.0g", s, maxSeconds)
	}
	return v, nil
}

// secondsToDuration converts seconds to a duration, rounded to the
// microsecond: logs carry milliseconds, and a float64 of seconds since the
// epoch is exact to well under a microsecond.
func secondsToDuration(s float64) time.Duration {
	return time.Duration(math.Round(s*1e6)) * time.Microsecond
}

func secondsToTime(s float64) time.Time {
	return time.Unix(0, 0).Add(secondsToDuration(s))
}

// countOf is the number of values h holds, checked against
// maxCountPerSecond for an interval of length seconds: its buckets are
// added without wrapping around, and none may be negative.
func countOf(h *hdrhistogram.PackedHistogram, length float64) (int64, error) {
	limit := maxCountPerSecond * math.Max(length, 1)
	var n float64
	var negative int64
	h.ForEachBucket(func(_, c int64) bool {
		if c < 0 {
			negative = c
			return false
		}
		n += float64(c)
		return true
	})
	switch {
	case negative < 0:
		return 0, fmt.Errorf("histogram: a negative count (%d)", negative)
	case n > limit:
		return 0, fmt.Errorf("histogram: %.4g values in %g s: more than %.0g a second, not a log of real operations", n, length, maxCountPerSecond)
	}
	return int64(n), nil
}
