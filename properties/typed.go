package properties

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// String returns the value of key, or def when it is not set.
func (s *Set) String(key, def string) string {
	if v, _, ok := s.Lookup(key); ok {
		return v
	}
	return def
}

// badValue is the error for a value of the wrong form.
func badValue(src Source, key, value, want string) error {
	return fmt.Errorf("%s: property %q=%q: want %s", src, key, value, want)
}

// Int64 returns key as an integer, or def when it is not set.
func (s *Set) Int64(key string, def int64) (int64, error) {
	v, src, ok := s.Lookup(key)
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, badValue(src, key, v, "an integer")
	}
	return n, nil
}

// Int returns key as an int, or def when it is not set.
func (s *Set) Int(key string, def int) (int, error) {
	n, err := s.Int64(key, int64(def))
	if err != nil {
		return 0, err
	}
	if int64(int(n)) != n {
		_, src, _ := s.Lookup(key)
		return 0, fmt.Errorf("%s: property %q=%d: out of range", src, key, n)
	}
	return int(n), nil
}

// Float returns key as a number, or def when it is not set. NaN and the
// infinities are refused: strconv reads them, but no property means
// anything by them, and NaN passes every range check written as
// "v < 0 || v > 1".
func (s *Set) Float(key string, def float64) (float64, error) {
	v, src, ok := s.Lookup(key)
	if !ok {
		return def, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, badValue(src, key, v, "a finite number")
	}
	return f, nil
}

// Duration returns key as a duration, or def when it is not set. The
// value is a number of seconds, as YCSB writes maxexecutiontime ("30",
// "0.5"), or a Go duration ("90s", "1m30s"). Negative values, NaN, the
// infinities and durations past time.Duration's range (about 292 years)
// are refused rather than wrapped around to a negative duration.
func (s *Set) Duration(key string, def time.Duration) (time.Duration, error) {
	v, src, ok := s.Lookup(key)
	if !ok {
		return def, nil
	}
	d, err := parseDuration(v)
	if err != nil {
		return 0, badValue(src, key, v, "seconds (e.g. 30) or a duration (e.g. 90s, 1m30s), 0 or more and below 292 years")
	}
	return d, nil
}

// parseDuration reads a number of seconds or a Go duration, as Duration
// does.
func parseDuration(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		ns := secs * float64(time.Second)
		// float64(math.MaxInt64) is 2^63: a product below it fits.
		if !(ns >= 0 && ns < math.MaxInt64) {
			return 0, fmt.Errorf("%q: out of range", v)
		}
		return time.Duration(ns), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, err
	}
	if d < 0 {
		return 0, fmt.Errorf("%q: negative", v)
	}
	return d, nil
}

// Bool returns key as a boolean, or def when it is not set. Only "true" and
// "false" (any case) are accepted: Java would read "yes" as false, which
// hides typos.
func (s *Set) Bool(key string, def bool) (bool, error) {
	v, src, ok := s.Lookup(key)
	if !ok {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, badValue(src, key, v, "true or false")
}
