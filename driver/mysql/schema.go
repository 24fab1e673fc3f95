package mysql

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/driver"
)

// CreateSchema implements driver.SchemaManager: CREATE DATABASE IF NOT
// EXISTS, then CREATE TABLE IF NOT EXISTS with the key and field columns.
func (db *DB) CreateSchema(ctx context.Context, s driver.Schema) error {
	if err := db.CreateDatabase(ctx); err != nil {
		return err
	}
	if _, err := db.sql.ExecContext(ctx, db.b.createTable(s.Table, s.Fields)); err != nil {
		return fmt.Errorf("create table %s.%s at %s: %w", db.cfg.Database, s.Table, db.addr, classify(err))
	}
	db.setFields(s.Table, s.Fields)
	return nil
}

// CreateDatabase implements driver.DatabaseCreator: CREATE DATABASE IF
// NOT EXISTS.
func (db *DB) CreateDatabase(ctx context.Context) error {
	res, err := db.sql.ExecContext(ctx, db.b.createDatabase())
	if err != nil {
		return fmt.Errorf("create database %s at %s: %w", db.cfg.Database, db.addr, classify(err))
	}
	if n, _ := res.RowsAffected(); n > 0 {
		db.log.Info("created database", "database", db.cfg.Database, "addr", db.addr)
	}
	return nil
}

// DropSchema implements driver.SchemaManager: DROP TABLE IF EXISTS. A
// missing database is no error either.
func (db *DB) DropSchema(ctx context.Context, s driver.Schema) error {
	_, err := db.sql.ExecContext(ctx, db.b.dropTable(s.Table))
	if err != nil && errorNumber(err) != 1049 { // unknown database: nothing to drop
		return fmt.Errorf("drop table %s.%s at %s: %w", db.cfg.Database, s.Table, db.addr, classify(err))
	}
	db.mu.Lock()
	delete(db.fields, s.Table)
	db.mu.Unlock()
	return nil
}

// CheckSchema implements driver.SchemaManager: the table must exist in
// mysql.database with the key column and a column per field (names compare
// without case, as MySQL compares them).
func (db *DB) CheckSchema(ctx context.Context, s driver.Schema) error {
	cols, err := db.columns(ctx, s.Table)
	if err != nil {
		return fmt.Errorf("check table %s.%s at %s: %w", db.cfg.Database, s.Table, db.addr, classify(err))
	}
	if len(cols) == 0 {
		return fmt.Errorf("table %s does not exist in database %s at %s: run `dbarena ycsb load` first (it creates the database and table), or set mysql.database or the table property",
			s.Table, db.cfg.Database, db.addr)
	}
	have := make(map[string]bool, len(cols))
	for _, c := range cols {
		have[strings.ToLower(c)] = true
	}
	var missing []string
	for _, c := range append([]string{keyColumn}, s.Fields...) {
		if !have[strings.ToLower(c)] {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("table %s.%s at %s lacks column(s) %s (it has %s): drop it (--drop) and load again, or match fieldcount/fieldnameprefix to it",
			db.cfg.Database, s.Table, db.addr, strings.Join(missing, ", "), strings.Join(cols, ", "))
	}
	db.setFields(s.Table, s.Fields)
	return nil
}
