package workload

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dbarena/dbarena/internal/suggest"
	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/properties/core"
)

// KnownProperty reports whether dbarena knows key.
func KnownProperty(key string) bool {
	for _, k := range core.Known() {
		if k == key {
			return true
		}
	}
	return false
}

// Warning is a property dbarena does not know.
type Warning struct {
	Key    string
	Source properties.Source
	// Suggestion is the closest known property, if one is close.
	Suggestion string
}

// String renders the warning for a log line.
func (w Warning) String() string {
	s := fmt.Sprintf("%s: unknown property %q is ignored", w.Source, w.Key)
	if w.Suggestion != "" {
		s += fmt.Sprintf(" (did you mean %q?)", w.Suggestion)
	}
	return s
}

func unknownWarnings(p *properties.Set, driverPrefixes []string) []Warning {
	var out []Warning
	for _, k := range p.Keys() {
		if KnownProperty(k) {
			continue
		}
		if prefix, _, ok := strings.Cut(k, "."); ok && slices.Contains(driverPrefixes, prefix) {
			continue
		}
		_, src, _ := p.Lookup(k)
		out = append(out, Warning{Key: k, Source: src, Suggestion: closest(k)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// SuggestProperty returns the known property nearest to key, or "" when
// none is close: for the "did you mean" of callers that refuse unknown
// properties rather than warn.
func SuggestProperty(key string) string { return closest(key) }

// closest returns the known property nearest to key by edit distance, if
// it is at most 3 edits away.
func closest(key string) string {
	best, bestD := "", 4
	for _, k := range core.Known() {
		if d := suggest.Distance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}
