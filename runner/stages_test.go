package runner_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/runner"
)

func TestStagesRoundTrip(t *testing.T) {
	in := []runner.Stage{{Duration: 30 * time.Second, Threads: 4}, {Duration: 1500 * time.Millisecond, Threads: 64, Target: 2500.5}}
	s := runner.FormatStages(in)
	require.Equal(t, "30s:4,1.5s:64:2500.5", s)
	out, err := runner.ParseStages(s)
	require.NoError(t, err)
	require.Equal(t, in, out)
	for bad, want := range map[string]string{
		"30s":       "wrong number of fields",
		"x:4":       "duration",
		"-1s:4":     "duration",
		"30s:0":     "threads",
		"30s:4:-5":  "target",
		"30s:4:NaN": "target",
		"30s:4:Inf": "target",
		"30s:4,10s": "stage 2",
	} {
		_, err := runner.ParseStages(bad)
		require.ErrorContains(t, err, want, bad)
	}
}
