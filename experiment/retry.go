package experiment

import (
	"context"
	"fmt"

	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/results"
)

// maxAttempts is how many times a trial is measured again at most: a
// machine whose other processes take a core for minutes will not give
// it back for a third try, and the verdict names the trial instead.
const maxAttempts = 2

// step runs one load or measured trial and returns its row (empty when
// the trial did not run). A load that completed is the target's data; a
// run that changes keys leaves it changed.
func (tr *targetRun) step(ctx context.Context, st *spec.Step) (results.Trial, error) {
	if st.Search {
		x, err := tr.search(ctx, st)
		return results.Trial{Throughput: x, Status: results.StatusCompleted}, err
	}
	row, err := tr.trial(ctx, st)
	switch {
	case st.Kind == spec.Load && err == nil && row.Status == results.StatusCompleted:
		tr.data, tr.dirty = st.Data, false
		tr.loads[st.Data] = st
	case st.Kind == spec.Run && st.ChangesKeys && row.Status != "":
		tr.dirty = true
	}
	return row, err
}

// ensureData loads st's data again when the target holds other data or
// data a run changed since its load: the plan's own loads see to that,
// but a trial measured again, or one after it, finds what the retry
// left. The load runs as its last completed load of that data did,
// under the load's ID with an attempt's suffix. The error is a
// trialFailure when the load failed.
func (tr *targetRun) ensureData(ctx context.Context, st *spec.Step) error {
	if !tr.s.plan.Spec.Load.Enabled || (tr.data == st.Data && !tr.dirty) {
		return nil
	}
	ld := tr.loads[st.Data]
	if ld == nil {
		// Never loaded: the run goes on as the plan has it.
		return nil
	}
	if tr.reloads == nil {
		tr.reloads = map[string]int{}
	}
	// Named after the plan's load, however often it ran again.
	base := baseID(ld)
	tr.reloads[base]++
	again := *ld
	again.Attempt = tr.reloads[base]
	again.ID = results.AgainID(base, again.Attempt)
	fmt.Fprintf(tr.s.opts.Stderr, "dbarena: %s: its data is not as loaded (a trial measured again changed it): loading it again as %s\n", st.ID, again.ID)
	row, err := tr.step(ctx, &again)
	if err == nil && row.Status != results.StatusCompleted {
		err = &trialFailure{id: again.ID, reason: row.StatusReason}
	}
	return err
}

// measureAgain says why a measured trial is run once more ("" when it
// is not): its throughput moved within the window (not-steady), or other
// processes took a share of its cores (interfered), most often a
// transient on the machine (a neighbour's burst, a database's periodic
// housekeeping) rather than a trend of the database's; and it has been
// measured fewer than maxAttempts times again. A trial that inserted or
// deleted records, or moved a ledger's money, is measured again only
// when its data can be loaded again (loaded): the retry would otherwise
// meet what the first try left. A rate search's trial is not: the
// search judges its probes. Measured here on a steady PostgreSQL (the
// quickstart's design, 16 workers, 40 s windows), 7 of 210 6-second
// windows moved by more than 20%: a 12-trial run had a flagged trial
// one time in three.
func measureAgain(st *spec.Step, row results.Trial, loaded bool) string {
	if st.Attempt >= maxAttempts || st.Kind != spec.Run || st.Search || st.Probe || (st.ChangesKeys && !loaded) {
		return ""
	}
	switch {
	case results.HasFlag(row.Flags, results.FlagInterfered):
		return "other processes took a share of its cores"
	case results.HasFlag(row.Flags, results.FlagNotSteady):
		return "its throughput moved within the window"
	}
	return ""
}
