package experiment

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/results"
)

// step runs one load or measured trial, appends its row and returns the
// throughput measured (0 when the trial did not run).
func (tr *targetRun) step(ctx context.Context, st *spec.Step) (float64, error) {
	if st.Search {
		return tr.search(ctx, st)
	}
	row, err := tr.trial(ctx, st)
	if err == nil && st.Kind == spec.Load && row.Status == results.StatusCompleted {
		tr.lastLoad = st
	}
	if err != nil || row.Status != results.StatusSuperseded {
		return row.Throughput, err
	}
	again := *st
	again.ID = results.RetryID(st.ID)
	then := ""
	var reload spec.Step
	if st.ChangesKeys {
		// The first try inserted, deleted or moved what the retry
		// would meet: it runs on the data as loaded, loaded again.
		reload = *tr.lastLoad
		reload.ID = results.RetryID(reload.ID)
		then = "loading its data again (" + reload.ID + "), then "
	}
	fmt.Fprintf(tr.s.opts.Stderr, "dbarena: %s: its throughput moved within the window; %smeasuring it again as %s (both rows are kept; the first is left out of every comparison)\n",
		st.ID, then, again.ID)
	if st.ChangesKeys {
		if _, err := tr.trial(ctx, &reload); err != nil {
			var tf *trialFailure
			if !errors.As(err, &tf) {
				return 0, err
			}
			// The retry cannot run: its row says so, where the first
			// try's points.
			_, err = tr.failed(tr.emptyRow(&again), tr.label(&again), "not measured again: its data could not be loaded again ("+reload.ID+" failed)")
			return 0, err
		}
	}
	row, err = tr.trial(ctx, &again)
	return row.Throughput, err
}

// measureAgain says whether a measured trial is run once more: its
// throughput moved within the window (not-steady), most often a
// transient on the machine (a neighbour's burst, a database's periodic
// housekeeping) rather than a trend of the database's, and it is the
// first try. A trial that inserted or deleted records, or moved a
// ledger's money, is measured again only when its data can be loaded
// again (loaded says a load of the target completed): the retry would
// otherwise meet what the first try left. A rate search's trial is not:
// the search judges its probes. Measured here on a steady PostgreSQL
// (the quickstart's design, 16 workers, 40 s windows), 7 of 210
// 6-second windows moved by more than 20%: a 12-trial run had a flagged
// trial one time in three.
func measureAgain(st *spec.Step, row results.Trial, loaded bool) bool {
	first := !strings.HasSuffix(st.ID, results.RetryID(""))
	return first && st.Kind == spec.Run && !st.Search && !st.Probe && (loaded || !st.ChangesKeys) &&
		results.HasFlag(row.Flags, results.FlagNotSteady)
}
