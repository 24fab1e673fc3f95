package mysql

import (
	"strconv"
	"strings"
)

// keyColumn is the primary key column, named as in YCSB's JDBC binding.
const keyColumn = "YCSB_KEY"

// sqlBuilder writes the driver's statements. Every table is qualified with
// the database, so that connections need no default database and the load
// can create it.
type sqlBuilder struct {
	database string
	dialect  Dialect
	engine   string
}

// ident quotes an identifier with backquotes.
func ident(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// table returns the qualified table name.
func (b sqlBuilder) table(name string) string {
	return ident(b.database) + "." + ident(name)
}

func columnList(fields []string) string {
	var sb strings.Builder
	for i, f := range fields {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(ident(f))
	}
	return sb.String()
}

// read selects the given fields of one record.
func (b sqlBuilder) read(table string, fields []string) string {
	return "SELECT " + columnList(fields) + " FROM " + b.table(table) + " WHERE " + keyColumn + " = ?"
}

// scan selects the given fields of count records from a start key, in key
// order.
func (b sqlBuilder) scan(table string, fields []string) string {
	return "SELECT " + columnList(fields) + " FROM " + b.table(table) + " WHERE " + keyColumn +
		" >= ? ORDER BY " + keyColumn + " LIMIT ?"
}

// insert writes one record: the key, then the fields.
func (b sqlBuilder) insert(table string, fields []string) string {
	return b.insertRows(table, fields, 1)
}

// insertRows writes rows records in one multi-row INSERT.
func (b sqlBuilder) insertRows(table string, fields []string, rows int) string {
	var sb strings.Builder
	sb.WriteString("INSERT INTO ")
	sb.WriteString(b.table(table))
	sb.WriteString(" (" + keyColumn)
	for _, f := range fields {
		sb.WriteString(", ")
		sb.WriteString(ident(f))
	}
	sb.WriteString(") VALUES ")
	row := "(?" + strings.Repeat(", ?", len(fields)) + ")"
	for i := 0; i < rows; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(row)
	}
	return sb.String()
}

// update sets the given fields of one record.
func (b sqlBuilder) update(table string, fields []string) string {
	var sb strings.Builder
	sb.WriteString("UPDATE ")
	sb.WriteString(b.table(table))
	sb.WriteString(" SET ")
	for i, f := range fields {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(ident(f))
		sb.WriteString(" = ?")
	}
	sb.WriteString(" WHERE " + keyColumn + " = ?")
	return sb.String()
}

// delete removes one record.
func (b sqlBuilder) delete(table string) string {
	return "DELETE FROM " + b.table(table) + " WHERE " + keyColumn + " = ?"
}

// createDatabase creates the database when missing.
func (b sqlBuilder) createDatabase() string {
	return "CREATE DATABASE IF NOT EXISTS " + ident(b.database)
}

// createTable creates YCSB's table when missing: the key as VARCHAR(255)
// primary key and one TEXT column per field, as YCSB's JDBC binding
// documents it. On TiDB the primary key is clustered, so that a point
// read is one lookup rather than an index lookup and a row lookup, and
// the ENGINE clause, which TiDB ignores, is left out.
func (b sqlBuilder) createTable(table string, fields []string) string {
	var sb strings.Builder
	sb.WriteString("CREATE TABLE IF NOT EXISTS ")
	sb.WriteString(b.table(table))
	sb.WriteString(" (" + keyColumn + " VARCHAR(255) NOT NULL")
	for _, f := range fields {
		sb.WriteString(", ")
		sb.WriteString(ident(f))
		sb.WriteString(" TEXT")
	}
	sb.WriteString(", PRIMARY KEY (" + keyColumn + ")")
	if b.dialect == DialectTiDB {
		sb.WriteString(" /*T![clustered_index] CLUSTERED */)")
		return sb.String()
	}
	sb.WriteString(") ENGINE=" + b.engine)
	return sb.String()
}

// dropTable removes the table when it exists.
func (b sqlBuilder) dropTable(table string) string {
	return "DROP TABLE IF EXISTS " + b.table(table)
}

// columns lists a table's columns in order.
const columnsQuery = `SELECT COLUMN_NAME FROM information_schema.COLUMNS
	WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`

// fieldsKey names a field list for a statement cache without allocating in
// the common cases: every field (nil), or one.
func fieldsKey(fields []string) string {
	switch len(fields) {
	case 0:
		return ""
	case 1:
		return fields[0]
	}
	return strings.Join(fields, ",")
}

// rowsKey names a statement of n rows.
func rowsKey(fields []string, n int) string {
	return fieldsKey(fields) + "/" + strconv.Itoa(n)
}
