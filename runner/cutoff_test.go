package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/clock"
	"github.com/dbarena/dbarena/runner"
)

// TestStallAtTheEndIsMeasured: paced at 1,000 ops/s for 6 s, the
// operation due at 3.000 s stalls 4 s, past the window's end. The 2,999
// operations due from 3.001 s to 5.999 s were never issued; they count
// at their latency so far, 6 s minus their due time, so the response
// time's p99 is the analytic 2.94 s (6,000 operations: 3,000 near 0,
// 2,999 spread over 1 ms to 2.999 s, the stalled one at 4 s; the 5,940th
// is 2.940 s), not the ~0 of the 3,001 that completed. The window closes
// at 6 s, when the time limit came, not when the worker came back.
func TestStallAtTheEndIsMeasured(t *testing.T) {
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	clk := clock.NewVirtual(1)
	db := &stallDB{clk: clk, stall: int64(4 * time.Second), stallEvery: 3001}
	res, err := runner.Run(context.Background(), runner.Config{Phase: runner.Transactions, Threads: 1, Seed: 1,
		Target: 1000, MaxExecutionTime: 6 * time.Second, Clock: clk}, wl, db)
	require.NoError(t, err)
	read := opSummary(t, res.Measured, "READ")
	require.Equal(t, int64(3001), read.OK, "every operation up to the stalled one completed")
	require.NotNil(t, read.CutOff)
	require.Equal(t, int64(2999), read.CutOff.Count, "due from 3.001 s to 5.999 s, never issued")
	require.InDelta(t, 2_999_000, read.CutOff.Max, 3_000, "the first waited from 3.001 s to 6 s")
	require.Equal(t, int64(6000), read.Response.Count, "every operation due in the window")
	require.InEpsilon(t, 2_940_000, read.Response.P99, 0.01, "the analytic p99, µs")
	require.Less(t, read.Service.P99, 1.0, "the completed ones' service time is unchanged")
	require.Equal(t, 6*time.Second, res.Measured.Duration, "the window ends at the time limit")
	require.InDelta(t, 3001.0/6, res.Measured.OKThroughput, 0.01)
}

// TestNoCutOffWithoutAStall: a paced run that keeps up cuts nothing off,
// and a closed loop never counts unissued operations. (One worker: the
// virtual clock is one timeline, and two workers sleeping on it move it
// for each other.)
func TestNoCutOffWithoutAStall(t *testing.T) {
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	for _, target := range []float64{1000, 0} {
		clk := clock.NewVirtual(1)
		res, err := runner.Run(context.Background(), runner.Config{Phase: runner.Transactions, Threads: 1, Seed: 1,
			Target: target, MaxExecutionTime: 3 * time.Second, Clock: clk}, wl, &stallDB{clk: clk, cost: int64(100 * time.Microsecond)})
		require.NoError(t, err)
		read := opSummary(t, res.Measured, "READ")
		require.Nil(t, read.CutOff, "target %g", target)
	}
}
