package experiment

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/analysis/decide"
	"github.com/dbarena/dbarena/report"
)

func undecided(row string, reps, needed int) report.Finding {
	return report.Finding{Row: row, Workload: row, Figure: "throughput", Outcome: "cannot tell", Repetitions: reps, Needed: needed}
}

func rowsOf(fs []report.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Row)
	}
	return out
}

// TestPlanRound: an added round visits the undecided rows nearest a
// decision, as many as can each hope to be decided by the rounds that
// fit with them all, and leaves out a row that would need more than
// futileFactor times the repetitions the budget can give it (both sides
// of the factor), or more than decide.MaxNeeded.
func TestPlanRound(t *testing.T) {
	minute := time.Minute
	// 10 minutes at 1 minute a row: four rows fit 2 more rounds (5
	// repetitions each, up to 10 needed is hopeful), one row fits 10.
	p := planRound([]report.Finding{undecided("a", 3, 10), undecided("b", 3, 5), undecided("c", 3, 8), undecided("d", 3, 9)}, minute, 10*minute)
	require.Equal(t, []string{"b", "c", "d", "a"}, rowsOf(p.visit), "every row still hopeful, nearest first")
	require.Empty(t, p.futile)
	require.Equal(t, 2, p.fit)

	// a needs 11: beyond 2 x (3 + 2) with four rows; the three others
	// go on, 3 rounds fitting.
	p = planRound([]report.Finding{undecided("a", 3, 11), undecided("b", 3, 5), undecided("c", 3, 8), undecided("d", 3, 9)}, minute, 10*minute)
	require.Equal(t, []string{"b", "c", "d"}, rowsOf(p.visit))
	require.Equal(t, []string{"a"}, rowsOf(p.futile))
	require.Equal(t, 3, p.fit)
	require.Contains(t, p.futileText(), "a (about 11 repetitions a side would be needed, 3 so far)")

	// One row alone: 10 rounds fit, so up to 26 is hopeful, 27 is not.
	p = planRound([]report.Finding{undecided("a", 3, 26)}, minute, 10*minute)
	require.Equal(t, []string{"a"}, rowsOf(p.visit))
	p = planRound([]report.Finding{undecided("a", 3, 27)}, minute, 10*minute)
	require.Empty(t, p.visit)
	require.Equal(t, []string{"a"}, rowsOf(p.futile))

	// Repeating cannot decide a row past decide.MaxNeeded, whatever the
	// budget.
	p = planRound([]report.Finding{undecided("a", 3, decide.MaxNeeded+1), undecided("b", 3, 4)}, minute, 1000*minute)
	require.Equal(t, []string{"b"}, rowsOf(p.visit))
	require.Contains(t, p.futileText(), "a (more than 100 repetitions a side would be needed)")

	// A row without an interval yet needs one more repetition.
	p = planRound([]report.Finding{{Row: "e", Workload: "e", Outcome: "no interval", Repetitions: 1}}, minute, minute)
	require.Equal(t, []string{"e"}, rowsOf(p.visit))

	// No round fits: nothing visited and nothing called futile (the
	// budget, not the spread, ends the rounds).
	p = planRound([]report.Finding{undecided("a", 3, 4)}, minute, 59*time.Second)
	require.Empty(t, p.visit)
	require.Empty(t, p.futile)
}
