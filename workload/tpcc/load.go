package tpcc

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dbarena/dbarena/driver"
)

// loadBatch is how many rows one INSERT of the load carries: 1,000 stock
// rows of 17 columns are 17,000 parameters (PostgreSQL takes 65,535) and
// about 300 KB (MariaDB's max_allowed_packet is 16 MB).
const loadBatch = 1000

// inserter gathers rows of one table into multi-row INSERTs, each
// committed in a transaction of its own.
type inserter struct {
	s      driver.SQLTransactor
	table  string
	cols   int
	rows   int
	args   []any
	full   string // the statement of a full batch, made once
	loaded *int64
}

func newInserter(s driver.SQLTransactor, table string, cols int, loaded *int64) *inserter {
	return &inserter{s: s, table: table, cols: cols, loaded: loaded}
}

// add appends one row, flushing a full batch.
func (in *inserter) add(ctx context.Context, vals ...any) error {
	if len(vals) != in.cols {
		return fmt.Errorf("tpcc load: %s: %d values for %d columns", in.table, len(vals), in.cols)
	}
	in.args = append(in.args, vals...)
	if in.rows++; in.rows == loadBatch {
		return in.flush(ctx)
	}
	return nil
}

// flush inserts the rows gathered.
func (in *inserter) flush(ctx context.Context) error {
	if in.rows == 0 {
		return nil
	}
	q := in.full
	if in.rows != loadBatch || q == "" {
		q = in.statement(in.rows)
		if in.rows == loadBatch {
			in.full = q
		}
	}
	err := in.s.Transact(ctx, func(tx driver.SQLTx) error {
		_, err := tx.Exec(ctx, q, in.args...)
		return err
	})
	if err != nil {
		return fmt.Errorf("tpcc load: insert into %s: %w", in.table, err)
	}
	*in.loaded += int64(in.rows)
	in.rows, in.args = 0, in.args[:0]
	return nil
}

func (in *inserter) statement(rows int) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", in.cols), ",") + ")"
	var b strings.Builder
	b.WriteString("INSERT INTO " + in.table + " VALUES ")
	for i := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(row)
	}
	return in.s.Dialect().Placeholders(b.String())
}

// LoadItems loads the item table's 100,000 rows (clause 4.3.3.1), once
// for every warehouse, and returns the rows written.
func LoadItems(ctx context.Context, s driver.SQLTransactor, seed uint64) (int64, error) {
	var n int64
	g := NewRandom(seed, LoadConstants())
	in := newInserter(s, "item", 5, &n)
	for i := 1; i <= Items; i++ {
		if err := in.add(ctx, i, g.Int(1, 10000), g.AString(14, 24), g.Float(1, 100, 2), g.Data()); err != nil {
			return n, err
		}
	}
	return n, in.flush(ctx)
}

// LoadWarehouse loads warehouse w: its row, stock, districts, customers,
// history, orders, order lines and new orders (clause 4.3.3.1), and
// returns the rows written.
func LoadWarehouse(ctx context.Context, s driver.SQLTransactor, w int, seed uint64) (int64, error) {
	var n int64
	g := NewRandom(seed+uint64(w)*7919, LoadConstants())
	now := time.Now().UTC().Truncate(time.Second)
	wh := newInserter(s, "warehouse", 9, &n)
	if err := wh.add(ctx, w, g.AString(6, 10), g.AString(10, 20), g.AString(10, 20), g.AString(10, 20),
		g.AString(2, 2), g.Zip(), g.Float(0, 0.2, 4), 300000.00); err != nil {
		return n, err
	}
	if err := wh.flush(ctx); err != nil {
		return n, err
	}
	if err := loadStock(ctx, s, g, w, &n); err != nil {
		return n, err
	}
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		if err := loadDistrict(ctx, s, g, w, d, now, &n); err != nil {
			return n, err
		}
	}
	return n, nil
}

func loadStock(ctx context.Context, s driver.SQLTransactor, g *Random, w int, n *int64) error {
	in := newInserter(s, "stock", 17, n)
	for i := 1; i <= StockPerWarehouse; i++ {
		row := []any{i, w, g.Int(10, 100)}
		for range DistrictsPerWarehouse {
			row = append(row, g.AString(24, 24))
		}
		row = append(row, 0, 0, 0, g.Data())
		if err := in.add(ctx, row...); err != nil {
			return err
		}
	}
	return in.flush(ctx)
}

// loadDistrict loads district d of warehouse w and what is in it.
func loadDistrict(ctx context.Context, s driver.SQLTransactor, g *Random, w, d int, now time.Time, n *int64) error {
	dist := newInserter(s, "district", 11, n)
	if err := dist.add(ctx, d, w, g.AString(6, 10), g.AString(10, 20), g.AString(10, 20), g.AString(10, 20),
		g.AString(2, 2), g.Zip(), g.Float(0, 0.2, 4), 30000.00, OrdersPerDistrict+1); err != nil {
		return err
	}
	if err := dist.flush(ctx); err != nil {
		return err
	}
	cust := newInserter(s, "customer", 21, n)
	hist := newInserter(s, "history", 8, n)
	for c := 1; c <= CustomersPerDistrict; c++ {
		last := c - 1
		if c > 1000 {
			last = g.LastNameNumber()
		}
		credit := "GC"
		if g.Int(1, 10) == 1 {
			credit = "BC"
		}
		if err := cust.add(ctx, c, d, w, g.AString(8, 16), "OE", LastName(last), g.AString(10, 20), g.AString(10, 20),
			g.AString(10, 20), g.AString(2, 2), g.Zip(), g.NString(16, 16), now, credit, 50000.00, g.Float(0, 0.5, 4),
			-10.00, 10.00, 1, 0, g.AString(300, 500)); err != nil {
			return err
		}
		if err := hist.add(ctx, c, d, w, d, w, now, 10.00, g.AString(12, 24)); err != nil {
			return err
		}
	}
	if err := cust.flush(ctx); err != nil {
		return err
	}
	if err := hist.flush(ctx); err != nil {
		return err
	}
	return loadOrders(ctx, s, g, w, d, now, n)
}

// loadOrders loads a district's 3,000 orders, each customer's one, the
// last 900 undelivered and in new_order.
func loadOrders(ctx context.Context, s driver.SQLTransactor, g *Random, w, d int, now time.Time, n *int64) error {
	ord := newInserter(s, "orders", 8, n)
	line := newInserter(s, "order_line", 10, n)
	neworder := newInserter(s, "new_order", 3, n)
	customers := g.Shuffled(CustomersPerDistrict)
	for o := 1; o <= OrdersPerDistrict; o++ {
		delivered := o < FirstUndelivered
		var carrier, deliveryD any
		if delivered {
			carrier, deliveryD = g.Int(1, 10), now
		}
		lines := g.Int(5, 15)
		if err := ord.add(ctx, o, d, w, customers[o-1], now, carrier, lines, 1); err != nil {
			return err
		}
		for l := 1; l <= lines; l++ {
			amount := 0.0
			if !delivered {
				amount = g.Float(0.01, 9999.99, 2)
			}
			if err := line.add(ctx, o, d, w, l, g.Int(1, Items), w, deliveryD, 5, amount, g.AString(24, 24)); err != nil {
				return err
			}
		}
		if !delivered {
			if err := neworder.add(ctx, o, d, w); err != nil {
				return err
			}
		}
	}
	for _, in := range []*inserter{ord, line, neworder} {
		if err := in.flush(ctx); err != nil {
			return err
		}
	}
	return nil
}
