package runner_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// TestWriteReadsBack checks that the properties Write makes parse back
// to the Config written, over a property file that said otherwise on
// every key: what a loader runs is what the experiment settled.
func TestWriteReadsBack(t *testing.T) {
	file := map[string]string{
		"recordcount": "100", "operationcount": "7", "threadcount": "3", "target": "10", "stages": "1s:2:5,1s:9",
		"maxexecutiontime": "30", "warmup.time": "4", "late.threshold": "1", "stop.grace": "2", "warmup.operations": "5",
		"warmup.steady": "true", "stoponerrorrate": "0.9", "maxerrorrate": "0.2", "batchsize": "8",
	}
	for name, want := range map[string]runner.Config{
		"run": {Phase: runner.Transactions, Threads: 12, Target: 1234.5, OperationCount: 0,
			MaxExecutionTime: 1500 * time.Millisecond, WarmupTime: 250 * time.Millisecond, LateThreshold: 3 * time.Millisecond,
			StopGrace: 0, WarmupOperations: 0, StopOnErrorRate: 0.25, MaxErrorRate: 1, BatchSize: 1},
		"stages": {Phase: runner.Transactions, Threads: 4, OperationCount: 99, WarmupSteady: true, WarmupTime: time.Second,
			Stages:          []runner.Stage{{Duration: 2 * time.Second, Threads: 4, Target: 0.5}, {Duration: time.Nanosecond + time.Hour, Threads: 1}},
			StopOnErrorRate: 0, MaxErrorRate: 0.01, BatchSize: 1},
		"load": {Phase: runner.Load, Threads: 2, Target: 0, BatchSize: 50, WarmupOperations: 3, StopGrace: time.Minute,
			StopOnErrorRate: 0.5, MaxErrorRate: 0.01},
	} {
		t.Run(name, func(t *testing.T) {
			p := properties.New()
			for k, v := range file {
				p.Set(k, v, properties.Source{File: "file"})
			}
			want.Write(p, properties.Source{File: "settled"})
			wcfg, _, err := workload.ParseConfig(p, nil)
			require.NoError(t, err)
			got, err := runner.ParseConfig(p, want.Phase, wcfg)
			require.NoError(t, err)
			// What the phase and the workload decide is not written.
			want.Interval, want.JudgeErrors = got.Interval, got.JudgeErrors
			want.InsertRetryLimit, want.InsertRetryInterval = got.InsertRetryLimit, got.InsertRetryInterval
			want.NotFoundIsNoError = got.NotFoundIsNoError
			require.Equal(t, want, got)
		})
	}
}
