package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/dbarena/dbarena/driver"
)

// maintenanceDB is the database connected to when the target database must
// be created. PostgreSQL, CockroachDB and YugabyteDB all have one of this
// name.
const maintenanceDB = "postgres"

// CreateSchema implements driver.SchemaManager: it creates the database
// (when postgres.create.database allows) and the table when missing.
func (db *DB) CreateSchema(ctx context.Context, s driver.Schema) error {
	if err := db.CreateDatabase(ctx); err != nil {
		return err
	}
	q := db.cfg.sql.createTable(s.Table, s.Fields)
	if _, err := db.pool.Exec(ctx, q); err != nil {
		return fmt.Errorf("create table %s in database %q at %s: %w", s.Table, db.dbName, db.addr, err)
	}
	return nil
}

// CreateDatabase implements driver.DatabaseCreator: it creates the URL's
// database when it is missing and postgres.create.database allows, and
// connects to it.
func (db *DB) CreateDatabase(ctx context.Context) error {
	if !db.missingDB {
		return nil
	}
	if !db.cfg.CreateDatabase {
		return db.ready()
	}
	if err := db.createDatabase(ctx); err != nil {
		return err
	}
	if err := db.connect(ctx); err != nil {
		return err
	}
	db.missingDB = false
	return nil
}

func (db *DB) createDatabase(ctx context.Context) error {
	cc, err := pgx.ParseConfig(db.cfg.URL)
	if err != nil {
		return fmt.Errorf("postgres.url: %w", err)
	}
	cc.Database = maintenanceDB
	cc.ConnectTimeout = db.cfg.ConnectTimeout
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return fmt.Errorf("create database %q: connect to database %q at %s: %w", db.dbName, maintenanceDB, db.addr, err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "CREATE DATABASE "+ident(db.dbName))
	if err != nil && sqlState(err) != "42P04" { // duplicate_database: created meanwhile
		return fmt.Errorf("create database %q at %s: %w", db.dbName, db.addr, err)
	}
	db.log.Info("created database", "database", db.dbName, "addr", db.addr)
	return nil
}

// DropSchema implements driver.SchemaManager.
func (db *DB) DropSchema(ctx context.Context, s driver.Schema) error {
	if db.missingDB {
		return nil
	}
	if _, err := db.pool.Exec(ctx, "DROP TABLE IF EXISTS "+tbl(s.Table)); err != nil {
		return fmt.Errorf("drop table %s in database %q at %s: %w", s.Table, db.dbName, db.addr, err)
	}
	return nil
}

// CheckSchema implements driver.SchemaManager: the table must exist with
// the key column and, per the layout, every field column or the JSONB
// column.
func (db *DB) CheckSchema(ctx context.Context, s driver.Schema) error {
	if err := db.ready(); err != nil {
		return err
	}
	rows, err := db.pool.Query(ctx, `SELECT column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1`, strings.ToLower(s.Table))
	if err != nil {
		return fmt.Errorf("check table %s at %s: %w", s.Table, db.addr, err)
	}
	cols, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("check table %s at %s: %w", s.Table, db.addr, err)
	}
	if len(cols) == 0 {
		return fmt.Errorf("table %s does not exist in database %q at %s: run `dbarena ycsb load` first (it creates the table) or set the table property", s.Table, db.dbName, db.addr)
	}
	have := make(map[string]bool, len(cols))
	for _, c := range cols {
		have[c] = true
	}
	want := []string{keyColumn}
	if db.cfg.Layout == LayoutJSONB {
		want = append(want, valueColumn)
	} else {
		for _, f := range s.Fields {
			want = append(want, strings.ToLower(f))
		}
	}
	var missing []string
	for _, c := range want {
		if !have[c] {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("table %s in database %q at %s lacks column(s) %s for postgres.layout=%s (it has %s): drop it (--drop) and load again, or match fieldcount/fieldnameprefix/postgres.layout to it",
			s.Table, db.dbName, db.addr, strings.Join(missing, ", "), db.cfg.Layout, strings.Join(cols, ", "))
	}
	return nil
}
