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

// TestMeasuredAgainIsOneWarning: the trials measured again are one
// warning, in the verdict and in the report, naming each and why; their
// own flags (why they were measured again) are not repeated.
func TestMeasuredAgainIsOneWarning(t *testing.T) {
	var trials []results.Trial
	for _, id := range []string{"pg.a", "pg.b", "pg.c", "pg.d"} {
		trials = append(trials,
			results.Trial{ID: id, Kind: results.KindRun, Target: "pg", Workload: id[3:], Repetition: 1, Status: results.StatusSuperseded,
				StatusReason: "other processes took a share of its cores: measured again as " + id + ".retry in the next round",
				Throughput:   100, Flags: []results.Flag{results.Flagf(results.FlagInterfered, "other processes 30%% took 30%% of core 1")}},
			results.Trial{ID: id + ".retry", Kind: results.KindRun, Target: "pg", Workload: id[3:], Repetition: 1,
				Status: results.StatusCompleted, Throughput: 1000})
	}
	d := &results.Data{Manifest: results.Manifest{Status: results.StatusCompleted}, Trials: trials}
	ws := warnings(d)
	require.Len(t, ws, 1, "%v", ws)
	require.Equal(t, "measured again", ws[0].Subject)
	require.Equal(t, "4 trials: pg.a (other processes took a share of its cores), pg.b (other processes took a share of its cores), pg.c (other processes took a share of its cores), pg.d (other processes took a share of its cores); the first tries are on record and left out of every comparison", ws[0].Text)
	v := Verdict(d)
	require.Equal(t, 1, strings.Count(v, "warning: "), v)
	require.Contains(t, v, "warning: measured again: 4 trials: pg.a (")
	require.NotContains(t, v, "interfered")
}
