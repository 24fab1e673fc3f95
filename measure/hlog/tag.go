package hlog

import "strings"

// The tags of dbarena's interval logs. A tag is an operation type's name
// with at most two prefixes: WarmupPrefix first for an interval of the
// warm-up, then one of IntendedPrefix, FailedPrefix or CutOffPrefix.
// PacingTag, also after WarmupPrefix, holds the harness's own lateness.
// Examples: "READ", "Intended-READ", "FAILED-UPDATE",
// "WARMUP-Intended-SCAN", "CUTOFF-READ", "PACING".
const (
	WarmupPrefix   = "WARMUP-"
	IntendedPrefix = "Intended-"
	FailedPrefix   = "FAILED-"
	CutOffPrefix   = "CUTOFF-"
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
	// CutOff: operations due in the measured window that had not
	// completed when it closed, at their latency so far (in the last
	// interval). Under a target rate the Intended tag holds them too;
	// without one, a user's latency is Service and CutOff together.
	CutOff
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
	case CutOff:
		b.WriteString(CutOffPrefix)
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
	case strings.HasPrefix(s, CutOffPrefix):
		t.Kind, s = CutOff, s[len(CutOffPrefix):]
	}
	t.Op = s
	return t
}
