package postgres

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDialectStatements(t *testing.T) {
	fields := []string{"field0", "field1"}
	pg := sqlBuilder{dialect: DialectPostgres, layout: LayoutColumns}
	require.Equal(t, "CREATE TABLE IF NOT EXISTS usertable (ycsb_key VARCHAR(255) NOT NULL, field0 TEXT, field1 TEXT, PRIMARY KEY (ycsb_key))",
		pg.createTable("usertable", fields))
	require.Equal(t, "SELECT * FROM usertable WHERE ycsb_key = $1", pg.readAll("usertable"))
	require.Equal(t, "SELECT field1 FROM usertable WHERE ycsb_key = $1", pg.readFields("usertable", fields[1:]))
	require.Equal(t, "UPDATE usertable SET field0 = $2, field1 = $3 WHERE ycsb_key = $1", pg.update("usertable", fields))
	require.Equal(t, "INSERT INTO usertable (ycsb_key, field0, field1) VALUES ($1, $2, $3), ($4, $5, $6)", pg.insertRows("usertable", fields, 2))
	require.Equal(t, "SELECT * FROM usertable WHERE ycsb_key >= $1 ORDER BY ycsb_key LIMIT $2", pg.scan("usertable", nil))
	require.Equal(t, "COPY usertable (ycsb_key, field0, field1) FROM STDIN", pg.copyFrom("usertable", fields))
	// YCSB's upper-case names fold as PostgreSQL folds them unquoted.
	require.Equal(t, "DELETE FROM usertable WHERE ycsb_key = $1", pg.delete("USERTABLE"))
	require.Equal(t, `SELECT "my-field" FROM "odd table" WHERE ycsb_key = $1`, pg.readFields("odd table", []string{"my-field"}))

	crdb := sqlBuilder{dialect: DialectCockroach, layout: LayoutColumns, upsert: true}
	require.Equal(t, "UPSERT INTO usertable (ycsb_key, field1) VALUES ($1, $2)", crdb.update("usertable", fields[1:]))
	require.Equal(t, "UPSERT INTO usertable (ycsb_key, field0, field1) VALUES ($1, $2, $3)", crdb.insert("usertable", fields))

	ybHash := sqlBuilder{dialect: DialectYugabyte, layout: LayoutColumns, hashKey: true, splits: 12}
	require.Equal(t, "CREATE TABLE IF NOT EXISTS usertable (ycsb_key VARCHAR(255) NOT NULL, field0 TEXT, field1 TEXT, PRIMARY KEY (ycsb_key HASH)) SPLIT INTO 12 TABLETS",
		ybHash.createTable("usertable", fields))
	ybRange := sqlBuilder{dialect: DialectYugabyte, layout: LayoutColumns}
	require.Contains(t, ybRange.createTable("usertable", fields), "PRIMARY KEY (ycsb_key ASC))")

	js := sqlBuilder{dialect: DialectPostgres, layout: LayoutJSONB}
	require.Equal(t, "CREATE TABLE IF NOT EXISTS usertable (ycsb_key VARCHAR(255) NOT NULL, ycsb_value JSONB NOT NULL, PRIMARY KEY (ycsb_key))",
		js.createTable("usertable", fields))
	require.Equal(t, "UPDATE usertable SET ycsb_value = ycsb_value || $2::jsonb WHERE ycsb_key = $1", js.update("usertable", fields))
	require.Equal(t, "SELECT ycsb_value->>'field1' AS field1 FROM usertable WHERE ycsb_key = $1", js.readFields("usertable", fields[1:]))
}

func TestJSONEncoding(t *testing.T) {
	doc := appendJSON(nil, []string{"a", `q"`}, [][]byte{[]byte("x\\y\"z\n"), {0x01, 0xff, 'k'}})
	var m map[string]string
	require.NoError(t, json.Unmarshal(doc, &m), string(doc))
	require.Equal(t, "x\\y\"z\n", m["a"])
	require.Equal(t, "\x01\u00ffk", m[`q"`])
}

func TestCopyText(t *testing.T) {
	require.Equal(t, `a\\b\tc\nd\re`, string(appendCopyText(nil, []byte("a\\b\tc\nd\re"))))
}
