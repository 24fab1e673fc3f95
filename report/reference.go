package report

import (
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/results"
)

// clientCeiling is the ratio under which a trial is flagged: dbarena
// reached less than this share of the database's own tool on the same
// reads, so the comparison may measure the client.
const clientCeiling = 0.8

// referenceView is one trial measured beside a native load tool.
type referenceView struct {
	Trial, Target, Workload, Threads string
	Rate, Tool, ToolRate, Ratio      string
	Low                              bool
	Latency, ToolLatency             string
	Command, Note                    string
}

// referenceSection lists the trials with a reference run, and says why
// none ran where one was asked for and could not be.
func referenceSection(d *results.Data) (rows []referenceView, notes []string) {
	seen := map[string]bool{}
	for i := range d.Trials {
		t := &d.Trials[i]
		ref := t.Reference
		if ref.Tool == "" {
			// One note per reason and target, not one per trial.
			if ref.Note != "" && !seen[t.Target+ref.Note] {
				seen[t.Target+ref.Note] = true
				notes = append(notes, fmt.Sprintf("%s, %s: %s", t.Target, t.Workload, ref.Note))
			}
			continue
		}
		r := t.Ratio()
		rows = append(rows, referenceView{Trial: t.ID, Target: t.Target, Workload: t.Workload, Threads: fmt.Sprint(t.Threads),
			Rate: fmtRate(t.Throughput), Tool: ref.Tool, ToolRate: fmtRate(ref.Throughput),
			Ratio: fmt.Sprintf("%.0f%%", 100*r), Low: r < clientCeiling,
			Latency: fmtLatencyUs(t.Latency.Mean), ToolLatency: fmtLatencyUs(ref.MeanLatency),
			Command: ref.Command, Note: ref.Note})
	}
	return rows, notes
}

// referenceFlag is the validity flag of a trial that reached under
// clientCeiling of its reference, or "".
func referenceFlag(t *results.Trial) results.Flag {
	r := t.Ratio()
	if r == 0 || r >= clientCeiling {
		return ""
	}
	return results.Flagf(results.FlagClientCeiling, "dbarena reached %.0f%% of %s's throughput on the same reads (%s vs %s ops/s): this comparison may measure the client more than the database",
		100*r, t.Reference.Tool, fmtRate(t.Throughput), fmtRate(t.Reference.Throughput))
}

// fmtLatencyUs writes a mean latency given in microseconds as ms.
func fmtLatencyUs(us float64) string {
	if us <= 0 || !finite(us) {
		return dash
	}
	return strings.TrimSuffix(fmt.Sprintf("%.3f", us/1000), "0") + " ms"
}

// ceilingSentence is the verdict's line on reference runs: each trial's
// share of its database's own tool, or "" when none ran.
func ceilingSentence(d *results.Data) string {
	var parts []string
	for i := range d.Trials {
		t := &d.Trials[i]
		if r := t.Ratio(); r > 0 {
			parts = append(parts, fmt.Sprintf("%s reached %.0f%% of %s", t.ID, 100*r, t.Reference.Tool))
		}
	}
	const most = 4
	if len(parts) > most {
		parts = append(parts[:most], fmt.Sprintf("%d more in the report", len(parts)-most))
	}
	// A reference asked for and not run leaves that target without a
	// client ceiling: the reader hears why, once a target, rather than
	// only from trials.csv.
	seen := map[string]bool{}
	for i := range d.Trials {
		t := &d.Trials[i]
		if t.Reference.Tool != "" || !missingReference(t.Reference.Note) || seen[t.Target] {
			continue
		}
		seen[t.Target] = true
		parts = append(parts, fmt.Sprintf("%s none (%s)", t.Target, t.Reference.Note))
	}
	return strings.Join(parts, "; ")
}

// missingReference reports whether a reference note says the tool did
// not run where it would have measured the ceiling (not a repetition
// after the first, which shares the first's).
func missingReference(note string) bool {
	return (strings.HasPrefix(note, "no reference: ") || strings.HasPrefix(note, "reference failed: ")) &&
		!strings.Contains(note, "measured on the first repetition")
}
