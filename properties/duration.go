package properties

import (
	"strconv"
	"strings"
	"time"
)

// Duration returns key as a duration, given either as a Go duration
// ("90s", "1m30s") or, as YCSB writes them, a plain number of seconds;
// def when it is not set. Negative durations are refused.
func (s *Set) Duration(key string, def time.Duration) (time.Duration, error) {
	v, src, ok := s.Lookup(key)
	if !ok {
		return def, nil
	}
	v = strings.TrimSpace(v)
	const want = "seconds (e.g. 30) or a duration (e.g. 90s, 1m30s)"
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if !(secs >= 0) || secs > float64(maxDuration/time.Second) {
			return 0, badValue(src, key, v, want+", at least 0 and at most 100 years")
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, badValue(src, key, v, want)
	}
	return d, nil
}

// maxDuration bounds a duration given in seconds, which would otherwise
// overflow time.Duration silently.
const maxDuration = 100 * 365 * 24 * time.Hour
