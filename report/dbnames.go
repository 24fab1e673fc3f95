package report

import (
	"strings"
	"unicode"

	"github.com/dbarena/dbarena/driver/drivers"
)

// metricLook is how one database metric reads in a panel: a title for
// people, the unit on its axis, and what its values are multiplied by
// to read in that unit.
type metricLook struct {
	// title is "PostgreSQL cache hit ratio" for pg_cache_hit_ratio.
	title string
	// unit is the y axis: "%", "per second", "bytes", "count"...
	unit  string
	scale float64
	// share marks a fraction of a whole (a hit ratio, a wait share, a
	// utilisation), which is drawn smoothed.
	share bool
}

// metricWords spell the words of metric names that are abbreviations.
var metricWords = map[string]string{
	"cpu": "CPU", "io": "I/O", "lwlock": "LWLock", "wal": "WAL", "rcu": "RCU", "wcu": "WCU",
	"lwt": "LWT", "ttl": "TTL", "bgwriter": "background writer", "getmores": "getMores",
}

// metricUnits map a metric name's ending to its unit, longest first: a
// counter's name ends in _per_s (dbmetrics.RateSuffix) after its own
// unit, a ratio's in _ratio or _share and holds a fraction.
var metricUnits = []struct {
	suffix, unit string
	scale        float64
	share        bool
	// keep leaves the suffix's words in the title.
	keep bool
}{
	{"_bytes_per_s", "bytes per second", 1, false, true},
	{"_seconds_per_s", "seconds per second", 1, false, true},
	{"_ms_per_s", "ms per second", 1, false, true},
	{"_per_s", "per second", 1, false, false},
	{"_ratio", "%", 100, true, true},
	{"_share", "%", 100, true, true},
	{"_percent", "%", 1, true, false},
	{"_mebibytes", "MiB", 1, false, false},
	{"_bytes", "bytes", 1, false, false},
	{"_ms", "ms", 1, false, false},
}

// lookOf reads a metric's name for its title and unit:
// pg_cache_hit_ratio is "PostgreSQL cache hit ratio" in %,
// pg_commits_per_s "PostgreSQL commits" per second,
// redis_used_memory_bytes "Redis used memory" in bytes. A name that
// ends in no unit is a gauge: a count.
func lookOf(metric string) metricLook {
	// A share broken down by a detail (PostgreSQL's wait share of one
	// wait event, pg_wal_flush_wait_share_IO_WALSync) is a share.
	for _, infix := range []string{"_share_", "_ratio_"} {
		if i := strings.Index(metric, infix); i > 0 && i+len(infix) < len(metric) {
			look := lookOf(metric[:i+len(infix)-1])
			look.title += " (" + strings.Join(spelt(metric[i+len(infix):]), " ") + ")"
			return look
		}
	}
	look := metricLook{unit: "count", scale: 1}
	rest := metric
	for _, u := range metricUnits {
		if base, ok := strings.CutSuffix(metric, u.suffix); ok && base != "" {
			look.unit, look.scale, look.share = u.unit, u.scale, u.share
			rest = base
			if u.keep {
				rest = base + strings.TrimSuffix(u.suffix, "_per_s")
			}
			break
		}
	}
	words := strings.FieldsFunc(rest, func(r rune) bool { return r == '_' || r == '.' || r == '-' })
	if len(words) == 0 {
		look.title = metric
		return look
	}
	if name, ok := drivers.MetricSource(strings.ToLower(words[0])); ok {
		words[0] = name
	}
	look.title = strings.Join(append(words[:1], spelt(strings.Join(words[1:], "_"))...), " ")
	if r := []rune(look.title); unicode.IsLower(r[0]) {
		r[0] = unicode.ToUpper(r[0])
		look.title = string(r)
	}
	return look
}

// spelt are the words of part of a metric name, abbreviations spelt as
// people write them (metricWords).
func spelt(name string) []string {
	words := strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '.' || r == '-' })
	for i, w := range words {
		if s, ok := metricWords[strings.ToLower(w)]; ok {
			words[i] = s
		}
	}
	return words
}
