package postgres

import (
	"fmt"
	"strconv"
	"strings"
)

// Dialect is the PostgreSQL-compatible product a driver talks to. The wire
// protocol is the same; table options, upserts and retry behaviour differ.
type Dialect string

// Dialects.
const (
	DialectPostgres  Dialect = "postgres"
	DialectCockroach Dialect = "cockroachdb"
	DialectYugabyte  Dialect = "yugabyte"
)

// Layout is how a record's fields are stored.
type Layout string

// Layouts.
const (
	// LayoutColumns stores one TEXT column per field, as YCSB's JDBC
	// binding does (YCSB_KEY, FIELD0, FIELD1, ...).
	LayoutColumns Layout = "columns"
	// LayoutJSONB stores every field in one JSONB document, as YCSB's
	// postgrenosql binding does (YCSB_KEY, YCSB_VALUE).
	LayoutJSONB Layout = "jsonb"
)

// Column names shared with YCSB's bindings. PostgreSQL folds unquoted
// identifiers to lower case, so YCSB_KEY created by YCSB's scripts is
// ycsb_key, the name used here.
const (
	keyColumn   = "ycsb_key"
	valueColumn = "ycsb_value"
)

// sqlBuilder writes the statements of one dialect and layout. Table and
// column names come from the user's properties and are quoted as
// identifiers only when they need it, so that they match tables YCSB
// created with unquoted names.
type sqlBuilder struct {
	dialect Dialect
	layout  Layout
	// upsert makes inserts and updates blind writes (CockroachDB's
	// UPSERT): faster there, but an insert of an existing key no longer
	// fails and an update of a missing key creates it.
	upsert bool
	// hashKey picks YugabyteDB's HASH sharding of the primary key (spread
	// writes; scans need every tablet) over range sharding (ordered scans).
	hashKey bool
	// splits pre-splits a YugabyteDB table into tablets or a CockroachDB
	// table into ranges; 0 leaves the database's default.
	splits int
}

// ident quotes a name unless it is a plain lower-case identifier.
func ident(name string) string {
	plain := name != ""
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// tbl returns a table name folded to lower case, as PostgreSQL folds the
// unquoted names in YCSB's statements.
func tbl(table string) string { return ident(strings.ToLower(table)) }

// column returns the column that holds a YCSB field. Field names are
// folded to lower case as PostgreSQL does for YCSB's unquoted FIELD0.
func column(field string) string { return ident(strings.ToLower(field)) }

func (b sqlBuilder) createTable(table string, fields []string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "CREATE TABLE IF NOT EXISTS %s (%s VARCHAR(255) NOT NULL", tbl(table), keyColumn)
	if b.layout == LayoutJSONB {
		fmt.Fprintf(&sb, ", %s JSONB NOT NULL", valueColumn)
	} else {
		for _, f := range fields {
			fmt.Fprintf(&sb, ", %s TEXT", column(f))
		}
	}
	switch {
	case b.dialect == DialectYugabyte && b.hashKey:
		fmt.Fprintf(&sb, ", PRIMARY KEY (%s HASH))", keyColumn)
	case b.dialect == DialectYugabyte:
		fmt.Fprintf(&sb, ", PRIMARY KEY (%s ASC))", keyColumn)
	default:
		fmt.Fprintf(&sb, ", PRIMARY KEY (%s))", keyColumn)
	}
	if b.dialect == DialectYugabyte && b.hashKey && b.splits > 0 {
		fmt.Fprintf(&sb, " SPLIT INTO %d TABLETS", b.splits)
	}
	return sb.String()
}

// readAll selects every field of one record; the key column is skipped
// when the result is read.
func (b sqlBuilder) readAll(table string) string {
	if b.layout == LayoutJSONB {
		return fmt.Sprintf("SELECT %s::text FROM %s WHERE %s = $1", valueColumn, tbl(table), keyColumn)
	}
	return fmt.Sprintf("SELECT * FROM %s WHERE %s = $1", tbl(table), keyColumn)
}

// selectList returns the select list of the given fields.
func (b sqlBuilder) selectList(fields []string) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		if b.layout == LayoutJSONB {
			parts[i] = fmt.Sprintf("%s->>'%s' AS %s", valueColumn, strings.ReplaceAll(f, "'", "''"), ident(f))
		} else {
			parts[i] = column(f)
		}
	}
	return strings.Join(parts, ", ")
}

func (b sqlBuilder) readFields(table string, fields []string) string {
	return fmt.Sprintf("SELECT %s FROM %s WHERE %s = $1", b.selectList(fields), tbl(table), keyColumn)
}

// scan selects up to $2 records from key $1 on in key order. With
// YugabyteDB's HASH keys the order is the hash order, as YCSB gets there.
func (b sqlBuilder) scan(table string, fields []string) string {
	list := "*"
	if b.layout == LayoutJSONB && fields == nil {
		list = valueColumn + "::text"
	} else if fields != nil {
		list = b.selectList(fields)
	}
	return fmt.Sprintf("SELECT %s FROM %s WHERE %s >= $1 ORDER BY %s LIMIT $2", list, tbl(table), keyColumn, keyColumn)
}

// insert writes one record: $1 is the key, then one parameter per field
// (columns) or the JSON document (jsonb).
func (b sqlBuilder) insert(table string, fields []string) string {
	return b.insertRows(table, fields, 1)
}

// insertRows is a multi-row INSERT of n records.
func (b sqlBuilder) insertRows(table string, fields []string, n int) string {
	var sb strings.Builder
	verb := "INSERT"
	if b.upsert {
		verb = "UPSERT"
	}
	fmt.Fprintf(&sb, "%s INTO %s (%s, ", verb, tbl(table), keyColumn)
	per := 2
	if b.layout == LayoutJSONB {
		sb.WriteString(valueColumn)
	} else {
		per = len(fields) + 1
		for i, f := range fields {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(column(f))
		}
	}
	sb.WriteString(") VALUES ")
	p := 1
	for r := 0; r < n; r++ {
		if r > 0 {
			sb.WriteString(", ")
		}
		sb.WriteByte('(')
		for c := 0; c < per; c++ {
			if c > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString("$" + strconv.Itoa(p))
			if b.layout == LayoutJSONB && c == 1 {
				sb.WriteString("::jsonb")
			}
			p++
		}
		sb.WriteByte(')')
	}
	return sb.String()
}

// update sets the given fields of one record: $1 is the key, then one
// parameter per field (columns) or a JSON document merged into the stored
// one (jsonb).
func (b sqlBuilder) update(table string, fields []string) string {
	if b.upsert {
		return b.insert(table, fields)
	}
	if b.layout == LayoutJSONB {
		return fmt.Sprintf("UPDATE %s SET %s = %s || $2::jsonb WHERE %s = $1", tbl(table), valueColumn, valueColumn, keyColumn)
	}
	sets := make([]string, len(fields))
	for i, f := range fields {
		sets[i] = fmt.Sprintf("%s = $%d", column(f), i+2)
	}
	return fmt.Sprintf("UPDATE %s SET %s WHERE %s = $1", tbl(table), strings.Join(sets, ", "), keyColumn)
}

func (b sqlBuilder) delete(table string) string {
	return fmt.Sprintf("DELETE FROM %s WHERE %s = $1", tbl(table), keyColumn)
}

// copyFrom is the COPY statement of the load phase.
func (b sqlBuilder) copyFrom(table string, fields []string) string {
	cols := []string{keyColumn}
	if b.layout == LayoutJSONB {
		cols = append(cols, valueColumn)
	} else {
		for _, f := range fields {
			cols = append(cols, column(f))
		}
	}
	return fmt.Sprintf("COPY %s (%s) FROM STDIN", tbl(table), strings.Join(cols, ", "))
}

// appendJSON appends a JSON object of the record's fields to dst.
func appendJSON(dst []byte, names []string, values [][]byte) []byte {
	dst = append(dst, '{')
	for i := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, names[i])
		dst = append(dst, ':')
		dst = appendJSONString(dst, values[i])
	}
	return append(dst, '}')
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string. YCSB values are printable
// ASCII, but anything else is escaped so no byte can break the document.
func appendJSONString[T string | []byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x20 || c >= 0x7f:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// appendCopyText appends v in COPY's text format, escaping the characters
// that format reserves.
func appendCopyText(dst, v []byte) []byte {
	for _, c := range v {
		switch c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// ReadAllSQL is the statement a read of every field sends, with the key
// as $1: a native tool such as pgbench can run the very same query.
func (c Config) ReadAllSQL(table string) string { return c.sql.readAll(table) }
