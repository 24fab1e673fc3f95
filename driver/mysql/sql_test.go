package mysql

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/redact"
)

func TestSQL(t *testing.T) {
	b := sqlBuilder{database: "ycsb", dialect: DialectMySQL, engine: "InnoDB"}
	f := []string{"field0", "field1"}
	for name, tc := range map[string]struct{ got, want string }{
		"read": {b.read("usertable", f), "SELECT `field0`, `field1` FROM `ycsb`.`usertable` WHERE YCSB_KEY = ?"},
		"scan": {b.scan("usertable", f[:1]), "SELECT `field0` FROM `ycsb`.`usertable` WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?"},
		"insert": {b.insert("usertable", f),
			"INSERT INTO `ycsb`.`usertable` (YCSB_KEY, `field0`, `field1`) VALUES (?, ?, ?)"},
		"insert rows": {b.insertRows("usertable", f[:1], 3),
			"INSERT INTO `ycsb`.`usertable` (YCSB_KEY, `field0`) VALUES (?, ?), (?, ?), (?, ?)"},
		"update":          {b.update("usertable", f), "UPDATE `ycsb`.`usertable` SET `field0` = ?, `field1` = ? WHERE YCSB_KEY = ?"},
		"delete":          {b.delete("usertable"), "DELETE FROM `ycsb`.`usertable` WHERE YCSB_KEY = ?"},
		"create database": {b.createDatabase(), "CREATE DATABASE IF NOT EXISTS `ycsb`"},
		"create table": {b.createTable("usertable", f),
			"CREATE TABLE IF NOT EXISTS `ycsb`.`usertable` (YCSB_KEY VARCHAR(255) NOT NULL, `field0` TEXT, `field1` TEXT, PRIMARY KEY (YCSB_KEY)) ENGINE=InnoDB"},
		"create table tidb": {sqlBuilder{database: "ycsb", dialect: DialectTiDB, engine: "InnoDB"}.createTable("usertable", f[:1]),
			"CREATE TABLE IF NOT EXISTS `ycsb`.`usertable` (YCSB_KEY VARCHAR(255) NOT NULL, `field0` TEXT, PRIMARY KEY (YCSB_KEY) /*T![clustered_index] CLUSTERED */)"},
		"drop":   {b.dropTable("usertable"), "DROP TABLE IF EXISTS `ycsb`.`usertable`"},
		"quoted": {b.table("we`ird"), "`ycsb`.`we``ird`"},
	} {
		require.Equal(t, tc.want, tc.got, name)
	}
}

func TestFieldsKey(t *testing.T) {
	require.Equal(t, "", fieldsKey(nil))
	require.Equal(t, "field3", fieldsKey([]string{"field3"}))
	require.Equal(t, "a,b", fieldsKey([]string{"a", "b"}))
	require.NotEqual(t, rowsKey([]string{"a"}, 2), rowsKey([]string{"a"}, 3))
}

func TestErrorClass(t *testing.T) {
	for n, want := range map[uint16]string{
		1062: "CONFLICT", 1205: "CONFLICT", 1213: "CONFLICT", 9007: "CONFLICT",
		3024: "TIMEOUT", 1040: "THROTTLED", 1290: "SERVICE_UNAVAILABLE", 1146: "BAD_REQUEST", 1045: "ERROR",
	} {
		require.EqualValues(t, want, errorClass(n), "error %d", n)
	}
}

func TestJDBCDSN(t *testing.T) {
	c, err := ParseConfig(map[string]string{
		"db.url": "jdbc:mysql://db1:3307/bench?rewriteBatchedStatements=true", "db.user": "alice", "db.passwd": "s3cret",
	}, 4)
	require.NoError(t, err)
	require.Equal(t, "alice", c.DSN.User)
	require.Equal(t, "s3cret", c.DSN.Passwd)
	require.Equal(t, "db1:3307", c.DSN.Addr)
	require.Equal(t, "bench", c.Database, "the JDBC URL's database")
	require.Empty(t, c.DSN.DBName, "connections name no default database")
}

func TestRedact(t *testing.T) {
	require.Equal(t, "root:REDACTED@tcp(h:1)/db", redact.URL("root:pw@tcp(h:1)/db"))
	require.Equal(t, "root@tcp(h:1)/db", redact.URL("root@tcp(h:1)/db"))
}
