package experiment

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/trial"
)

// TestSettleGivesTheStepsSettings checks that a trial's settings are the
// step's typed ones, laid over what its properties gave: the run's
// threads, rate, duration and warm-up (the measured phase keeping its
// length after the longest warm-up), the load's threads, batch, drop and
// verify, and a seed per repetition.
func TestSettleGivesTheStepsSettings(t *testing.T) {
	s := &spec.Spec{Name: "settle", File: "settle.yaml", Targets: []spec.Target{{Name: "m", Database: "memory", Driver: "memory"}},
		Workloads: []spec.Workload{{Name: "c", Builtin: "c"}},
		Load:      spec.LoadSettings{Enabled: true, Threads: 4, BatchSize: 16, Drop: true, Verify: true, Target: 500},
		Run: spec.RunSettings{Duration: 10 * time.Second, Threads: 3, Target: 50, Repetitions: 2,
			Warmup: 30 * time.Second, WarmupSteady: true}}
	plan, err := spec.NewPlan(s)
	require.NoError(t, err)
	tr := &targetRun{s: &runState{plan: plan, seed: 100}, t: &s.Targets[0]}
	settled := func(st *spec.Step, phase runner.Phase) trial.Settings {
		t.Helper()
		pl, err := trial.Parse("memory", st.Properties, phase, func(set *trial.Settings) error {
			tr.settle(st, set)
			return nil
		})
		require.NoError(t, err)
		return pl.Settings
	}
	load := settled(&plan.Steps[0], runner.Load)
	require.Equal(t, 4, load.Run.Threads)
	require.Equal(t, 500.0, load.Run.Target)
	require.Equal(t, 16, load.Run.BatchSize)
	require.True(t, load.Drop)
	require.True(t, load.Verify)

	for i, st := range plan.Steps[1:] {
		run := settled(&st, runner.Transactions)
		require.Equal(t, 3, run.Run.Threads, st.ID)
		require.Equal(t, 50.0, run.Run.Target, st.ID)
		require.Equal(t, uint64(100+i), run.Run.Seed, "a seed per repetition")
		require.Zero(t, run.Run.OperationCount, "a duration-bound run")
		require.Equal(t, st.Warmup+10*time.Second, run.Run.MaxExecutionTime, "%s: the measured phase lasts run.duration after the warm-up", st.ID)
		require.Equal(t, st.Warmup, run.Run.WarmupTime)
		require.Equal(t, st.WarmupSteady, run.Run.WarmupSteady)
	}
	for _, st := range plan.Steps[1:] {
		require.Equal(t, 40*time.Second, st.Warmup+st.Duration, "%s warms up until steady, at most 30s", st.ID)
	}
}
