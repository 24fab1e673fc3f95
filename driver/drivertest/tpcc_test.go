package drivertest_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/workload/tpcc"
)

// TestTPCC loads one TPC-C warehouse into the real PostgreSQL and MariaDB,
// checks the twelve consistency conditions of the loaded database, runs
// the mix from four terminals, checks the eleven that hold after a run,
// then breaks two behind the workload's back (a district's next order
// number, a warehouse's year-to-date) and sees exactly those fail,
// naming the rows.
func TestTPCC(t *testing.T) {
	for _, name := range []string{"postgres", "mysql"} {
		t.Run(name, func(t *testing.T) {
			d, err := drivers.Lookup(name)
			require.NoError(t, err)
			tg := targets[name]
			ctx := context.Background()
			const terminals = 4
			// A worker for each terminal and the admin session: a
			// PostgreSQL session keeps its connection.
			db, err := d.Open(ctx, driver.Params{Props: tg.props(serverAddr(t, tg)), Workers: terminals + 1})
			require.NoError(t, err)
			t.Cleanup(func() { _ = db.Close() })
			sessions := make([]driver.SQLTransactor, terminals+1)
			for i := range sessions {
				s, err := db.Session(ctx, i)
				require.NoError(t, err)
				t.Cleanup(func() { _ = s.Close() })
				sx, ok := s.(driver.SQLTransactor)
				require.True(t, ok, "%s sessions run SQL transactions", name)
				sessions[i] = sx
			}
			admin := sessions[terminals]

			start := time.Now()
			require.NoError(t, tpcc.CreateSchema(ctx, admin))
			items, err := tpcc.LoadItems(ctx, admin, 1)
			require.NoError(t, err)
			rows, err := tpcc.LoadWarehouse(ctx, admin, 1, 1)
			require.NoError(t, err)
			require.NoError(t, tpcc.Analyze(ctx, admin))
			t.Logf("%s: loaded 1 warehouse, %d rows, in %s", name, items+rows, time.Since(start).Round(time.Millisecond))
			require.EqualValues(t, 100_000, items)
			// warehouse, stock, districts, customers, history, orders,
			// new orders and about 10 lines an order.
			require.InDelta(t, 1+100_000+10+30_000+30_000+30_000+9_000+300_000, rows, 15_000)

			start = time.Now()
			requireConsistent(t, admin, true)
			t.Logf("%s: checked in %s", name, time.Since(start).Round(time.Millisecond))

			start = time.Now()
			counts := runTerminals(t, sessions[:terminals], 300)
			t.Logf("%s: %v in %s", name, counts, time.Since(start).Round(time.Millisecond))
			for k := tpcc.Kind(0); k < tpcc.NumKinds; k++ {
				require.Positive(t, counts[k.Name()], "%s ran", k.Name())
			}
			requireConsistent(t, admin, false)
			// Not one of the specification's conditions: the stock the
			// New-Orders updated (in sets) is what their lines ordered.
			ordered := sums(t, admin, "SELECT COUNT(*), SUM(ol_quantity) FROM order_line WHERE ol_o_id > 3000")
			require.Positive(t, ordered[0])
			require.Equal(t, ordered, sums(t, admin, "SELECT SUM(s_order_cnt), SUM(s_ytd) FROM stock"))

			breakRow(t, admin, "UPDATE district SET d_next_o_id = d_next_o_id + 5 WHERE d_w_id = 1 AND d_id = 7")
			breakRow(t, admin, "UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1")
			verdicts, err := tpcc.Check(ctx, admin, false)
			require.NoError(t, err)
			failed := map[int]tpcc.Verdict{}
			for _, v := range verdicts {
				if !v.Passed() {
					failed[v.Condition.Number] = v
				}
			}
			require.Len(t, failed, 3, "conditions 1, 2 and 8 fail: %v", failed)
			require.Equal(t, 1, failed[2].Broken)
			require.Contains(t, failed[2].Evidence[0], "w_id=1 d_id=7 d_next_o_id=")
			require.Contains(t, failed[1].Evidence[0], "w_id=1 w_ytd=")
			require.Contains(t, failed[8].String(), "condition 8 FAILED (1 rows)")
		})
	}
}

// requireConsistent checks the consistency conditions and requires all
// to pass.
func requireConsistent(t *testing.T, s driver.SQLTransactor, initial bool) {
	t.Helper()
	verdicts, err := tpcc.Check(context.Background(), s, initial)
	require.NoError(t, err)
	want := 11
	if initial {
		want = 12
	}
	require.Len(t, verdicts, want)
	for _, v := range verdicts {
		require.True(t, v.Passed(), "%s", v)
	}
}

// deck is the j-th card of the default mix's deck of 100: 45
// New-Orders, 43 Payments and 4 of each other transaction.
func deck(j int) tpcc.Kind {
	c, k := j%100, tpcc.Kind(0)
	mix := tpcc.DefaultMix()
	for left := c; left >= int(mix[k]); k++ {
		left -= int(mix[k])
	}
	return k
}

// runTerminals runs n transactions of the default mix on each session,
// a terminal of warehouse 1 each, and counts them by kind (rolled-back
// New-Orders apart). Any error fails the test.
func runTerminals(t *testing.T, sessions []driver.SQLTransactor, n int) map[string]int {
	t.Helper()
	c := tpcc.RunConstants(2)
	var mu sync.Mutex
	counts := map[string]int{}
	errs := make(chan error, len(sessions))
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			term := tpcc.NewTerminal(1, i+1, 1, uint64(100+i), c)
			x := tpcc.NewTx(s)
			for j := range n {
				in := term.Input(deck(i + j))
				out, err := x.Run(context.Background(), in)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				counts[in.Kind.Name()]++
				if out.RolledBack {
					counts["rolled back"]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	return counts
}

// breakRow changes a row behind the workload's back.
func breakRow(t *testing.T, s driver.SQLTransactor, q string) {
	t.Helper()
	err := s.Transact(context.Background(), func(tx driver.SQLTx) error {
		n, err := tx.Exec(context.Background(), q)
		if err == nil && n != 1 {
			err = fmt.Errorf("%s changed %d rows", q, n)
		}
		return err
	})
	require.NoError(t, err)
}

// sums reads a query's one row of two integers.
func sums(t *testing.T, s driver.SQLTransactor, q string) [2]int64 {
	t.Helper()
	var out [2]int64
	err := s.Transact(context.Background(), func(tx driver.SQLTx) error {
		rows, err := tx.Query(context.Background(), q)
		if err != nil {
			return err
		}
		defer rows.Close()
		if !rows.Next() {
			return fmt.Errorf("%s: no row", q)
		}
		return rows.Scan(&out[0], &out[1])
	})
	require.NoError(t, err)
	return out
}
