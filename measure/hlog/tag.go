package hlog

import "strings"

// The tags of dbarena's interval logs. A tag is an operation type's name
// with at most two prefixes: WarmupPrefix first for an interval of the
// warm-up, then one of IntendedPrefix or FailedPrefix. PacingTag, also
// after WarmupPrefix, holds the harness's own lateness. Examples: "READ",
// "Intended-READ", "FAILED-UPDATE", "WARMUP-Intended-SCAN", "PACING".
const (
	WarmupPrefix   = "WARMUP-"
	IntendedPrefix = "Intended-"
	FailedPrefix   = "FAILED-"
	PacingTag      = "PACING"
)

// Kind says what the histograms of a tag hold.
type Kind int

// Kinds of tag.
const (
	// Service: latencies of successful operations from their actual
	// start.
	Service Kind = iota
	// Intended: latencies of successful operations from their intended
	// start (response time), under a target rate.
	Intended
	// Failed: latencies of failed operations.
	Failed
	// Pacing: how late the harness started paced operations.
	Pacing
)

// Tag is a parsed tag of a dbarena interval log.
type Tag struct {
	Warmup bool
	Kind   Kind
	// Op is the operation type ("READ"); empty for Pacing.
	Op string
}

// String writes the tag as it appears in a log.
func (t Tag) String() string {
	var b strings.Builder
	if t.Warmup {
		b.WriteString(WarmupPrefix)
	}
	switch t.Kind {
	case Intended:
		b.WriteString(IntendedPrefix)
	case Failed:
		b.WriteString(FailedPrefix)
	case Pacing:
		b.WriteString(PacingTag)
		return b.String()
	}
	b.WriteString(t.Op)
	return b.String()
}

// ParseTag reads a tag written by Tag.String; any other tag reads as the
// service times of an operation of that name.
func ParseTag(s string) Tag {
	var t Tag
	s, t.Warmup = strings.CutPrefix(s, WarmupPrefix)
	switch {
	case s == PacingTag:
		t.Kind = Pacing
		return t
	case strings.HasPrefix(s, IntendedPrefix):
		t.Kind, s = Intended, s[len(IntendedPrefix):]
	case strings.HasPrefix(s, FailedPrefix):
		t.Kind, s = Failed, s[len(FailedPrefix):]
	}
	t.Op = s
	return t
}
