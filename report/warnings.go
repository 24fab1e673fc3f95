package report

import (
	"fmt"

	"github.com/dbarena/dbarena/results"
)

// warning is one line of the report's warnings section.
type warning struct {
	// Subject is what the warning is about: a trial ID, "run",
	// "manifest" or a file.
	Subject string
	Text    string
}

// trialFlags returns the trial's validity flags plus those its figures
// imply but an older or killed writer may not have flagged: errors and a
// status other than completed.
func trialFlags(t *results.Trial) []results.Flag {
	flags := append([]results.Flag(nil), t.Flags...)
	if t.Errors > 0 && !results.HasFlag(flags, results.FlagErrors) {
		flags = append(flags, results.ErrorsFlag(t.Errors, t.Operations))
	}
	if f := referenceFlag(t); f != "" && !results.HasFlag(flags, results.FlagClientCeiling) {
		flags = append(flags, f)
	}
	switch t.Status {
	case results.StatusInterrupted, results.StatusRunning:
		if !results.HasFlag(flags, results.FlagInterrupted) {
			flags = append(flags, results.InterruptedFlag())
		}
	case results.StatusSuperseded:
		flags = append(flags, results.NewFlag(results.FlagSuperseded, t.StatusReason+"; left out of every comparison"))
	case results.StatusFailed:
		if !results.HasFlag(flags, results.FlagFailed) {
			reason := t.StatusReason
			if reason == "" {
				reason = "the trial did not finish"
			}
			flags = append(flags, results.NewFlag(results.FlagFailed, reason+"; left out of every comparison"))
		}
	}
	return flags
}

// statusWarning says why the results are partial, or "" for a completed
// run.
func statusWarning(m *results.Manifest) string {
	steps := ""
	switch ran := m.CompletedSteps + m.FailedSteps; {
	case m.PlannedSteps == 0:
	case m.Status == results.StatusFailed && ran >= m.PlannedSteps:
		// Every step ran; some failed: "after 3 of 4 steps" read as a
		// run that stopped short.
		steps = fmt.Sprintf(": every step ran, %d of %d failed", m.FailedSteps, ran)
	case m.FailedSteps > 0:
		steps = fmt.Sprintf(" after %d of %d steps (%d of them failed)", ran, m.PlannedSteps, m.FailedSteps)
	default:
		steps = fmt.Sprintf(" after %d of %d steps", m.CompletedSteps, m.PlannedSteps)
	}
	switch m.Status {
	case results.StatusCompleted:
		return ""
	case results.StatusInterrupted:
		return "the run was interrupted" + steps + ": partial results"
	case results.StatusFailed:
		msg := "the run failed" + steps
		if m.Error != "" {
			msg += " (" + m.Error + ")"
		}
		return msg + ": partial results"
	case results.StatusRunning:
		if m.PlannedSteps > 0 {
			return fmt.Sprintf("the run is still going (%d of %d steps done): partial results", m.CompletedSteps, m.PlannedSteps)
		}
		return "the run is still going: partial results"
	case "":
		return "the manifest records no status: results may be partial"
	default:
		return fmt.Sprintf("the run's status is %q: results may be partial", m.Status)
	}
}

// warnings lists everything that should make a reader doubt a number:
// how the run ended, every trial flag, the manifest's warnings and rows
// the reader had to skip. The trials measured again are one warning:
// their first tries count nowhere.
func warnings(d *results.Data) []warning {
	var out, again []warning
	for _, w := range warningsOf(d, false) {
		if results.Flag(w.Text).Kind() == results.FlagSuperseded {
			again = append(again, w)
			continue
		}
		out = append(out, w)
	}
	if len(again) == 0 {
		return out
	}
	ids := make([]string, len(again))
	for i, w := range again {
		ids[i] = w.Subject
	}
	return append(out, remeasured(ids, again))
}

// warningsOf is warnings, with the errors the run's own log has said
// (the run's error, each failed trial's reason) named rather than
// repeated when afterRun: the verdict the run prints at its end.
func warningsOf(d *results.Data, afterRun bool) []warning {
	var out []warning
	m := d.Manifest
	if afterRun {
		m.Error = ""
	}
	if msg := statusWarning(&m); msg != "" {
		out = append(out, warning{Subject: "run", Text: msg})
	}
	for i := range d.Trials {
		t := &d.Trials[i]
		if t.Status == results.StatusSuperseded {
			// Its own flags are why it was measured again: one line
			// says so (groupWarnings folds them all into one).
			out = append(out, warning{Subject: t.ID, Text: string(results.NewFlag(results.FlagSuperseded, t.StatusReason))})
			continue
		}
		for _, f := range trialFlags(t) {
			if afterRun && f.Kind() == results.FlagFailed {
				f = results.NewFlag(results.FlagFailed, "its error is above (and in "+results.TrialsFile+"); left out of every comparison")
			}
			out = append(out, warning{Subject: t.ID, Text: string(f)})
		}
	}
	for _, w := range d.Manifest.Warnings {
		out = append(out, warning{Subject: "manifest", Text: w})
	}
	for _, w := range d.Warnings {
		out = append(out, warning{Subject: "files", Text: w})
	}
	return out
}

// Working-set states.
const (
	fitYes     = "fits"
	fitNo      = "exceeds"
	fitUnknown = "unknown"
)

// fit says whether a target's data could be served from memory: a
// benchmark whose data fits in RAM measures a cache, one whose data does
// not measures the disk, and comparing the two compares nothing.
type fit struct {
	Target string
	State  string
	Text   string
}

// workingSet compares the data size on disk with the memory limit and
// the server's peak memory, whichever are known.
func workingSet(t *results.TargetInfo) fit {
	f := fit{Target: t.Name, State: fitUnknown}
	data := float64(t.DataBytes)
	limit, server := float64(t.MemoryBytes), float64(t.ServerMemoryBytes)
	switch {
	case t.DataBytes <= 0:
		f.Text = "unknown: the data size on disk was not measured"
	case t.MemoryBytes > 0 && data > limit:
		f.State = fitNo
		f.Text = fmt.Sprintf("does not fit: %s of data on disk, memory limit %s", fmtBytes(data), fmtBytes(limit))
	case t.ServerMemoryBytes > 0 && data <= server:
		f.State = fitYes
		f.Text = fmt.Sprintf("fits: %s of data on disk, server peak memory %s", fmtBytes(data), fmtBytes(server))
	case t.ServerMemoryBytes > 0:
		f.State = fitNo
		f.Text = fmt.Sprintf("likely does not fit: %s of data on disk, server peak memory %s", fmtBytes(data), fmtBytes(server))
		if t.MemoryBytes > 0 {
			f.Text += fmt.Sprintf(" (limit %s)", fmtBytes(limit))
		}
		f.Text += "; reads may come from the OS page cache or disk"
	case t.MemoryBytes > 0:
		f.State = fitYes
		f.Text = fmt.Sprintf("fits the memory limit: %s of data on disk, limit %s (server memory not measured)", fmtBytes(data), fmtBytes(limit))
	default:
		f.Text = fmt.Sprintf("unknown: %s of data on disk, but neither a memory limit nor the server's memory is known", fmtBytes(data))
	}
	return f
}
