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

func TestMemoryRunWithoutPreloadRefused(t *testing.T) {
	code, out, errs := run(t, context.Background(), "ycsb", "run", "memory", "-P", workloadA,
		"-p", "recordcount=100", "-p", "operationcount=100", "-q")
	require.Equal(t, ExitUsage, code, errs)
	require.Contains(t, errs, "the memory driver keeps no data between processes")
	require.Contains(t, errs, "add --preload")
	require.NotContains(t, out, "NOT_FOUND", "nothing was measured")

	code, out, errs = run(t, context.Background(), "ycsb", "run", "memory", "-P", workloadA, "--preload",
		"-p", "recordcount=100", "-p", "operationcount=100", "-q")
	require.Equal(t, ExitOK, code, errs)
	require.NotContains(t, out, "NOT_FOUND")
}
