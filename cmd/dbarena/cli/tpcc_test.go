package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// TestTPCCExperiment runs `workloads: [tpcc]` against the test servers'
// PostgreSQL and MariaDB: each target loads one warehouse, runs the five
// transactions from four terminals, and its row holds each
// transaction's series and the consistency check (11 conditions hold).
// Redis, which runs no SQL transactions, is refused, saying why, and
// the experiment exits 1 for it.
func TestTPCCExperiment(t *testing.T) {
	file := writeExperiment(t, `name: tpcc
properties: {tpcc.warehouses: 1}
`+testServerTargets(t, 11)+`workloads: [tpcc]
run: {duration: 3s, threads: 4}
`)
	res := filepath.Join(t.TempDir(), "r")
	code, out, errs := run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitFailure, code, "%s\n%s", out, errs)
	require.Contains(t, errs, "TPC-C consistency: 11 of 11 conditions checked")
	d, err := results.Read(res)
	require.NoError(t, err)
	rows := rowsByID(d)
	for _, tg := range []string{"pg", "my"} {
		row, ok := rows[tg+".tpcc"]
		require.True(t, ok, tg)
		require.Equal(t, results.StatusCompleted, row.Status, "%s: %s", tg, row.StatusReason)
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
	}
	var refused bool
	for id, row := range rows {
		if row.Target == "rd" {
			require.Equal(t, results.StatusFailed, row.Status, id)
			require.Contains(t, row.StatusReason, "cannot run SQL transactions", id)
			refused = true
		}
	}
	require.True(t, refused, "redis has a failed row saying why")
}

// TestTPCCBrokenConditionFails loads and runs TPC-C with `dbarena ycsb`
// on PostgreSQL, reads the consistency check from the JSON summary, then
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
	code, out, errs := run(t, context.Background(), append([]string{"ycsb", "load", "postgres"}, common...)...)
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
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
