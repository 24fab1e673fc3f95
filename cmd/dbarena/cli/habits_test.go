package cli

import (
	"context"
	"strings"
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

// TestBuiltinWorkloadByName runs the help's own example outside a
// checkout: the test's directory has no workloads/ folder.
func TestBuiltinWorkloadByName(t *testing.T) {
	for _, name := range []string{"workloada", "workloads/workloadc"} {
		t.Run(name, func(t *testing.T) {
			code, out, errs := run(t, context.Background(), "ycsb", "run", "memory", "-P", name, "-P", name, "--preload",
				"-p", "recordcount=50", "-p", "operationcount=50", "-q")
			require.Equal(t, ExitOK, code, errs)
			require.Equal(t, 1, strings.Count(errs, "-P "+name+": no such file; using the built-in workload"), errs)
			require.Contains(t, out, "[READ], Operations, ")
		})
	}
	code, _, errs := run(t, context.Background(), "ycsb", "run", "memory", "-P", "conf/workloada")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, "conf/workloada: no such file", "only the names the help uses stand for the built-ins")
}
