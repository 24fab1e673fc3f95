package results

import (
	"fmt"
	"strings"
)

// Flag is a validity warning on a trial: a sentence "kind: details", such
// as "errors: 3 of 1000 operations failed". The kind says what is wrong
// and is what readers group and count by; the details (a CPU figure, a
// count) differ per trial and are for people.
//
// A flag is stored as its text, one per line of trials.csv's flags
// column, as it always was: Flag only gives that text a type, so that the
// writers (experiment, Read's reconstruction, the report) build it and the
// readers (report, compare) take it apart with the same code, and old
// results directories read the same.
type Flag string

// FlagKind is what a Flag warns of: the text before its first colon.
type FlagKind string

// Kinds of flag. The strings are part of the results format: trials.csv
// holds them, so a kind is never renamed.
const (
	// FlagClientBound: the load generator, not the database, was the
	// bottleneck (its CPU near saturation, or Little's law shows workers
	// spending their time outside the database).
	FlagClientBound FlagKind = "client-bound"
	// FlagTargetMissed: the trial ran below its target rate.
	FlagTargetMissed FlagKind = "target missed"
	// FlagErrors: some operations failed.
	FlagErrors FlagKind = "errors"
	// FlagInterrupted: the trial was cut short; its figures are partial.
	FlagInterrupted FlagKind = "interrupted"
	// FlagStoppedEarly: the error policy ended the trial.
	FlagStoppedEarly FlagKind = "stopped early"
	// FlagAborted: operations in flight when the run stopped were cut
	// short.
	FlagAborted FlagKind = "aborted"
	// FlagPacing: the harness started paced operations late, so response
	// times hold its own delay.
	FlagPacing FlagKind = "pacing"
	// FlagHostSaturated: the machine that ran the load generator (and,
	// on one host, the database too) was at or above 90% of its CPU:
	// the figures describe the machine's limit, not the database's.
	FlagHostSaturated FlagKind = "host-saturated"
	// FlagNotSteady: the throughput moved across the measured window
	// (package analysis/steady's trend test), so its mean describes a
	// moving target, such as a JVM still warming up.
	FlagNotSteady FlagKind = "not-steady"
	// FlagInterfered: processes outside the benchmark (steal by the
	// hypervisor included), or the experiment's idle targets, took a
	// share of the cores the database or the load generator ran on
	// (package analysis/interference): the trial is measured again.
	FlagInterfered FlagKind = "interfered"
	// FlagLoaderLost: a loader process of the trial died, hung or lost
	// its link; the trial holds what every loader measured until then
	// and fails by the error policy.
	FlagLoaderLost FlagKind = "loader lost"
	// FlagReconstructed: Read rebuilt the row from the trial's intervals
	// because the writer died before writing it.
	FlagReconstructed FlagKind = "reconstructed"
	// FlagClientCeiling: dbarena reached a small share of the database's
	// own load tool on the same reads. The report adds it; it is not
	// written to trials.csv.
	FlagClientCeiling FlagKind = "client ceiling"
	// FlagStalled: operations due in the measured window were still
	// waiting on the database when it closed, long past the others'
	// latency: the database stopped answering at the end. They count in
	// the percentiles at their latency so far.
	FlagStalled FlagKind = "stalled"
	// FlagFailed: the trial did not finish and is left out of every
	// comparison. The report adds it from the row's status.
	FlagFailed FlagKind = "failed"
	// FlagSuperseded: the trial was measured again (its throughput moved
	// within its window, or other processes took its cores) and is left out of every comparison; the
	// retry's row counts instead. The report adds it from the row's
	// status.
	FlagSuperseded FlagKind = "superseded"
)

// NewFlag returns a flag of kind with details.
func NewFlag(kind FlagKind, details string) Flag {
	return Flag(string(kind) + ": " + details)
}

// Flagf returns a flag of kind with details formatted as by fmt.Sprintf.
func Flagf(kind FlagKind, format string, args ...any) Flag {
	return NewFlag(kind, fmt.Sprintf(format, args...))
}

// ErrorsFlag is the flag of a trial where failed of total operations
// failed. The experiment writes it and the report adds it to rows that
// lack it, in the same words.
func ErrorsFlag(failed, total int64) Flag {
	return Flagf(FlagErrors, "%d of %d operations failed", failed, total)
}

// InterruptedFlag is the flag of a trial that was cut short.
func InterruptedFlag() Flag {
	return NewFlag(FlagInterrupted, "partial trial")
}

// Kind returns the flag's kind: its text before the first colon, trimmed.
// A flag written by a later version may hold a kind this one does not
// name; it is returned as written, so that it still groups with its own.
func (f Flag) Kind() FlagKind {
	kind, _, _ := strings.Cut(string(f), ":")
	return FlagKind(strings.TrimSpace(kind))
}

// Details returns the flag's text after its kind, or the whole text for a
// flag without a colon.
func (f Flag) Details() string {
	_, details, ok := strings.Cut(string(f), ":")
	if !ok {
		return string(f)
	}
	return strings.TrimSpace(details)
}

// HasFlag reports whether flags hold one of kind.
func HasFlag(flags []Flag, kind FlagKind) bool {
	for _, f := range flags {
		if f.Kind() == kind {
			return true
		}
	}
	return false
}

// joinFlags writes flags one per line, as trials.csv's flags column holds
// them: flags are sentences that may hold "; " and ", " themselves.
func joinFlags(flags []Flag) string {
	texts := make([]string, len(flags))
	for i, f := range flags {
		texts[i] = string(f)
	}
	return strings.Join(texts, "\n")
}
