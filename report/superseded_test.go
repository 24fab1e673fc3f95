package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// TestSupersededIsLeftOut: a trial measured again is shown with its flag
// and reason, and only its retry counts in the figures.
func TestSupersededIsLeftOut(t *testing.T) {
	first := results.Trial{ID: "pg.c", Kind: results.KindRun, Target: "pg", Workload: "c", Repetition: 1,
		Status: results.StatusSuperseded, StatusReason: "its throughput moved within the window: measured again as pg.c.retry",
		Throughput: 100, Flags: []results.Flag{results.Flagf(results.FlagNotSteady, "throughput fell by 30%%")}}
	retry := results.Trial{ID: "pg.c.retry", Kind: results.KindRun, Target: "pg", Workload: "c", Repetition: 1,
		Status: results.StatusCompleted, Throughput: 1000}
	d := &results.Data{Trials: []results.Trial{first, retry}}
	s := summarize(d)
	require.Len(t, s.rows, 1)
	require.Len(t, s.rows[0].cells, 1)
	c := s.rows[0].cells[0]
	require.Len(t, c.trials, 1)
	require.Equal(t, "pg.c.retry", c.trials[0].ID)
	require.Empty(t, c.failed)

	var shown []string
	for _, f := range trialFlags(&first) {
		shown = append(shown, string(f))
	}
	require.Contains(t, strings.Join(shown, "|"), "superseded: its throughput moved within the window: measured again as pg.c.retry; left out of every comparison")
	require.Empty(t, trialFlags(&retry))
}
