package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// TestLedgerExperiment runs the built-in ledger through an experiment
// on real PostgreSQL, MariaDB and Redis, after YCSB's workload A on the
// same table: each target reloads its accounts (A's random field0 is
// no balance), runs transfers from 8 workers on 50 hot accounts, and
// its row holds the audit: the total as loaded, none below the floor,
// the TRANSFER series in trials.csv.
func TestLedgerExperiment(t *testing.T) {
	file := writeExperiment(t, `name: ledger
properties: {recordcount: 50, table: ledger_usertable}
`+testServerTargets(t, 10)+`workloads: [a, ledger]
load: {drop: true}
run: {duration: 3s, threads: 8}
`)
	res := filepath.Join(t.TempDir(), "r")
	code, out, errs := run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	require.Contains(t, errs, "ledger audit: 50 of 50 accounts read")
	d, err := results.Read(res)
	require.NoError(t, err)
	rows := rowsByID(d)
	for _, tg := range []string{"pg", "rd", "my"} {
		require.Equal(t, results.KindLoad, rows[tg+".load.2"].Kind, "%s reloads for the ledger", tg)
		row := measuredRow(t, rows, tg+".ledger")
		require.EqualValues(t, 50*1000, row.Counters["ledger.total"], tg)
		require.EqualValues(t, 50*1000, row.Counters["ledger.expected_total"], tg)
		require.EqualValues(t, 50, row.Counters["ledger.accounts_read"], tg)
		require.Zero(t, row.Counters["ledger.below_floor"], tg)
		var transfers int64
		for _, op := range row.Ops {
			if op.Name == "TRANSFER" {
				transfers = op.Operations
				require.Zero(t, op.Errors, tg)
			}
		}
		require.Positive(t, transfers, "%s: trials.csv has the TRANSFER series", tg)
	}
}

// TestLedgerYCSBSummary runs the ledger with `dbarena ycsb` on
// PostgreSQL and reads the audit from the JSON summary; a ledger on a
// driver that cannot transfer is refused before it runs, naming why.
func TestLedgerYCSBSummary(t *testing.T) {
	url := pgURL(t)
	dir := t.TempDir()
	common := []string{"-P", "../../../workloads/workloadledger", "-p", "postgres.url=" + url, "-p", "table=cli_ledger",
		"-p", "recordcount=30", "-threads", "4", "-q"}
	code, out, errs := run(t, context.Background(), append([]string{"ycsb", "load", "postgres", "-p", "drop=true"}, common...)...)
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	sum := filepath.Join(dir, "run.json")
	code, out, errs = run(t, context.Background(), append([]string{"ycsb", "run", "postgres", "-p", "operationcount=3000", "-p", "json.output=" + sum}, common...)...)
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	require.Contains(t, errs, "invariants hold")
	b, err := os.ReadFile(sum)
	require.NoError(t, err)
	var s results.Summary
	require.NoError(t, json.Unmarshal(b, &s))
	require.NotNil(t, s.Ledger)
	require.EqualValues(t, 30, s.Ledger.Read)
	require.EqualValues(t, 30*1000, s.Ledger.Total)
	require.False(t, s.Ledger.Failed())
	require.Regexp(t, `\[LEDGER\], ledger\.declined, \d+\n`, out, "the declined transfers are counted, in the workload's section")

	// Accounts loaded at their floor decline every transfer: each one
	// counted done, and counted declined.
	atFloor := append([]string{"-p", "ledger.floor=1000"}, common...)
	code, out, errs = run(t, context.Background(), append([]string{"ycsb", "load", "postgres", "-p", "drop=true"}, atFloor...)...)
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	code, out, errs = run(t, context.Background(), append([]string{"ycsb", "run", "postgres", "-p", "operationcount=500",
		"-p", "json.output=" + sum}, atFloor...)...)
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	b, err = os.ReadFile(sum)
	require.NoError(t, err)
	s = results.Summary{}
	require.NoError(t, json.Unmarshal(b, &s))
	var transfers, declined float64 = -1, -1
	for _, op := range s.Measured.Ops {
		if op.Name == "TRANSFER" {
			transfers = float64(op.OK)
		}
	}
	for _, c := range s.DriverCounters {
		if c.Name == results.CounterLedgerDeclined {
			declined = c.Value
		}
	}
	require.Positive(t, transfers, "%s", out)
	require.Equal(t, transfers, declined, "every transfer was declined, and done")

	code, _, errs = run(t, context.Background(), "ycsb", "run", "basic", "-P", "../../../workloads/workloadledger", "-p", "operationcount=10", "-q")
	require.NotEqual(t, ExitOK, code)
	require.Contains(t, errs, "workload.kind ledger needs transfers between accounts (driver.Transferer), which this driver's sessions do not offer")
}

// TestLedgerSnapshotsDuringTheRun runs the ledger on PostgreSQL with a
// snapshot sum every 100 ms: a clean run's snapshots all hold; then 7
// is added to an account behind the ledger's back and taken away again
// a second later, while transfers run. The audit after the run finds the
// total as loaded, and only the snapshots show the money that appeared:
// the run fails, saying when.
func TestLedgerSnapshotsDuringTheRun(t *testing.T) {
	url := pgURL(t)
	dir := t.TempDir()
	common := []string{"-P", "../../../workloads/workloadledger", "-p", "postgres.url=" + url, "-p", "table=cli_ledger_snap",
		"-p", "recordcount=40", "-p", "ledger.audit.interval=100ms", "-p", "maxexecutiontime=3", "-p", "operationcount=0",
		"-target", "300", "-threads", "4", "-q"}
	code, out, errs := run(t, context.Background(), append([]string{"ycsb", "load", "postgres", "-p", "drop=true"}, common...)...)
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	sum := filepath.Join(dir, "run.json")
	code, out, errs = run(t, context.Background(), append([]string{"ycsb", "run", "postgres", "-p", "json.output=" + sum}, common...)...)
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	b, err := os.ReadFile(sum)
	require.NoError(t, err)
	var s results.Summary
	require.NoError(t, json.Unmarshal(b, &s))
	require.NotNil(t, s.Ledger.During)
	require.Greater(t, s.Ledger.During.Taken, int64(10), "about one every 100 ms of 3 s")
	require.Zero(t, s.Ledger.During.Broken)
	require.False(t, s.Ledger.Failed(), "%s", s.Ledger)

	conn, err := pgx.Connect(context.Background(), url)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	const account = "user6284781860667377211" // record 0
	nudge := func(by int) {
		_, err := conn.Exec(context.Background(), "UPDATE cli_ledger_snap SET field0 = (CAST(field0 AS BIGINT) + $1)::text WHERE ycsb_key = $2", by, account)
		require.NoError(t, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(time.Second)
		nudge(7)
		time.Sleep(time.Second)
		nudge(-7)
	}()
	code, _, errs = run(t, context.Background(), append([]string{"ycsb", "run", "postgres"}, common...)...)
	<-done
	require.Equal(t, ExitFailure, code, errs)
	require.Contains(t, errs, "total 40000 (loaded 40000, difference +0), 0 below the floor 0", "the end state is whole")
	require.Regexp(t, `during the run \d+ snapshot sums, \d+ BROKEN, the first at \d+\.\ds: total 40007 \(loaded 40000, difference \+7\)`, errs)
}
