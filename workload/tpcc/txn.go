package tpcc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dbarena/dbarena/driver"
)

// Terminal draws the inputs of one emulated terminal's transactions: its
// home warehouse, and its district for Stock-Level (clause 2.8.1.2). Which
// transaction comes next is the workload's draw (tpcc.mix), as YCSB's
// operations are.
type Terminal struct {
	W, D       int
	Warehouses int
	g          *Random
}

// NewTerminal returns terminal of warehouse w and district d among
// warehouses, drawing from seed with the run's constants.
func NewTerminal(w, d, warehouses int, seed uint64, c Constants) *Terminal {
	return &Terminal{W: w, D: d, Warehouses: warehouses, g: NewRandom(seed, c)}
}

// Input is one transaction's input, drawn by Terminal.Input.
type Input struct {
	Kind Kind
	W, D int
	// Customer: by C_ID, or by last name when ByName (Payment and
	// Order-Status), in warehouse CW and district CD (Payment's may be
	// remote).
	CW, CD, C int
	ByName    bool
	Last      string
	// Lines are New-Order's items; Rollback says the last one is unused
	// (1% of New-Orders, clause 2.4.1.4).
	Lines    []Line
	Rollback bool
	// Amount is Payment's H_AMOUNT.
	Amount float64
	// Carrier is Delivery's O_CARRIER_ID, Threshold Stock-Level's.
	Carrier, Threshold int
}

// Line is one New-Order item: its item, supplying warehouse and
// quantity.
type Line struct {
	Item, SupplyW, Quantity int
}

// Input draws the input of a transaction of kind k (clauses 2.4.1, 2.5.1,
// 2.6.1, 2.7.1 and 2.8.1).
func (t *Terminal) Input(k Kind) Input {
	g := t.g
	in := Input{Kind: k, W: t.W, D: g.Int(1, DistrictsPerWarehouse)}
	in.CW, in.CD = in.W, in.D
	switch k {
	case NewOrder:
		in.C = g.CustomerID()
		in.Rollback = g.Int(1, 100) == 1
		in.Lines = make([]Line, g.Int(5, 15))
		for i := range in.Lines {
			l := Line{Item: g.ItemID(), SupplyW: t.W, Quantity: g.Int(1, 10)}
			if t.Warehouses > 1 && g.Int(1, 100) == 1 {
				l.SupplyW = t.other()
			}
			in.Lines[i] = l
		}
		if in.Rollback {
			in.Lines[len(in.Lines)-1].Item = Items + 1
		}
	case Payment, OrderStatus:
		if k == Payment && t.Warehouses > 1 && g.Int(1, 100) > 85 {
			in.CW, in.CD = t.other(), g.Int(1, DistrictsPerWarehouse)
		}
		if in.ByName = g.Int(1, 100) <= 60; in.ByName {
			in.Last = LastName(g.LastNameNumber())
		} else {
			in.C = g.CustomerID()
		}
		in.Amount = g.Float(1, 5000, 2)
	case Delivery:
		in.Carrier = g.Int(1, 10)
	case StockLevel:
		in.D, in.Threshold = t.D, g.Int(10, 20)
	}
	return in
}

// other draws a warehouse other than the terminal's.
func (t *Terminal) other() int {
	w := t.g.Int(1, t.Warehouses-1)
	if w >= t.W {
		w++
	}
	return w
}

// Outcome is what a transaction that ran reports beside its latency:
// a New-Order rolled back by its unused item (a decided outcome, not an
// error), the districts a Delivery found no new order in.
type Outcome struct {
	RolledBack bool
	Skipped    int
}

// Tx runs the transactions on one session.
type Tx struct {
	s  driver.SQLTransactor
	st *statements
}

// NewTx returns the transactions over s; its statements are written in
// s's dialect once.
func NewTx(s driver.SQLTransactor) *Tx {
	return &Tx{s: s, st: newStatements(s.Dialect())}
}

// Run runs in's transaction. A New-Order whose last item is unused rolls
// back as the specification requires and reports RolledBack, with no
// error.
func (x *Tx) Run(ctx context.Context, in Input) (Outcome, error) {
	var out Outcome
	err := x.s.Transact(ctx, func(tx driver.SQLTx) error {
		out = Outcome{}
		switch in.Kind {
		case NewOrder:
			return x.newOrder(ctx, tx, in)
		case Payment:
			return x.payment(ctx, tx, in)
		case OrderStatus:
			return x.orderStatus(ctx, tx, in)
		case Delivery:
			var err error
			out.Skipped, err = x.delivery(ctx, tx, in)
			return err
		case StockLevel:
			_, err := x.stockLevel(ctx, tx, in)
			return err
		}
		return fmt.Errorf("tpcc: no transaction %d", in.Kind)
	})
	if errors.Is(err, driver.ErrDeclined) && in.Kind == NewOrder && in.Rollback {
		return Outcome{RolledBack: true}, nil
	}
	if err != nil {
		return out, fmt.Errorf("%s: %w", in.Kind.Name(), err)
	}
	return out, nil
}

// one runs a query that returns one row into dest; no row is
// driver.ErrNotFound.
func one(ctx context.Context, tx driver.SQLTx, q string, args []any, dest ...any) error {
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return driver.ErrNotFound
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	for rows.Next() {
	}
	return rows.Err()
}

// exec runs a statement that must change want rows.
func exec(ctx context.Context, tx driver.SQLTx, what, q string, want int64, args ...any) error {
	n, err := tx.Exec(ctx, q, args...)
	if err != nil {
		return err
	}
	if n != want {
		return fmt.Errorf("%s changed %d rows, want %d", what, n, want)
	}
	return nil
}

// customerByName finds the customer of a last name as clauses 2.5.2.2
// and 2.6.2.2 say: of those with the name, ordered by first name, the
// one at position n/2 rounded up.
func (x *Tx) customerByName(ctx context.Context, tx driver.SQLTx, w, d int, last string) (int, error) {
	rows, err := tx.Query(ctx, x.st.customerByName, w, d, last)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var ids []int
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			return 0, err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, fmt.Errorf("no customer named %s in %d/%d: %w", last, w, d, driver.ErrNotFound)
	}
	return ids[(len(ids)+1)/2-1], nil
}

// payment is clause 2.5.2.2.
func (x *Tx) payment(ctx context.Context, tx driver.SQLTx, in Input) error {
	st := x.st
	if err := exec(ctx, tx, "warehouse", st.payWarehouse, 1, in.Amount, in.W); err != nil {
		return err
	}
	var wName, dName, street1, street2, city, state, zip string
	if err := one(ctx, tx, st.payWarehouseRead, []any{in.W}, &wName, &street1, &street2, &city, &state, &zip); err != nil {
		return fmt.Errorf("warehouse %d: %w", in.W, err)
	}
	if err := exec(ctx, tx, "district", st.payDistrict, 1, in.Amount, in.W, in.D); err != nil {
		return err
	}
	if err := one(ctx, tx, st.payDistrictRead, []any{in.W, in.D}, &dName, &street1, &street2, &city, &state, &zip); err != nil {
		return fmt.Errorf("district %d/%d: %w", in.W, in.D, err)
	}
	c := in.C
	if in.ByName {
		var err error
		if c, err = x.customerByName(ctx, tx, in.CW, in.CD, in.Last); err != nil {
			return err
		}
	}
	var credit, data string
	var balance float64
	if err := one(ctx, tx, st.payCustomer, []any{in.CW, in.CD, c}, &credit, &balance, &data); err != nil {
		return fmt.Errorf("customer %d/%d/%d: %w", in.CW, in.CD, c, err)
	}
	if credit == "BC" {
		data = fmt.Sprintf("%d %d %d %d %d %.2f|%s", c, in.CD, in.CW, in.D, in.W, in.Amount, data)
		if len(data) > 500 {
			data = data[:500]
		}
		if err := exec(ctx, tx, "customer", st.payCustomerBad, 1, in.Amount, in.Amount, data, in.CW, in.CD, c); err != nil {
			return err
		}
	} else if err := exec(ctx, tx, "customer", st.payCustomerGood, 1, in.Amount, in.Amount, in.CW, in.CD, c); err != nil {
		return err
	}
	return exec(ctx, tx, "history", st.payHistory, 1, c, in.CD, in.CW, in.D, in.W, time.Now().UTC(), in.Amount, wName+"    "+dName)
}

// orderStatus is clause 2.6.2.2: the customer, its last order and that
// order's lines.
func (x *Tx) orderStatus(ctx context.Context, tx driver.SQLTx, in Input) error {
	st := x.st
	c := in.C
	if in.ByName {
		var err error
		if c, err = x.customerByName(ctx, tx, in.W, in.D, in.Last); err != nil {
			return err
		}
	}
	var balance float64
	var first, middle, last string
	if err := one(ctx, tx, st.osCustomer, []any{in.W, in.D, c}, &balance, &first, &middle, &last); err != nil {
		return fmt.Errorf("customer %d/%d/%d: %w", in.W, in.D, c, err)
	}
	var o int
	var entry, carrier any
	if err := one(ctx, tx, st.osOrder, []any{in.W, in.D, c}, &o, &entry, &carrier); err != nil {
		return fmt.Errorf("last order of customer %d/%d/%d: %w", in.W, in.D, c, err)
	}
	rows, err := tx.Query(ctx, st.osLines, in.W, in.D, o)
	if err != nil {
		return err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var item, supply, qty int
		var amount float64
		var delivery any
		if err := rows.Scan(&item, &supply, &qty, &amount, &delivery); err != nil {
			return err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("order %d/%d/%d has no lines", in.W, in.D, o)
	}
	return nil
}

// stockLevel is clause 2.8.2.2: the items of the district's last 20
// orders whose stock is below the threshold.
func (x *Tx) stockLevel(ctx context.Context, tx driver.SQLTx, in Input) (int, error) {
	var next, low int
	if err := one(ctx, tx, x.st.slDistrict, []any{in.W, in.D}, &next); err != nil {
		return 0, fmt.Errorf("district %d/%d: %w", in.W, in.D, err)
	}
	err := one(ctx, tx, x.st.slCount, []any{in.W, in.D, next - 20, next, in.W, in.Threshold}, &low)
	return low, err
}

// statements are the transactions' statements in one dialect.
type statements struct {
	dialect driver.Dialect
	// sized are the statements whose text depends on a count (items,
	// stock rows, order lines), made as they are first needed.
	sized map[string]string

	noCustomer, noDistrict, noNextOrder, noInsertOrder, noInsertNewOrder string
	customerByName                                                       string
	payWarehouse, payWarehouseRead, payDistrict, payDistrictRead         string
	payCustomer, payCustomerBad, payCustomerGood, payHistory             string
	osCustomer, osOrder, osLines                                         string
	dlOldest, dlCustomer                                                 string
	slDistrict, slCount                                                  string
}

func newStatements(d driver.Dialect) *statements {
	p := d.Placeholders
	st := &statements{dialect: d, sized: map[string]string{},
		noCustomer: p("SELECT c_discount, c_last, c_credit, w_tax FROM customer JOIN warehouse ON w_id = c_w_id " +
			"WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
		noDistrict:       p("SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ? FOR UPDATE"),
		noNextOrder:      p("UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?"),
		noInsertOrder:    p("INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)"),
		noInsertNewOrder: p("INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)"),
		customerByName:   p("SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"),
		payWarehouse:     p("UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?"),
		payWarehouseRead: p("SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = ?"),
		payDistrict:      p("UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?"),
		payDistrictRead:  p("SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = ? AND d_id = ?"),
		payCustomer:      p("SELECT c_credit, c_balance, c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE"),
		payCustomerBad: p("UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ? " +
			"WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
		payCustomerGood: p("UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 " +
			"WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
		payHistory: p("INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
		osCustomer: p("SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
		osOrder: p("SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? " +
			"ORDER BY o_id DESC LIMIT 1"),
		osLines:    p("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"),
		dlOldest:   p("SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1 FOR UPDATE"),
		dlCustomer: p("UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
		slDistrict: p("SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?"),
		slCount: p("SELECT COUNT(DISTINCT s_i_id) FROM order_line JOIN stock ON s_i_id = ol_i_id " +
			"WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id >= ? AND ol_o_id < ? AND s_w_id = ? AND s_quantity < ?"),
	}
	return st
}
