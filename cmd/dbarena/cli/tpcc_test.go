package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/workload/tpcc"
)

// TestTPCCExperiment runs `workloads: [tpcc]` against the test servers'
// PostgreSQL and MariaDB: each target loads one warehouse, runs the five
// transactions from four terminals, and its row holds each
// transaction's series and the consistency check (11 conditions hold).
// (Redis, which runs no SQL transactions, is refused before anything
// deploys: TestTPCCOnADriverWithoutTransactionsIsRefused.)
func TestTPCCExperiment(t *testing.T) {
	targets := testServerTargets(t, 11)
	rd := strings.Index(targets, "  - name: rd")
	my := strings.Index(targets, "  - name: my")
	file := writeExperiment(t, `name: tpcc
properties: {tpcc.warehouses: 1}
`+targets[:rd]+targets[my:]+`workloads: [tpcc]
run: {duration: 3s, threads: 4}
`)
	res := filepath.Join(t.TempDir(), "r")
	code, out, errs := run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	require.Contains(t, errs, "TPC-C consistency: 11 of 11 conditions checked")
	d, err := results.Read(res)
	require.NoError(t, err)
	rows := rowsByID(d)
	for _, tg := range []string{"pg", "my"} {
		row := measuredRow(t, rows, tg+".tpcc")
		require.EqualValues(t, 11, row.Counters["tpcc.conditions_checked"], tg)
		require.Zero(t, row.Counters["tpcc.conditions_broken"], tg)
		ran := map[string]int64{}
		for _, op := range row.Ops {
			ran[op.Name] = op.Operations
			require.Zero(t, op.Errors, "%s %s", tg, op.Name)
		}
		for _, name := range []string{"NEW_ORDER", "PAYMENT", "ORDER_STATUS", "DELIVERY", "STOCK_LEVEL"} {
			require.Positive(t, ran[name], "%s: trials.csv has the %s series", tg, name)
		}
		require.Greater(t, ran["NEW_ORDER"], 5*ran["DELIVERY"], "%s: the mix's 45%% against 4%%", tg)
		require.EqualValues(t, 4, row.Counters[results.CounterTPCCTerminals], tg)
	}
	require.Contains(t, errs, "TPC-C unpaced: ")
	// A load's figure is its warehouses: "0 ops/s, p50 743 ms" said
	// nothing.
	require.Regexp(t, `pg\.load\.1: loaded 1 warehouse \(and the items\) in [0-9.]+m?s, 0 errors`, errs)
	require.Regexp(t, `load: pg 1 warehouse \(and the items\) in [0-9.]+m?s, my 1 warehouse`, out)
	require.Contains(t, errs, "1 warehouse, 4 terminals; ")
	require.Contains(t, errs, "New-Orders rolled back by their unused item (")
	require.Contains(t, errs, "; every p90 within its limit")
	for _, tg := range []string{"pg", "my"} {
		_, counted := measuredRow(t, rows, tg+".tpcc").Counters[results.CounterTPCCRolledBack]
		require.True(t, counted, "%s: the rolled-back New-Orders are counted", tg)
	}
	// The verdict says what TPC-C judges beside the rate: New-Orders a
	// minute, New-Order's p90 against its limit, rollbacks and the
	// consistency check, for each target.
	require.Contains(t, out, "(p99 of all five transactions ", "the row's p99 is said to mix the transaction types")
	require.Regexp(t, `tpcc: pg: [0-9.]+ tx/s, [0-9.]+ New-Orders a minute \(unpaced, not tpmC\), New-Order p90 [0-9.]+ ms \(limit 5 s\), [0-9.]+% rolled back; TPC-C consistency: 11 of 11 conditions hold \| my: `, out)
	code, _, errs = run(t, context.Background(), "report", res)
	require.Equal(t, ExitOK, code, errs)
	html, err := os.ReadFile(filepath.Join(res, "report.html"))
	require.NoError(t, err)
	require.Contains(t, string(html), " tx/s</td>", "a TPC-C row's rate is transactions")
	require.Contains(t, string(html), "TPC-C unpaced: ", "the row's note names the mode")
	require.Contains(t, string(html), "TPC-C consistency: 11 of 11 conditions hold", "the report says the check passed")
	require.Contains(t, string(html), "Nothing to chart: a TPC-C load counts warehouses, not inserts (pg: 1 warehouse (and the items) in ", "no chart of zeros")
}

// TestTPCCBrokenConditionFails loads TPC-C with `dbarena ycsb load
// --verify` on PostgreSQL (all 12 conditions checked on the loaded
// database; the verify phase, which reads YCSB's records, is refused),
// runs it unpaced (transactions per second, no tpmC) and spec-paced at
// a hundredth of the times (New-Orders a minute bounded by the pacing;
// a target rate on top refused), reads the consistency check and the
// figures from the JSON summary, then
// breaks condition 1 behind the workload's back (the warehouse's
// year-to-date balance) and sees the next run fail, naming the
// warehouse. The break is one no transaction mends: Payment adds the same
// amount to W_YTD and to a D_YTD, where a district's next order number
// moved ahead would be closed again by the next New-Order there (and
// leave a gap, condition 3, instead).
func TestTPCCBrokenConditionFails(t *testing.T) {
	url := pgURL(t)
	dir := t.TempDir()
	common := []string{"-P", "../../../workloads/workloadtpcc", "-p", "postgres.url=" + url, "-threads", "4", "-q"}
	code, out, errs := run(t, context.Background(), append([]string{"ycsb", "load", "postgres", "--verify"}, common...)...)
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	require.Contains(t, errs, "TPC-C consistency: 12 of 12 conditions checked", "a load's read-back is every condition")
	code, _, errs = run(t, context.Background(), append([]string{"ycsb", "verify", "postgres"}, common...)...)
	require.Equal(t, ExitUsage, code, errs)
	require.Contains(t, errs, "tpcc.warehouses 1: the verify phase reads YCSB's records back")
	sum := filepath.Join(dir, "run.json")
	code, out, errs = run(t, context.Background(), append([]string{"ycsb", "run", "postgres", "-p", "operationcount=400", "-p", "json.output=" + sum}, common...)...)
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	b, err := os.ReadFile(sum)
	require.NoError(t, err)
	var s results.Summary
	require.NoError(t, json.Unmarshal(b, &s))
	require.NotNil(t, s.TPCC)
	require.Len(t, s.TPCC.Conditions, 11)
	require.False(t, s.TPCC.Failed(), "%s", s.TPCC)
	require.NotNil(t, s.TPCCFigures)
	require.Equal(t, tpcc.Unpaced, s.TPCCFigures.Mode)
	require.Zero(t, s.TPCCFigures.TpmC, "an unpaced run is never tpmC")
	require.Positive(t, s.TPCCFigures.TransactionsPerSecond)
	require.Contains(t, errs, "TPC-C unpaced: ")
	// The trial's TPC-C settings are its own section, not the driver's.
	require.Contains(t, out, "[TPCC], tpcc.warehouses, 1")
	require.NotContains(t, out, "[DRIVER], tpcc.")
	require.Contains(t, out, "[DRIVER], postgres.retries, 0")

	// Spec pacing at a hundredth of the times: 10 terminals can make at
	// most 1,286 New-Orders a minute, where unpaced ones made many more.
	code, _, errs = run(t, context.Background(), append([]string{"ycsb", "run", "postgres", "-p", "tpcc.mode=spec", "-target", "100"}, common...)...)
	require.Equal(t, ExitUsage, code, errs)
	require.Contains(t, errs, "tpcc.mode=spec paces each terminal by keying and think times")
	paced := append([]string{"ycsb", "run", "postgres", "-p", "tpcc.mode=spec", "-p", "tpcc.timescale=0.01", "-p", "maxexecutiontime=8",
		"-p", "json.output=" + sum}, common...)
	paced[slices.Index(paced, "-threads")+1] = "10"
	code, out, errs = run(t, context.Background(), paced...)
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	b, err = os.ReadFile(sum)
	require.NoError(t, err)
	s = results.Summary{}
	require.NoError(t, json.Unmarshal(b, &s))
	f := s.TPCCFigures
	require.NotNil(t, f)
	require.Equal(t, tpcc.Spec, f.Mode)
	require.Equal(t, 10, f.Terminals)
	require.Zero(t, f.TpmC, "scaled times are not tpmC")
	// About 95% over 20 s here; 8 s of 10 terminals is about 170
	// New-Orders, whose count varies by a tenth. Unpaced terminals make
	// more than ten times the bound.
	require.InDelta(t, 90, f.Efficiency, 40, "%s", f)
	require.Contains(t, errs, "TPC-C spec pacing at 0.01 of its times")

	conn, err := pgx.Connect(context.Background(), url)
	require.NoError(t, err)
	_, err = conn.Exec(context.Background(), "UPDATE warehouse SET w_ytd = w_ytd + 100 WHERE w_id = 1")
	require.NoError(t, err)
	require.NoError(t, conn.Close(context.Background()))
	code, _, errs = run(t, context.Background(), append([]string{"ycsb", "run", "postgres", "-p", "operationcount=40"}, common...)...)
	require.Equal(t, ExitFailure, code, errs)
	require.Contains(t, errs, "condition 1, W_YTD = sum(D_YTD) for each warehouse: 1 rows break it (w_id=1 w_ytd=")
	require.Contains(t, errs, "the workload's invariants are broken")
}

// TestTPCCLoadersSpreadOverWarehouses runs TPC-C on 2 warehouses from 2
// loaders of one worker each: the second loader's terminal is warehouse
// 2's, so both warehouses take New-Orders (a New-Order moves its home
// district's next order number; before, every loader's first terminal
// was warehouse 1's and warehouse 2 took none).
func TestTPCCLoadersSpreadOverWarehouses(t *testing.T) {
	url := pgURL(t)
	file := writeExperiment(t, `name: tpcc-loaders
properties: {tpcc.warehouses: 2, tpcc.mix: "100,0,0,0,0"}
targets:
  - name: pg
    database: postgres
    deploy: {provider: existing}
    properties: {postgres.url: "`+url+`"}
workloads: [tpcc]
run: {duration: 2s, threads: 1, loaders: 2}
`)
	res := filepath.Join(t.TempDir(), "r")
	code, out, errs := run(t, context.Background(), "run", file, "--results", res, "--loader-binary", buildDbarena(t))
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	conn, err := pgx.Connect(context.Background(), url)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	for w := 1; w <= 2; w++ {
		var districts int
		require.NoError(t, conn.QueryRow(context.Background(),
			"SELECT count(*) FROM district WHERE d_w_id = $1 AND d_next_o_id > 3001", w).Scan(&districts))
		require.Positive(t, districts, "warehouse %d took New-Orders", w)
	}
	require.Contains(t, errs, "2 warehouses, 2 terminals", "the row counts every loader's terminals")
}
