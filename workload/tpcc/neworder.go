package tpcc

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/dbarena/dbarena/driver"
)

// stockRow is one stock row a New-Order reads and writes.
type stockRow struct {
	w, item    int
	quantity   int
	ordered    int // the quantity ordered from it, summed over lines
	remote     int // lines ordering from it that are remote
	orders     int // lines ordering from it
	data, dist string
}

// newOrder is clause 2.4.2.2, its work in sets rather than line by line
// (the specification prescribes what is read and written, not the
// statements): one query for the customer and the warehouse's tax, the
// district's, the order and its new-order row, one query for every item,
// one locking query and one update for the stock of each supplying
// warehouse, one insert of every order line. Nine statements for an
// order of one warehouse, where a statement a line took 46 for an order
// of 10 lines. Stock rows are locked in key order (warehouse, item), so
// that two New-Orders never deadlock on them. An unused item (1% of
// orders) rolls the whole order back.
func (x *Tx) newOrder(ctx context.Context, tx driver.SQLTx, in Input) error {
	st := x.st
	var discount, wTax, dTax float64
	var last, credit string
	if err := one(ctx, tx, st.noCustomer, []any{in.W, in.D, in.C}, &discount, &last, &credit, &wTax); err != nil {
		return fmt.Errorf("customer %d/%d/%d: %w", in.W, in.D, in.C, err)
	}
	var next int
	if err := one(ctx, tx, st.noDistrict, []any{in.W, in.D}, &dTax, &next); err != nil {
		return fmt.Errorf("district %d/%d: %w", in.W, in.D, err)
	}
	if err := exec(ctx, tx, "district", st.noNextOrder, 1, in.W, in.D); err != nil {
		return err
	}
	allLocal := 1
	for _, l := range in.Lines {
		if l.SupplyW != in.W {
			allLocal = 0
		}
	}
	if err := exec(ctx, tx, "orders", st.noInsertOrder, 1, next, in.D, in.W, in.C, time.Now().UTC(), len(in.Lines), allLocal); err != nil {
		return err
	}
	if err := exec(ctx, tx, "new_order", st.noInsertNewOrder, 1, next, in.D, in.W); err != nil {
		return err
	}
	prices, err := x.items(ctx, tx, in.Lines)
	if err != nil {
		return err
	}
	stock, err := x.lockStock(ctx, tx, in)
	if err != nil {
		return err
	}
	if err := x.updateStock(ctx, tx, stock); err != nil {
		return err
	}
	return x.insertLines(ctx, tx, in, next, prices, stock)
}

// items reads the price of every item ordered; one not found is the
// unused item that rolls the order back.
func (x *Tx) items(ctx context.Context, tx driver.SQLTx, lines []Line) (map[int]float64, error) {
	ids := make([]int, 0, len(lines))
	for _, l := range lines {
		if !slices.Contains(ids, l.Item) {
			ids = append(ids, l.Item)
		}
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := tx.Query(ctx, x.st.cached("items", len(ids), func(n int) string {
		return "SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN (" + marks(n) + ")"
	}), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	prices := make(map[int]float64, len(ids))
	for rows.Next() {
		var id int
		var price float64
		var name, data string
		if err := rows.Scan(&id, &price, &name, &data); err != nil {
			return nil, err
		}
		prices[id] = price
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(prices) < len(ids) {
		return nil, driver.ErrDeclined // "Item number is not valid": the whole order rolls back
	}
	return prices, nil
}

// lockStock reads and locks the stock rows the order takes from, a
// query for each supplying warehouse in ascending order, each in item
// order, and works out what the order does to each (clause 2.4.2.2: a
// quantity that would fall below 10 is restocked by 91).
func (x *Tx) lockStock(ctx context.Context, tx driver.SQLTx, in Input) (map[[2]int]*stockRow, error) {
	stock := map[[2]int]*stockRow{}
	var ws []int
	for _, l := range in.Lines {
		k := [2]int{l.SupplyW, l.Item}
		if stock[k] == nil {
			stock[k] = &stockRow{w: l.SupplyW, item: l.Item}
			if !slices.Contains(ws, l.SupplyW) {
				ws = append(ws, l.SupplyW)
			}
		}
	}
	slices.Sort(ws)
	for _, w := range ws {
		args := []any{w}
		for k := range stock {
			if k[0] == w {
				args = append(args, k[1])
			}
		}
		q := x.st.cached(fmt.Sprintf("stock%d", in.D), len(args)-1, func(n int) string {
			return fmt.Sprintf("SELECT s_i_id, s_quantity, s_data, s_dist_%02d FROM stock WHERE s_w_id = ? AND s_i_id IN (%s) ORDER BY s_i_id FOR UPDATE", in.D, marks(n))
		})
		if err := scanStock(ctx, tx, q, args, w, stock); err != nil {
			return nil, err
		}
	}
	for _, l := range in.Lines {
		r := stock[[2]int{l.SupplyW, l.Item}]
		if r.quantity-l.Quantity >= 10 {
			r.quantity -= l.Quantity
		} else {
			r.quantity += 91 - l.Quantity
		}
		r.ordered += l.Quantity
		r.orders++
		if l.SupplyW != in.W {
			r.remote++
		}
	}
	return stock, nil
}

func scanStock(ctx context.Context, tx driver.SQLTx, q string, args []any, w int, stock map[[2]int]*stockRow) error {
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	found := 0
	for rows.Next() {
		var item int
		var r stockRow
		if err := rows.Scan(&item, &r.quantity, &r.data, &r.dist); err != nil {
			return err
		}
		if s := stock[[2]int{w, item}]; s != nil {
			s.quantity, s.data, s.dist = r.quantity, r.data, r.dist
			found++
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if found < len(args)-1 {
		return fmt.Errorf("stock of warehouse %d: %d of %d items found", w, found, len(args)-1)
	}
	return nil
}

// updateStock writes the stock rows back, one statement for each
// supplying warehouse.
func (x *Tx) updateStock(ctx context.Context, tx driver.SQLTx, stock map[[2]int]*stockRow) error {
	byW := map[int][]*stockRow{}
	for _, r := range stock {
		byW[r.w] = append(byW[r.w], r)
	}
	for w, rs := range byW {
		slices.SortFunc(rs, func(a, b *stockRow) int { return a.item - b.item })
		var args []any
		for _, col := range [4]func(*stockRow) int{
			func(r *stockRow) int { return r.quantity }, func(r *stockRow) int { return r.ordered },
			func(r *stockRow) int { return r.orders }, func(r *stockRow) int { return r.remote },
		} {
			for _, r := range rs {
				args = append(args, r.item, col(r))
			}
		}
		args = append(args, w)
		for _, r := range rs {
			args = append(args, r.item)
		}
		q := x.st.cached("stockupdate", len(rs), x.st.stockUpdate)
		if err := exec(ctx, tx, "stock", q, int64(len(rs)), args...); err != nil {
			return err
		}
	}
	return nil
}

// insertLines inserts the order's lines in one statement.
func (x *Tx) insertLines(ctx context.Context, tx driver.SQLTx, in Input, order int, prices map[int]float64, stock map[[2]int]*stockRow) error {
	args := make([]any, 0, 9*len(in.Lines))
	for i, l := range in.Lines {
		// In cents, so that the product's binary rounding never reaches
		// the DECIMAL column.
		amount := math.Round(float64(l.Quantity)*prices[l.Item]*100) / 100
		args = append(args, order, in.D, in.W, i+1, l.Item, l.SupplyW, l.Quantity, amount, stock[[2]int{l.SupplyW, l.Item}].dist)
	}
	q := x.st.cached("lines", len(in.Lines), func(n int) string {
		row := "(?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)"
		return "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES " +
			strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
	})
	return exec(ctx, tx, "order_line", q, int64(len(in.Lines)), args...)
}

// marks is n placeholders, comma-separated.
func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

// stockUpdate is the update of n stock rows of one warehouse: each
// column set by a CASE on the item.
func (st *statements) stockUpdate(n int) string {
	v := "?"
	if st.dialect == driver.DialectPostgres {
		// PostgreSQL types a CASE's parameters from each other, as text,
		// unless told.
		v = "CAST(? AS INTEGER)"
	}
	when := strings.TrimSuffix(strings.Repeat("WHEN ? THEN "+v+" ", n), " ")
	return "UPDATE stock SET s_quantity = CASE s_i_id " + when + " END, s_ytd = s_ytd + CASE s_i_id " + when +
		" END, s_order_cnt = s_order_cnt + CASE s_i_id " + when + " END, s_remote_cnt = s_remote_cnt + CASE s_i_id " + when +
		" END WHERE s_w_id = ? AND s_i_id IN (" + marks(n) + ")"
}

// cached returns the statement write makes for n, in the dialect, made
// once per Tx (a Tx is one worker's: no lock).
func (st *statements) cached(name string, n int, write func(n int) string) string {
	k := fmt.Sprintf("%s/%d", name, n)
	if q, ok := st.sized[k]; ok {
		return q
	}
	q := st.dialect.Placeholders(write(n))
	st.sized[k] = q
	return q
}
