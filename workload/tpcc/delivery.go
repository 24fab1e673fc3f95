package tpcc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dbarena/dbarena/driver"
)

// delivered is one district's order a Delivery delivers.
type delivered struct {
	d, o, c int
	total   float64
}

// delivery is clause 2.7.4.2, run at once rather than queued: each
// district's oldest undelivered order, locked, is delivered; a district
// without one is skipped. The orders found are then taken out of
// new_order, given their carrier and delivery date, and their totals
// read, each a statement for all districts at once; each customer is
// credited with its order's total. 25 round trips for 10 districts,
// where statements a district took 70. Two Deliveries of one warehouse
// lock its oldest orders in the same order; the second then finds the
// next oldest.
func (x *Tx) delivery(ctx context.Context, tx driver.SQLTx, in Input) (skipped int, err error) {
	st := x.st
	var ds []delivered
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		var o int
		err := one(ctx, tx, st.dlOldest, []any{in.W, d}, &o)
		if errors.Is(err, driver.ErrNotFound) {
			skipped++
			continue
		}
		if err != nil {
			return skipped, err
		}
		ds = append(ds, delivered{d: d, o: o})
	}
	if len(ds) == 0 {
		return skipped, nil
	}
	keys := make([]any, 0, 3*len(ds))
	for _, x := range ds {
		keys = append(keys, in.W, x.d, x.o)
	}
	n := int64(len(ds))
	in3 := func(cols string) string {
		return "(" + cols + ") IN (" + strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", len(ds)), ", ") + ")"
	}
	del := st.cached("dlDelete", len(ds), func(int) string { return "DELETE FROM new_order WHERE " + in3("no_w_id, no_d_id, no_o_id") })
	if err := exec(ctx, tx, "new_order", del, n, keys...); err != nil {
		return skipped, err
	}
	carrier := st.cached("dlCarrier", len(ds), func(int) string { return "UPDATE orders SET o_carrier_id = ? WHERE " + in3("o_w_id, o_d_id, o_id") })
	if err := exec(ctx, tx, "orders", carrier, n, append([]any{in.Carrier}, keys...)...); err != nil {
		return skipped, err
	}
	customers := st.cached("dlOrders", len(ds), func(int) string { return "SELECT o_d_id, o_c_id FROM orders WHERE " + in3("o_w_id, o_d_id, o_id") })
	if err := perDistrict(ctx, tx, customers, keys, ds, func(rows driver.SQLRows, d *int, x *delivered) error { return rows.Scan(d, &x.c) }); err != nil {
		return skipped, err
	}
	lines := st.cached("dlLines", len(ds), func(int) string {
		return "UPDATE order_line SET ol_delivery_d = ? WHERE " + in3("ol_w_id, ol_d_id, ol_o_id")
	})
	if _, err := tx.Exec(ctx, lines, append([]any{time.Now().UTC()}, keys...)...); err != nil {
		return skipped, err
	}
	totals := st.cached("dlTotals", len(ds), func(int) string {
		return "SELECT ol_d_id, SUM(ol_amount) FROM order_line WHERE " + in3("ol_w_id, ol_d_id, ol_o_id") + " GROUP BY ol_d_id"
	})
	if err := perDistrict(ctx, tx, totals, keys, ds, func(rows driver.SQLRows, d *int, x *delivered) error { return rows.Scan(d, &x.total) }); err != nil {
		return skipped, err
	}
	for _, x := range ds {
		if err := exec(ctx, tx, "customer", st.dlCustomer, 1, x.total, in.W, x.d, x.c); err != nil {
			return skipped, err
		}
	}
	return skipped, nil
}

// perDistrict runs a query whose rows start with a district and scans
// each into that district's delivery; every district must have its row.
func perDistrict(ctx context.Context, tx driver.SQLTx, q string, args []any, ds []delivered,
	scan func(rows driver.SQLRows, d *int, into *delivered) error) error {
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var d int
		var row delivered
		if err := scan(rows, &d, &row); err != nil {
			return err
		}
		for i := range ds {
			if ds[i].d == d {
				// One query reads the customer, the other the total.
				ds[i].c, ds[i].total = max(ds[i].c, row.c), ds[i].total+row.total
				seen++
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if seen != len(ds) {
		return fmt.Errorf("delivery: %d of %d districts' orders found", seen, len(ds))
	}
	return nil
}
