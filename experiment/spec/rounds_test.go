package spec_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/experiment/spec"
)

// requireDataReady walks the plan as the experiment runs it and fails
// where a run would meet other data than it needs, or data a run before
// it changed.
func requireDataReady(t *testing.T, p *spec.Plan) {
	t.Helper()
	type state struct {
		data  string
		dirty bool
	}
	at := map[*spec.Target]*state{}
	for _, st := range p.Steps {
		s := at[st.Target]
		if s == nil {
			s = &state{}
			at[st.Target] = s
		}
		switch st.Kind {
		case spec.Load:
			s.data, s.dirty = st.Data, false
		case spec.Run:
			require.Equal(t, st.Data, s.data, "%s runs on other data than it needs", st.ID)
			require.False(t, s.dirty, "%s runs on data a run before it changed", st.ID)
			s.dirty = st.ChangesKeys
		}
	}
}

func roundsPlan(t *testing.T, seed uint64, extra ...string) *spec.Plan {
	t.Helper()
	lines := append([]string{"name: r", fmt.Sprintf("seed: %d", seed), "targets: [{name: pg, database: postgres}, {name: cas, database: cassandra}]",
		"workloads: [a, b, c, f, d, e]"}, extra...)
	return plan(t, lines...)
}

// TestRoundsVisitEveryCellOnce: each round runs every target's trial of
// every workload once, the targets' trials of one workload next to each
// other (loads aside), every run on its data as loaded; each target's
// first load comes before every round.
func TestRoundsVisitEveryCellOnce(t *testing.T) {
	p := roundsPlan(t, 7, "run: {repetitions: 3}")
	require.Equal(t, 3, p.Rounds())
	requireDataReady(t, p)
	require.Equal(t, "pg.load.1", p.Steps[0].ID)
	require.Equal(t, "cas.load.1", p.Steps[1].ID)
	seen := map[int]map[string]bool{}
	var runs []spec.Step
	for _, st := range p.Steps {
		if st.Kind != spec.Run {
			continue
		}
		require.Equal(t, st.Round, st.Repetition, st.ID)
		if seen[st.Round] == nil {
			seen[st.Round] = map[string]bool{}
		}
		cell := st.Target.Name + "." + st.Workload.Name
		require.False(t, seen[st.Round][cell], "%s twice in round %d", cell, st.Round)
		seen[st.Round][cell] = true
		require.True(t, strings.HasSuffix(st.ID, fmt.Sprintf(".rep%d", st.Round)), st.ID)
		runs = append(runs, st)
	}
	for r := 1; r <= 3; r++ {
		require.Len(t, seen[r], 12, "round %d", r)
	}
	for i := 0; i < len(runs); i += 2 {
		require.Equal(t, runs[i].Workload, runs[i+1].Workload, "%s and %s: a workload's trials run next to each other", runs[i].ID, runs[i+1].ID)
		require.NotEqual(t, runs[i].Target, runs[i+1].Target)
	}
	// The rounds run in steps' order, round after round.
	round := 0
	for _, st := range p.Steps {
		require.GreaterOrEqual(t, st.Round, round, st.ID)
		round = st.Round
	}
}

// TestRoundsOrderFromTheSeed: the order is the seed's: the same seed
// plans the same order, another seed another one, and the rounds of one
// plan differ from each other.
func TestRoundsOrderFromTheSeed(t *testing.T) {
	order := func(p *spec.Plan, round int) string {
		var ids []string
		for _, st := range p.Steps {
			if st.Kind == spec.Run && st.Round == round {
				ids = append(ids, st.Target.Name+"."+st.Workload.Name)
			}
		}
		return strings.Join(ids, " ")
	}
	a, b, c := roundsPlan(t, 7, "run: {repetitions: 3}"), roundsPlan(t, 7, "run: {repetitions: 3}"), roundsPlan(t, 8, "run: {repetitions: 3}")
	for r := 1; r <= 3; r++ {
		require.Equal(t, order(a, r), order(b, r), "round %d", r)
	}
	require.NotEqual(t, order(a, 2)+order(a, 3), order(c, 2)+order(c, 3), "another seed, another order")
	require.NotEqual(t, order(a, 2), order(a, 3), "rounds differ")
	// Round 1 begins with the first load's data: the workloads that keep
	// it (a, b, c, f), not with d or e, which would need a load first.
	first := strings.Fields(order(a, 1))[0]
	require.NotContains(t, []string{"pg.d", "pg.e", "cas.d", "cas.e"}, first)
	// One repetition keeps the file's order.
	one := roundsPlan(t, 7)
	require.Equal(t, "pg.a cas.a pg.b cas.b pg.c cas.c pg.f cas.f pg.d cas.d pg.e cas.e", order(one, 1))
}

// TestAddRound: repetitions: auto plans its minimum rounds; each round
// added carries its number in its IDs and keeps every run's data ready.
func TestAddRound(t *testing.T) {
	p := roundsPlan(t, 3, "run: {repetitions: auto, budget: 10m}")
	require.True(t, p.Spec.Run.RepetitionsAuto)
	require.Equal(t, spec.MinRounds, p.Rounds())
	n := len(p.Steps)
	added := p.AddRound(nil)
	require.Equal(t, 4, p.Rounds())
	require.Len(t, p.Steps, n+len(added))
	runs := 0
	for i, st := range added {
		require.Equal(t, n+i, st.Index)
		require.Equal(t, 4, st.Round)
		if st.Kind == spec.Run {
			runs++
			require.True(t, strings.HasSuffix(st.ID, ".rep4"), st.ID)
		}
	}
	require.Equal(t, 12, runs)
	requireDataReady(t, p)

	// A round of the undecided rows alone: the others are left out, and
	// each trial's repetition counts its own cell's, not the round.
	n = len(p.Steps)
	added = p.AddRound(func(w string, params []spec.KV) bool { return w == "b" || w == "e" })
	require.Equal(t, 5, p.Rounds())
	var ids []string
	for _, st := range added {
		require.Equal(t, 5, st.Round)
		if st.Kind == spec.Run {
			ids = append(ids, st.ID)
		}
	}
	require.ElementsMatch(t, []string{"pg.b.rep5", "cas.b.rep5", "pg.e.rep5", "cas.e.rep5"}, ids)
	added = p.AddRound(func(w string, params []spec.KV) bool { return w == "e" })
	ids = nil
	for _, st := range added {
		require.Equal(t, 6, st.Round)
		if st.Kind == spec.Run {
			ids = append(ids, st.ID)
			require.Equal(t, 6, st.Repetition)
		}
	}
	require.ElementsMatch(t, []string{"pg.e.rep6", "cas.e.rep6"}, ids)
	added = p.AddRound(func(w string, params []spec.KV) bool { return w == "a" })
	for _, st := range added {
		if st.Kind == spec.Run {
			require.Equal(t, 5, st.Repetition, "a's fifth: it sat out rounds 5 and 6")
			require.True(t, strings.HasSuffix(st.ID, ".rep5"), st.ID)
		}
	}
	requireDataReady(t, p)
	require.Greater(t, len(p.Steps), n)

	// A sequential plan has no rounds to add.
	seq := roundsPlan(t, 3, "run: {repetitions: 2, order: sequential}")
	require.Zero(t, seq.Rounds())
	require.Nil(t, seq.AddRound(nil))
}

// TestRepetitionsSettings: auto takes a budget, a fixed count does not;
// order and equivalence are checked.
func TestRepetitionsSettings(t *testing.T) {
	for _, tc := range []struct {
		run, err string
	}{
		{"run: {repetitions: auto}", ""},
		{"run: {repetitions: auto, budget: 12m, equivalence: 3%}", ""},
		{"run: {repetitions: 3, budget: 12m}", "run.budget: a budget bounds run.repetitions: auto"},
		{"run: {repetitions: often}", `run.repetitions: want a positive integer or "auto"`},
		{"run: {repetitions: 31}", "want at most 30 repetitions"},
		{"run: {order: random}", `run.order: want "rounds"`},
		{"run: {order: rounds, until: saturated}", "run.order: run.until: saturated runs its steps in order"},
		{"run: {equivalence: 0}", "run.equivalence: want the equivalence margin as a share above 0"},
		{"run: {equivalence: 60%}", "run.equivalence"},
	} {
		t.Run(tc.run, func(t *testing.T) {
			_, err := spec.Parse("r.yaml", yamlText("name: r", "targets: [{database: postgres}]", "workloads: [c]", tc.run), testOptions())
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.err)
		})
	}
	s, err := spec.Parse("r.yaml", yamlText("name: r", "targets: [{database: postgres}]", "workloads: [c]", "run: {repetitions: auto}"), testOptions())
	require.NoError(t, err)
	require.Equal(t, spec.DefaultBudget, s.Run.Budget)
	require.Equal(t, spec.MinRounds, s.Run.Repetitions)
	require.True(t, s.Run.Rounds())
	s, err = spec.Parse("r.yaml", yamlText("name: r", "targets: [{database: postgres}]", "workloads: [c]", "matrix: {threads: [1, 2]}", "run: {until: saturated}"), testOptions())
	require.NoError(t, err)
	require.False(t, s.Run.Rounds(), "a sweep runs in order")
}
