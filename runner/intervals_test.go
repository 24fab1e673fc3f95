package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/clock"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/measure/hlog"
	"github.com/dbarena/dbarena/runner"
)

// TestWarmupBoundaryIntervalSplit: the interval the warm-up ends in is
// split where it ended, so that neither part's rate is diluted by the
// other's time: no dip to zero, or to half, at the end of the warm-up.
func TestWarmupBoundaryIntervalSplit(t *testing.T) {
	db, err := openBasic(basicParams("basic.delay", "1ms"))
	require.NoError(t, err)
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	log := &intervalLog{}
	res, err := runner.Run(context.Background(), runner.Config{Phase: runner.Transactions, Threads: 2, Seed: 1,
		Interval: 400 * time.Millisecond, WarmupTime: 600 * time.Millisecond, MaxExecutionTime: 2 * time.Second}, wl, db, log)
	require.NoError(t, err)
	steady := float64(res.Measured.Operations) / res.Measured.Duration.Seconds()
	var boundary time.Time
	for i, iv := range log.ivs {
		span := iv.End.Sub(iv.Start)
		require.False(t, iv.End.Before(iv.Start))
		if i > 0 && iv.Start.Before(log.ivs[i-1].End.Add(-time.Millisecond)) {
			t.Fatalf("interval %d starts at %s, before the last ended at %s", i, iv.Start, log.ivs[i-1].End)
		}
		if iv.Warmup && i+1 < len(log.ivs) && !log.ivs[i+1].Warmup {
			boundary = iv.End
			require.Equal(t, iv.End, log.ivs[i+1].Start, "the measured part starts where the warm-up's ended")
		}
		if span < 100*time.Millisecond {
			continue // too short to judge a rate by
		}
		rate := float64(iv.Ops) / span.Seconds()
		require.InEpsilon(t, steady, rate, 0.5, "interval %d (%s, warm-up %v): %.0f ops/s against %.0f", i, span, iv.Warmup, rate, steady)
	}
	require.False(t, boundary.IsZero(), "a warm-up interval is followed by a measured one")
	require.InDelta(t, 600, float64(boundary.Sub(res.Start).Milliseconds()), 100, "the split is where the warm-up ended")
}

// TestStalledSecondsStayInTheLog: while the database answers nothing,
// every interval is still collected and the interval log has a line for
// each operation type the run issues, empty, so that the outage stays
// where it happened.
func TestStalledSecondsStayInTheLog(t *testing.T) {
	db := newFreezeDB(t, 300*time.Millisecond, false)
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	path := filepath.Join(t.TempDir(), "run.hlog")
	hl, err := runner.CreateHlog(path, time.Now(), "test")
	require.NoError(t, err)
	log := &intervalLog{}
	cfg := readOnly(t)
	cfg.MaxExecutionTime = 1500 * time.Millisecond
	res, err := runner.Run(context.Background(), cfg, wl, db, log, hl)
	require.NoError(t, err)
	require.NoError(t, hl.Close())
	var empty int
	for _, iv := range log.ivs {
		if iv.Ops == 0 {
			empty++
		}
	}
	require.GreaterOrEqual(t, empty, 8, "the frozen second's intervals are collected, empty")
	require.EqualValues(t, cfg.Threads, res.Measured.Aborted)

	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rd := hlog.NewReader(f)
	var reads, emptyReads int
	var last time.Time
	for {
		iv, err := rd.Next()
		if err != nil {
			break
		}
		if tag := hlog.ParseTag(iv.Tag); tag.Op == "READ" && tag.Kind == hlog.Service {
			reads++
			if iv.Histogram.TotalCount() == 0 {
				emptyReads++
			}
			if e := iv.Start.Add(iv.Length); e.After(last) {
				last = e
			}
		}
	}
	require.Equal(t, len(log.ivs), reads, "one READ line per interval")
	require.GreaterOrEqual(t, emptyReads, 8)
	require.WithinDuration(t, res.End, last, 50*time.Millisecond, "the log reaches the run's end")
}

// lateClock is a virtual clock whose timers wake late by late
// nanoseconds: a harness that starts paced operations late.
type lateClock struct {
	*clock.Virtual
	late int64
}

func (c lateClock) NewTimer(bool) (clock.Timer, error) { return &lateTimer{c}, nil }

type lateTimer struct{ c lateClock }

func (t *lateTimer) SleepUntil(at int64) bool {
	if now := t.c.Now(); at+t.c.late > now {
		t.c.Advance(at + t.c.late - now)
	}
	return false
}
func (t *lateTimer) Stop()        {}
func (t *lateTimer) Close() error { return nil }

// TestPacingLateness: the harness's own lateness is measured apart from
// the database's: late wake-ups show in full, a backlog behind a slow
// database not at all (response time holds that).
func TestPacingLateness(t *testing.T) {
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	cases := []struct {
		name          string
		late, cost    time.Duration
		pacingP50     float64 // µs
		flagged       bool
		responseAbove float64 // µs
	}{
		{"late wake-ups", 300 * time.Microsecond, 100 * time.Microsecond, 300, true, 350},
		{"on time, slow database", 0, 2 * time.Millisecond, 0, false, 100_000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := clock.NewVirtual(1_000_000_000)
			db := &stallDB{clk: clk, cost: int64(tc.cost)}
			res, err := runner.Run(context.Background(), runner.Config{Phase: runner.Transactions, Threads: 1, Seed: 1,
				Target: 1000, OperationCount: 1000, Clock: lateClock{clk, int64(tc.late)}}, wl, db)
			require.NoError(t, err)
			p := res.Measured.Pacing
			require.NotNil(t, p)
			require.InDelta(t, tc.pacingP50, p.P50, 1, "pacing lateness p50, µs")
			read := opSummary(t, res.Measured, "READ")
			require.Greater(t, read.Response.P99, tc.responseAbove)
			require.Equal(t, tc.flagged, measure.PacingLate(*p, read.Service))
		})
	}
	// A closed loop has no schedule to be late for.
	res, err := runner.Run(context.Background(), runner.Config{Phase: runner.Transactions, Threads: 1, Seed: 1,
		OperationCount: 100, Clock: clock.NewVirtual(1)}, wl, &stallDB{})
	require.NoError(t, err)
	require.Nil(t, res.Measured.Pacing)
}

// TestErrorPolicy: a run whose failures pass its MaxErrorRate fails, and
// says why; below it, or not judged, it passes.
func TestErrorPolicy(t *testing.T) {
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	for _, tc := range []struct {
		judge   bool
		max     float64
		failing string
	}{
		{true, 0.01, "100 of 1000 operations failed (10.00%), above max-error-rate=0.01"},
		{true, 0.2, ""},
		{false, 0, ""},
	} {
		clk := clock.NewVirtual(1)
		res, err := runner.Run(context.Background(), runner.Config{Phase: runner.Transactions, Threads: 1, Seed: 1,
			OperationCount: 1000, JudgeErrors: tc.judge, MaxErrorRate: tc.max, Clock: clk}, wl, &stallDB{clk: clk, cost: 1000, failEvery: 10})
		require.NoError(t, err)
		require.Equal(t, tc.failing, res.Failure())
		require.InDelta(t, 900/res.Measured.Duration.Seconds(), res.Measured.OKThroughput, 1e-6)
	}
}

// TestNoAllocationsPerOperation checks the README's promise of zero
// allocations per operation, in a closed loop and in a paced one (whose
// waits used to allocate a timer each), from the difference between a
// short and a long run so that setup does not count.
func TestNoAllocationsPerOperation(t *testing.T) {
	wl := newWorkload(t, "recordcount", "1000", "readproportion", "1", "updateproportion", "0")
	for _, tc := range []struct {
		name    string
		threads int
		target  float64
	}{
		{"closed", 1, 0},
		{"paced", 8, 20_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			allocs := func(ops int64) uint64 {
				db, err := openBasic(basicParams())
				require.NoError(t, err)
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				_, err = runner.Run(context.Background(), runner.Config{Phase: runner.Transactions, Threads: tc.threads,
					Seed: 1, OperationCount: ops, Target: tc.target}, wl, db)
				runtime.ReadMemStats(&after)
				require.NoError(t, err)
				return after.Mallocs - before.Mallocs
			}
			short, long := allocs(2_000), allocs(22_000)
			perOp := (float64(long) - float64(short)) / 20_000
			require.Less(t, perOp, 0.01, "allocations per operation (%d for 2,000 operations, %d for 22,000)", short, long)
		})
	}
}
