package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/results"
)

// tpccDatabase loads one TPC-C warehouse into a PostgreSQL database of
// the test's own (the locks below would stall another test's TPC-C) and
// returns its URL.
func tpccDatabase(t *testing.T, name string) string {
	t.Helper()
	u, err := url.Parse(testenv.Addr(t, "DBARENA_TEST_POSTGRES"))
	require.NoError(t, err)
	u.Path = "/" + name
	code, out, errs := run(t, context.Background(), "ycsb", "load", "postgres", "-P", "../../../workloads/workloadtpcc",
		"-p", "postgres.url="+u.String(), "-threads", "4", "-q")
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	return u.String()
}

// holdDistrict waits for a TPC-C run's first New-Order to commit, then,
// lockAfter later, takes an exclusive lock on the district table and
// holds it for holdFor: every New-Order, Payment and Stock-Level then
// waits on it, as on a database that stopped answering. Its channel
// gives when the run began (as seen here: no later than it did) and
// when the lock was taken, and closes once the lock is released.
func holdDistrict(t *testing.T, ctx context.Context, dbURL string, lockAfter, holdFor time.Duration) <-chan [2]time.Time {
	t.Helper()
	conn, err := pgx.Connect(ctx, dbURL)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close(context.Background()) })
	var loaded int64
	require.NoError(t, conn.QueryRow(ctx, "SELECT sum(d_next_o_id) FROM district").Scan(&loaded))
	out := make(chan [2]time.Time, 1)
	go func() {
		defer close(out)
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			var now int64
			if conn.QueryRow(ctx, "SELECT sum(d_next_o_id) FROM district").Scan(&now) != nil || now == loaded {
				continue
			}
			began := time.Now()
			time.Sleep(lockAfter)
			tx, err := conn.Begin(ctx)
			if err != nil {
				return
			}
			if _, err := tx.Exec(ctx, "LOCK TABLE district IN ACCESS EXCLUSIVE MODE"); err != nil {
				_ = tx.Rollback(ctx)
				return
			}
			out <- [2]time.Time{began, time.Now()}
			time.Sleep(holdFor)
			_ = tx.Rollback(ctx)
			return
		}
	}()
	return out
}

// TestTPCCStuckTransactionsCount stops PostgreSQL answering TPC-C's
// terminals for the last part of the window (a lock on district held
// past the window's end): the transactions stuck there count as the
// YCSB path counts operations in flight at the end, at their latency so
// far, and flag the trial stalled, unpaced and under spec pacing alike.
// Before, they were "aborted" and left out of every latency (New-Order
// max 335 ms, no flag, "every p90 within its limit"). The consistency
// check then runs once the lock is gone, and holds: the stuck
// transactions were cancelled whole.
func TestTPCCStuckTransactionsCount(t *testing.T) {
	dbURL := tpccDatabase(t, "dbarena_stuck")
	const window, lockAfter = 8 * time.Second, 2500 * time.Millisecond
	for _, mode := range []string{"unpaced", "spec"} {
		t.Run(mode, func(t *testing.T) {
			props := "{tpcc.warehouses: 1}"
			if mode == "spec" {
				props = "{tpcc.warehouses: 1, tpcc.mode: spec, tpcc.timescale: 0.1}"
			}
			file := writeExperiment(t, fmt.Sprintf(`name: stuck
properties: %s
targets:
  - name: pg
    database: postgres
    deploy: {provider: existing}
    properties: {postgres.url: "%s"}
workloads: [tpcc]
load: {enabled: false}
run: {duration: %s, threads: 10, warmup: 0s}
`, props, dbURL, window))
			held := holdDistrict(t, context.Background(), dbURL, lockAfter, window)
			res := filepath.Join(t.TempDir(), "r")
			code, out, errs := run(t, context.Background(), "run", file, "--results", res)
			require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
			at, ok := <-held
			require.True(t, ok, "the run's New-Orders were seen and the lock taken")
			for range held { // released: the next mode reads district
			}
			d, err := results.Read(res)
			require.NoError(t, err)
			row := rowsByID(d)["pg.tpcc"]
			require.Equal(t, results.StatusCompleted, row.Status, row.StatusReason)
			require.True(t, results.HasFlag(row.Flags, results.FlagStalled), "flags %q\n%s", row.Flags, errs)
			require.Positive(t, row.Aborted, "the stuck transactions were cut short by the run's stop")
			// The stuck ones count at their latency so far: since the
			// lock at the earliest, to the window's end at the latest
			// (the window began no later than the first New-Order seen).
			stuckFor := at[0].Add(window).Sub(at[1])
			var longest float64
			for _, op := range row.Ops {
				longest = max(longest, op.Latency.Max)
			}
			// (Under spec pacing the first New-Order is seen after its
			// keying time: the window began well before, and the stuck
			// ones waited less than stuckFor.)
			require.Greater(t, longest, 1e6, "the oldest stuck transaction counts, at over a second (µs)")
			require.Less(t, longest, 1e6*(stuckFor.Seconds()+0.5), "and no longer than it was stuck: keying and think times are not latency (µs)")
			require.Contains(t, errs, "TPC-C consistency: 11 of 11 conditions checked", "the check ran once the lock was gone")
			require.EqualValues(t, 0, row.Counters["tpcc.conditions_broken"])
		})
	}
}

// TestTPCCChecksAreBounded: the consistency check after a run waits on a
// database that does not answer (district locked past the run's end)
// for audit.timeout at most, and says so (exit 1); Ctrl-C during it
// exits 130 with the results marked interrupted. Before, it waited with
// no deadline, and an interrupt exited 1 with "interrupted": false.
func TestTPCCChecksAreBounded(t *testing.T) {
	dbURL := tpccDatabase(t, "dbarena_bounded")
	args := func(sum string, extra ...string) []string {
		return append([]string{"ycsb", "run", "postgres", "-P", "../../../workloads/workloadtpcc", "-p", "postgres.url=" + dbURL,
			"-threads", "4", "-q", "-p", "operationcount=0", "-p", "maxexecutiontime=3", "-p", "json.output=" + sum}, extra...)
	}
	t.Run("timeout", func(t *testing.T) {
		held := holdDistrict(t, context.Background(), dbURL, 2*time.Second, 12*time.Second)
		start := time.Now()
		code, out, errs := run(t, context.Background(), args(filepath.Join(t.TempDir(), "s.json"), "-p", "audit.timeout=2s")...)
		took := time.Since(start)
		_, ok := <-held
		require.True(t, ok, "the lock was taken")
		for range held { // released: the next subtest reads district
		}
		require.Equal(t, ExitFailure, code, "%s\n%s", out, errs)
		require.Contains(t, errs, "TPC-C consistency check: not finished within audit.timeout=2s")
		require.Less(t, took, 11*time.Second, "the check gave up before the lock was released")
	})
	t.Run("interrupted", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		held := holdDistrict(t, context.Background(), dbURL, 2*time.Second, 12*time.Second)
		go func() {
			if at, ok := <-held; ok {
				// The window ends 3 s after the run began, its stop's
				// grace a second later: the check is waiting by then.
				time.Sleep(time.Until(at[0].Add(5500 * time.Millisecond)))
			}
			cancel()
		}()
		sum := filepath.Join(t.TempDir(), "s.json")
		code, out, errs := run(t, ctx, args(sum)...)
		require.Equal(t, ExitInterrupted, code, "%s\n%s", out, errs)
		require.Contains(t, errs, "TPC-C consistency check: interrupted before it ended")
		b, err := os.ReadFile(sum)
		require.NoError(t, err)
		var s map[string]any
		require.NoError(t, json.Unmarshal(b, &s))
		require.Equal(t, true, s["interrupted"], "the summary says the run was interrupted")
		require.False(t, strings.Contains(errs, "panic"))
		for range held {
		}
	})
}
