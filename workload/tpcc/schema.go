package tpcc

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/driver"
)

// Tables are TPC-C's tables, in the order they are dropped (none
// references another: the specification requires no foreign keys).
func Tables() []string {
	return []string{"order_line", "new_order", "orders", "history", "customer", "district", "stock", "item", "warehouse"}
}

// ddl are the tables' definitions in the types of clause 1.3: money as
// DECIMAL, identifiers as INTEGER, text as VARCHAR/CHAR, dates as
// TIMESTAMP. The history table has no key in the specification; it gets
// none here either. The secondary indexes are the two that Payment and
// Order-Status need to find a customer by last name and a customer's
// last order (clause 1.4 allows them).
var ddl = []string{
	`CREATE TABLE warehouse (w_id INTEGER NOT NULL, w_name VARCHAR(10), w_street_1 VARCHAR(20), w_street_2 VARCHAR(20),
  w_city VARCHAR(20), w_state CHAR(2), w_zip CHAR(9), w_tax DECIMAL(4,4), w_ytd DECIMAL(12,2), PRIMARY KEY (w_id))`,
	`CREATE TABLE district (d_id INTEGER NOT NULL, d_w_id INTEGER NOT NULL, d_name VARCHAR(10), d_street_1 VARCHAR(20),
  d_street_2 VARCHAR(20), d_city VARCHAR(20), d_state CHAR(2), d_zip CHAR(9), d_tax DECIMAL(4,4), d_ytd DECIMAL(12,2),
  d_next_o_id INTEGER, PRIMARY KEY (d_w_id, d_id))`,
	`CREATE TABLE customer (c_id INTEGER NOT NULL, c_d_id INTEGER NOT NULL, c_w_id INTEGER NOT NULL, c_first VARCHAR(16),
  c_middle CHAR(2), c_last VARCHAR(16), c_street_1 VARCHAR(20), c_street_2 VARCHAR(20), c_city VARCHAR(20), c_state CHAR(2),
  c_zip CHAR(9), c_phone CHAR(16), c_since TIMESTAMP, c_credit CHAR(2), c_credit_lim DECIMAL(12,2), c_discount DECIMAL(4,4),
  c_balance DECIMAL(12,2), c_ytd_payment DECIMAL(12,2), c_payment_cnt INTEGER, c_delivery_cnt INTEGER, c_data VARCHAR(500),
  PRIMARY KEY (c_w_id, c_d_id, c_id))`,
	`CREATE INDEX customer_name ON customer (c_w_id, c_d_id, c_last, c_first)`,
	`CREATE TABLE history (h_c_id INTEGER, h_c_d_id INTEGER, h_c_w_id INTEGER, h_d_id INTEGER, h_w_id INTEGER,
  h_date TIMESTAMP, h_amount DECIMAL(6,2), h_data VARCHAR(24))`,
	`CREATE TABLE new_order (no_o_id INTEGER NOT NULL, no_d_id INTEGER NOT NULL, no_w_id INTEGER NOT NULL,
  PRIMARY KEY (no_w_id, no_d_id, no_o_id))`,
	`CREATE TABLE orders (o_id INTEGER NOT NULL, o_d_id INTEGER NOT NULL, o_w_id INTEGER NOT NULL, o_c_id INTEGER,
  o_entry_d TIMESTAMP, o_carrier_id INTEGER, o_ol_cnt INTEGER, o_all_local INTEGER, PRIMARY KEY (o_w_id, o_d_id, o_id))`,
	`CREATE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)`,
	`CREATE TABLE order_line (ol_o_id INTEGER NOT NULL, ol_d_id INTEGER NOT NULL, ol_w_id INTEGER NOT NULL,
  ol_number INTEGER NOT NULL, ol_i_id INTEGER, ol_supply_w_id INTEGER, ol_delivery_d TIMESTAMP, ol_quantity INTEGER,
  ol_amount DECIMAL(6,2), ol_dist_info CHAR(24), PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number))`,
	`CREATE TABLE item (i_id INTEGER NOT NULL, i_im_id INTEGER, i_name VARCHAR(24), i_price DECIMAL(5,2), i_data VARCHAR(50),
  PRIMARY KEY (i_id))`,
	`CREATE TABLE stock (s_i_id INTEGER NOT NULL, s_w_id INTEGER NOT NULL, s_quantity INTEGER, s_dist_01 CHAR(24),
  s_dist_02 CHAR(24), s_dist_03 CHAR(24), s_dist_04 CHAR(24), s_dist_05 CHAR(24), s_dist_06 CHAR(24), s_dist_07 CHAR(24),
  s_dist_08 CHAR(24), s_dist_09 CHAR(24), s_dist_10 CHAR(24), s_ytd INTEGER, s_order_cnt INTEGER, s_remote_cnt INTEGER,
  s_data VARCHAR(50), PRIMARY KEY (s_w_id, s_i_id))`,
}

// CreateSchema drops TPC-C's tables when they exist and creates them
// empty, each statement in a transaction of its own (MySQL commits DDL
// implicitly anyway).
func CreateSchema(ctx context.Context, s driver.SQLTransactor) error {
	var stmts []string
	for _, t := range Tables() {
		stmts = append(stmts, "DROP TABLE IF EXISTS "+t)
	}
	stmts = append(stmts, ddl...)
	for _, q := range stmts {
		if s.Dialect() == driver.DialectMySQL && strings.HasPrefix(q, "CREATE TABLE") {
			q += " ENGINE=InnoDB"
		}
		err := s.Transact(ctx, func(tx driver.SQLTx) error {
			_, err := tx.Exec(ctx, q)
			return err
		})
		if err != nil {
			return fmt.Errorf("tpcc schema: %s: %w", firstWords(q), err)
		}
	}
	return nil
}

// Analyze has the database gather its statistics of every table, which
// a load must end with: right after a bulk load MariaDB planned the
// consistency conditions' joins from the statistics of empty tables (56 s
// for one warehouse's, under 2 s once analyzed).
func Analyze(ctx context.Context, s driver.SQLTransactor) error {
	for _, t := range Tables() {
		q := "ANALYZE " + t
		if s.Dialect() == driver.DialectMySQL {
			q = "ANALYZE TABLE " + t
		}
		err := s.Transact(ctx, func(tx driver.SQLTx) error {
			// MySQL's ANALYZE TABLE returns a row of its verdict.
			rows, err := tx.Query(ctx, q)
			if err != nil {
				return err
			}
			for rows.Next() {
			}
			rows.Close()
			return rows.Err()
		})
		if err != nil {
			return fmt.Errorf("tpcc: analyze %s: %w", t, err)
		}
	}
	return nil
}

// Warehouses counts the warehouses loaded.
func Warehouses(ctx context.Context, s driver.SQLTransactor) (int64, error) {
	var n int64
	err := s.Transact(ctx, func(tx driver.SQLTx) error {
		rows, err := tx.Query(ctx, "SELECT COUNT(*) FROM warehouse")
		if err != nil {
			return err
		}
		defer rows.Close()
		if rows.Next() {
			err = rows.Scan(&n)
		}
		return errors.Join(err, rows.Err())
	})
	return n, err
}

// firstWords names a statement in an error: its first line.
func firstWords(q string) string {
	if i := strings.IndexByte(q, '('); i > 0 {
		return strings.TrimSpace(q[:i])
	}
	return q
}
