package tpcc

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/driver"
)

// Condition is one of the specification's consistency conditions
// (clause 3.3.2): a query for the rows that break it.
type Condition struct {
	// Number is the condition's number in clause 3.3.2.
	Number int
	// Rule says what must hold, in the specification's terms.
	Rule string
	// Columns name the figures of each row that breaks it.
	Columns []string
	// InitialOnly says the condition holds of the loaded database only
	// (condition 11: deliveries change it).
	InitialOnly bool
	// query selects the breaking rows' figures, each written as {x} to
	// be read as a number in every dialect.
	query string
}

// conditions are the consistency conditions checked: 1 to 12 of clause
// 3.3.2, all of them.
var conditions = []Condition{
	{Number: 1, Rule: "W_YTD = sum(D_YTD) for each warehouse", Columns: []string{"w_id", "w_ytd", "sum_d_ytd"},
		query: `SELECT {w_id}, {w_ytd}, {s} FROM warehouse JOIN (SELECT d_w_id, SUM(d_ytd) AS s FROM district GROUP BY d_w_id) d
  ON d.d_w_id = w_id WHERE w_ytd <> s ORDER BY w_id`},
	{Number: 2, Rule: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) for each district", Columns: []string{"w_id", "d_id", "d_next_o_id", "max_o_id", "max_no_o_id"},
		query: `SELECT {d_w_id}, {d_id}, {d_next_o_id}, {mo}, {mno} FROM district
  JOIN (SELECT o_w_id, o_d_id, MAX(o_id) AS mo FROM orders GROUP BY o_w_id, o_d_id) o ON o.o_w_id = d_w_id AND o.o_d_id = d_id
  LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) AS mno FROM new_order GROUP BY no_w_id, no_d_id) n ON n.no_w_id = d_w_id AND n.no_d_id = d_id
  WHERE d_next_o_id - 1 <> mo OR (mno IS NOT NULL AND mno <> mo) ORDER BY d_w_id, d_id`},
	{Number: 3, Rule: "max(NO_O_ID) - min(NO_O_ID) + 1 = the number of new orders, for each district", Columns: []string{"w_id", "d_id", "max", "min", "count"},
		query: `SELECT {no_w_id}, {no_d_id}, {MAX(no_o_id)}, {MIN(no_o_id)}, {COUNT(*)} FROM new_order GROUP BY no_w_id, no_d_id
  HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*) ORDER BY no_w_id, no_d_id`},
	{Number: 4, Rule: "sum(O_OL_CNT) = the number of order lines, for each district", Columns: []string{"w_id", "d_id", "sum_o_ol_cnt", "order_lines"},
		query: `SELECT {o.o_w_id}, {o.o_d_id}, {s}, {n} FROM (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS s FROM orders GROUP BY o_w_id, o_d_id) o
  JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id) l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id
  WHERE s <> n ORDER BY o.o_w_id, o.o_d_id`},
	{Number: 5, Rule: "O_CARRIER_ID is null exactly when the order is in new_order", Columns: []string{"w_id", "d_id", "o_id", "carrier_null", "in_new_order"},
		query: `SELECT {o_w_id}, {o_d_id}, {o_id}, {CASE WHEN o_carrier_id IS NULL THEN 1 ELSE 0 END}, {CASE WHEN no_o_id IS NULL THEN 0 ELSE 1 END}
  FROM orders LEFT JOIN new_order ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id
  WHERE (o_carrier_id IS NULL AND no_o_id IS NULL) OR (o_carrier_id IS NOT NULL AND no_o_id IS NOT NULL) ORDER BY o_w_id, o_d_id, o_id`},
	{Number: 6, Rule: "O_OL_CNT = the number of the order's lines, for each order", Columns: []string{"w_id", "d_id", "o_id", "o_ol_cnt", "order_lines"},
		query: `SELECT {o_w_id}, {o_d_id}, {o_id}, {o_ol_cnt}, {COALESCE(n, 0)} FROM orders
  LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id, ol_o_id) l
  ON l.ol_w_id = o_w_id AND l.ol_d_id = o_d_id AND l.ol_o_id = o_id WHERE o_ol_cnt <> COALESCE(n, 0) ORDER BY o_w_id, o_d_id, o_id`},
	{Number: 7, Rule: "OL_DELIVERY_D is null exactly when its order's O_CARRIER_ID is", Columns: []string{"w_id", "d_id", "o_id", "ol_number"},
		query: `SELECT {ol_w_id}, {ol_d_id}, {ol_o_id}, {ol_number} FROM order_line JOIN orders ON o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id
  WHERE (ol_delivery_d IS NULL AND o_carrier_id IS NOT NULL) OR (ol_delivery_d IS NOT NULL AND o_carrier_id IS NULL)
  ORDER BY ol_w_id, ol_d_id, ol_o_id, ol_number`},
	{Number: 8, Rule: "W_YTD = sum(H_AMOUNT) of the warehouse's history", Columns: []string{"w_id", "w_ytd", "sum_h_amount"},
		query: `SELECT {w_id}, {w_ytd}, {COALESCE(s, 0)} FROM warehouse LEFT JOIN (SELECT h_w_id, SUM(h_amount) AS s FROM history GROUP BY h_w_id) h
  ON h.h_w_id = w_id WHERE w_ytd <> COALESCE(s, 0) ORDER BY w_id`},
	{Number: 9, Rule: "D_YTD = sum(H_AMOUNT) of the district's history", Columns: []string{"w_id", "d_id", "d_ytd", "sum_h_amount"},
		query: `SELECT {d_w_id}, {d_id}, {d_ytd}, {COALESCE(s, 0)} FROM district
  LEFT JOIN (SELECT h_w_id, h_d_id, SUM(h_amount) AS s FROM history GROUP BY h_w_id, h_d_id) h ON h.h_w_id = d_w_id AND h.h_d_id = d_id
  WHERE d_ytd <> COALESCE(s, 0) ORDER BY d_w_id, d_id`},
	{Number: 10, Rule: "C_BALANCE = sum(OL_AMOUNT of the customer's delivered lines) - sum(H_AMOUNT of the customer's payments)",
		Columns: []string{"w_id", "d_id", "c_id", "c_balance", "delivered", "paid"},
		query: `SELECT {c_w_id}, {c_d_id}, {c_id}, {c_balance}, {COALESCE(dl, 0)}, {COALESCE(paid, 0)} FROM customer
  LEFT JOIN (SELECT o_w_id, o_d_id, o_c_id, SUM(ol_amount) AS dl FROM orders JOIN order_line
      ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id WHERE ol_delivery_d IS NOT NULL GROUP BY o_w_id, o_d_id, o_c_id) d
    ON d.o_w_id = c_w_id AND d.o_d_id = c_d_id AND d.o_c_id = c_id
  LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, SUM(h_amount) AS paid FROM history GROUP BY h_c_w_id, h_c_d_id, h_c_id) h
    ON h.h_c_w_id = c_w_id AND h.h_c_d_id = c_d_id AND h.h_c_id = c_id
  WHERE c_balance <> COALESCE(dl, 0) - COALESCE(paid, 0) ORDER BY c_w_id, c_d_id, c_id`},
	{Number: 11, Rule: "the number of orders - the number of new orders = 2,100 for each district (the loaded database only)", InitialOnly: true,
		Columns: []string{"w_id", "d_id", "orders", "new_orders"},
		query: `SELECT {o.o_w_id}, {o.o_d_id}, {o.n}, {COALESCE(n.n, 0)} FROM (SELECT o_w_id, o_d_id, COUNT(*) AS n FROM orders GROUP BY o_w_id, o_d_id) o
  LEFT JOIN (SELECT no_w_id, no_d_id, COUNT(*) AS n FROM new_order GROUP BY no_w_id, no_d_id) n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id
  WHERE o.n - COALESCE(n.n, 0) <> 2100 ORDER BY o.o_w_id, o.o_d_id`},
	{Number: 12, Rule: "C_BALANCE + C_YTD_PAYMENT = sum(OL_AMOUNT of the customer's delivered lines)",
		Columns: []string{"w_id", "d_id", "c_id", "c_balance", "c_ytd_payment", "delivered"},
		query: `SELECT {c_w_id}, {c_d_id}, {c_id}, {c_balance}, {c_ytd_payment}, {COALESCE(dl, 0)} FROM customer
  LEFT JOIN (SELECT o_w_id, o_d_id, o_c_id, SUM(ol_amount) AS dl FROM orders JOIN order_line
      ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id WHERE ol_delivery_d IS NOT NULL GROUP BY o_w_id, o_d_id, o_c_id) d
    ON d.o_w_id = c_w_id AND d.o_d_id = c_d_id AND d.o_c_id = c_id
  WHERE c_balance + c_ytd_payment <> COALESCE(dl, 0) ORDER BY c_w_id, c_d_id, c_id`},
}

// maxEvidence is how many breaking rows a verdict names.
const maxEvidence = 10

// Verdict is one condition checked: passed, or the rows that break it.
type Verdict struct {
	Condition Condition
	// Broken counts the breaking rows, Evidence names the first
	// maxEvidence ("w_id=1 w_ytd=300010 sum_d_ytd=300000").
	Broken   int
	Evidence []string
}

// Passed says no row breaks the condition.
func (v Verdict) Passed() bool { return v.Broken == 0 }

func (v Verdict) String() string {
	if v.Passed() {
		return fmt.Sprintf("condition %d passed: %s", v.Condition.Number, v.Condition.Rule)
	}
	return fmt.Sprintf("condition %d FAILED (%d rows): %s; %s", v.Condition.Number, v.Broken, v.Condition.Rule, strings.Join(v.Evidence, "; "))
}

// Check checks the conditions on the database s reaches: all of them
// when initial (the database as loaded), otherwise all but the
// loaded-only one. An error is a condition that could not be checked,
// never one that failed.
func Check(ctx context.Context, s driver.SQLTransactor, initial bool) ([]Verdict, error) {
	var out []Verdict
	for _, c := range conditions {
		if c.InitialOnly && !initial {
			continue
		}
		v, err := check(ctx, s, c)
		if err != nil {
			return out, fmt.Errorf("tpcc consistency condition %d: %w", c.Number, err)
		}
		out = append(out, v)
	}
	return out, nil
}

func check(ctx context.Context, s driver.SQLTransactor, c Condition) (Verdict, error) {
	v := Verdict{Condition: c}
	q := numbers(s.Dialect(), c.query)
	err := s.Transact(ctx, func(tx driver.SQLTx) error {
		v.Broken, v.Evidence = 0, nil
		rows, err := tx.Query(ctx, q)
		if err != nil {
			return err
		}
		defer rows.Close()
		vals := make([]float64, len(c.Columns))
		dest := make([]any, len(vals))
		for i := range vals {
			dest[i] = &vals[i]
		}
		for rows.Next() {
			v.Broken++
			if len(v.Evidence) == maxEvidence {
				continue
			}
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			parts := make([]string, len(vals))
			for i, x := range vals {
				parts[i] = c.Columns[i] + "=" + strconv.FormatFloat(x, 'f', -1, 64)
			}
			v.Evidence = append(v.Evidence, strings.Join(parts, " "))
		}
		return rows.Err()
	})
	return v, err
}

// numbers rewrites each {expr} of a query as the expression read as a
// double in the dialect, so that every figure scans into a float64.
func numbers(d driver.Dialect, q string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(q, '{')
		if i < 0 {
			b.WriteString(q)
			return b.String()
		}
		j := strings.IndexByte(q[i:], '}') + i
		b.WriteString(q[:i])
		expr := q[i+1 : j]
		if d == driver.DialectPostgres {
			b.WriteString("CAST(" + expr + " AS DOUBLE PRECISION)")
		} else {
			// A DECIMAL or integer plus a float literal is a DOUBLE in
			// MySQL and MariaDB, whose CAST AS DOUBLE is recent.
			b.WriteString("(" + expr + ") + 0e0")
		}
		q = q[j+1:]
	}
}
