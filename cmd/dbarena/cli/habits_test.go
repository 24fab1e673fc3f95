package cli

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// The tests of this file hold YCSB habits and inputs that used to fail
// silently, or with a message naming a symptom rather than the cause.

func TestRunWithoutRecordCountSaysWhy(t *testing.T) {
	code, _, errs := run(t, context.Background(), "ycsb", "run", "basic", "-p", "operationcount=10")
	require.Equal(t, ExitUsage, code, errs)
	require.Contains(t, errs, "recordcount=0 (the default)")
	require.Contains(t, errs, "set recordcount (-p recordcount=N) or -P a workload file")
	require.NotContains(t, errs, "upper bound")
}
