package report

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// TestDesignSection: the report says what each database and the client
// ran on, how the databases warmed up, how the threads were chosen and
// what every trial did, from the manifest alone.
func TestDesignSection(t *testing.T) {
	m := &results.Manifest{
		Run: &results.RunDesign{DurationSeconds: 6, WarmupSeconds: 10, WarmupSteady: true, RepeatWarmupSeconds: 1,
			PrewarmSeconds: 60, ThreadsAuto: true, Repetitions: 3},
		Targets: []results.TargetInfo{
			{Name: "postgres", Provider: "local", Limits: "1 CPU (cfs quota 100000/100000 us, cores 1), cgroup v1",
				DatabaseCores: []int{1}, LoaderCores: []int{0},
				Prewarm: &results.Prewarm{Workload: "a", Threads: 2, Blocks: []float64{9000, 9100, 9050}, BlockSeconds: 5, Settled: true},
				Calibration: &results.Calibration{Workload: "a", Threads: 8, Share: 0.95,
					Points: []results.CalibrationPoint{{Threads: 1, Throughput: 4104}, {Threads: 2, Throughput: 5140}, {Threads: 8, Throughput: 9184}}}},
			{Name: "redis", Provider: "local"},
		},
	}
	v := designSection(m, nil)
	require.NotNil(t, v)
	got := map[string]string{}
	for _, l := range v.Lines {
		got[l.Label] = l.Text
	}
	require.Equal(t, "postgres on core 1 of its own, the load generator on core 0 (1 CPU (cfs quota 100000/100000 us, cores 1), cgroup v1): neither took CPU from the other, and each database's limit is its own. redis shared this machine's cores with the load generator (no deploy.pin): where the machine saturated, the trials say so (host-saturated).", got["Cores"])
	require.Contains(t, got["Target warm-up"], "each database ran workload a with 2 workers, few enough to leave a JIT compiler CPU, in 5s blocks, until 3 blocks in a row agreed within 5%: postgres warm after 15s (9,000, 9,100, 9,050 ops/s)")
	require.Contains(t, got["Threads"], "postgres 8 (ramp on workload a, ops/s by threads: 1: 4,104, 2: 5,140, 8: 9,184)")
	require.Equal(t, "warmed up until its throughput was steady (the last 5 seconds within 10%, at most 10s); repetitions after the first followed on the warm database and warmed up 1s, those after a reload until steady again; measured 6s; ran 3 times, so every ratio has a confidence interval and a lead counts only where it excludes 1x.", got["Each trial"])

	// A fixed design says so; one repetition says what is missing.
	fixed := designSection(&results.Manifest{Run: &results.RunDesign{DurationSeconds: 20, WarmupSeconds: 5, Threads: 8, Repetitions: 1}}, nil)
	require.Equal(t, []designLine{
		{"Threads", "8 for every trial, as the experiment set them."},
		{"Each trial", "warmed up 5s; measured 20s; ran once: no interval says how sure a ratio is."},
	}, fixed.Lines)
	// A directory from before the design was recorded: no section.
	require.Nil(t, designSection(&results.Manifest{Targets: []results.TargetInfo{{Name: "pg", Provider: "compose"}}}, nil))
}
