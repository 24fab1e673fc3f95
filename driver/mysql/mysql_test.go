package mysql_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/mysql"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/internal/testkit"
	"github.com/dbarena/dbarena/record"
)

const (
	envAddr = "DBARENA_TEST_MYSQL"
	// testDatabase is created by the suites' CreateSchema.
	testDatabase = "dbarena_test"
)

func props(t testing.TB, extra ...string) map[string]string {
	t.Helper()
	p := map[string]string{"mysql.url": testenv.Addr(t, envAddr), "mysql.database": testDatabase}
	for i := 0; i+1 < len(extra); i += 2 {
		p[extra[i]] = extra[i+1]
	}
	return p
}

func open(t *testing.T, p map[string]string) driver.DB {
	t.Helper()
	db, err := mysql.Open(context.Background(), driver.Params{Props: p, Workers: 2})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestSameValueUpdateAndMissingRecords(t *testing.T) {
	db := open(t, props(t))
	ctx := context.Background()
	sm := db.(driver.SchemaManager)
	s := driver.Schema{Table: "same_value", Fields: []string{"field0", "field1"}}
	require.NoError(t, sm.DropSchema(ctx, s))
	require.NoError(t, sm.CreateSchema(ctx, s))
	t.Cleanup(func() { _ = sm.DropSchema(ctx, s) })
	sess, err := db.Session(ctx, 0)
	require.NoError(t, err)
	defer sess.Close()

	rec := record.Record{{Name: "field0", Value: []byte("a")}, {Name: "field1", Value: []byte("b")}}
	require.NoError(t, sess.Insert(ctx, s.Table, "k1", rec))
	// MySQL counts this update as changing no row; with CLIENT_FOUND_ROWS
	// it still matches one.
	require.NoError(t, sess.Update(ctx, s.Table, "k1", rec[:1]), "an update to the same value finds its record")
	require.ErrorIs(t, sess.Update(ctx, s.Table, "missing", rec[:1]), driver.ErrNotFound)
	require.ErrorIs(t, sess.Delete(ctx, s.Table, "missing"), driver.ErrNotFound)
	_, err = sess.Read(ctx, s.Table, "missing", []string{"field1"}, nil)
	require.ErrorIs(t, err, driver.ErrNotFound)
}

func TestCheckSchema(t *testing.T) {
	db := open(t, props(t))
	ctx := context.Background()
	sm := db.(driver.SchemaManager)
	s := driver.Schema{Table: "checked", Fields: []string{"field0"}}
	require.NoError(t, sm.DropSchema(ctx, s))
	err := sm.CheckSchema(ctx, s)
	require.ErrorContains(t, err, "checked")
	require.ErrorContains(t, err, testDatabase)
	require.NoError(t, sm.CreateSchema(ctx, s))
	t.Cleanup(func() { _ = sm.DropSchema(ctx, s) })
	require.NoError(t, sm.CheckSchema(ctx, s))
	err = sm.CheckSchema(ctx, driver.Schema{Table: "checked", Fields: []string{"field0", "field1"}})
	require.ErrorContains(t, err, "field1", "a missing field column is named")
}

// TestReadsYCSBTable reads a table created the way YCSB's JDBC
// documentation creates it, with upper-case column names, as another
// process would have loaded it: records come back under the workload's
// field names.
func TestReadsYCSBTable(t *testing.T) {
	dsn := testenv.Addr(t, envAddr)
	raw, err := sql.Open("mysql", dsn)
	require.NoError(t, err)
	defer raw.Close()
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS " + testDatabase,
		"DROP TABLE IF EXISTS " + testDatabase + ".ycsb_made",
		"CREATE TABLE " + testDatabase + ".ycsb_made (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 TEXT, FIELD1 TEXT)",
		"INSERT INTO " + testDatabase + ".ycsb_made VALUES ('user1', 'a', 'b')",
	} {
		_, err := raw.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	t.Cleanup(func() { _, _ = raw.ExecContext(ctx, "DROP TABLE "+testDatabase+".ycsb_made") })

	db := open(t, props(t))
	sess, err := db.Session(ctx, 0)
	require.NoError(t, err)
	defer sess.Close()
	// Without a schema call the driver lists the table's own columns...
	got, err := sess.Read(ctx, "ycsb_made", "user1", nil, nil)
	require.NoError(t, err)
	require.True(t, record.Equal(record.Record{{Name: "FIELD0", Value: []byte("a")}, {Name: "FIELD1", Value: []byte("b")}}, got), "%v", got)

	// ...and after the run phase's schema check it uses the workload's.
	db = open(t, props(t))
	s := driver.Schema{Table: "ycsb_made", Fields: []string{"field0", "field1"}}
	require.NoError(t, db.(driver.SchemaManager).CheckSchema(ctx, s))
	sess, err = db.Session(ctx, 0)
	require.NoError(t, err)
	got, err = sess.Read(ctx, "ycsb_made", "user1", nil, nil)
	require.NoError(t, err)
	require.True(t, record.Equal(record.Record{{Name: "field0", Value: []byte("a")}, {Name: "field1", Value: []byte("b")}}, got), "%v", got)
}

func TestBadPassword(t *testing.T) {
	cfg, err := gomysql.ParseDSN(testenv.Addr(t, envAddr))
	require.NoError(t, err)
	cfg.User, cfg.Passwd = "nobody_here", "wrong"
	_, err = mysql.Open(context.Background(), driver.Params{Props: map[string]string{"mysql.url": cfg.FormatDSN()}, Workers: 1})
	require.Error(t, err)
	t.Log(err)
	require.Contains(t, err.Error(), "nobody_here")
	require.Contains(t, err.Error(), "refused the login")
	require.NotContains(t, err.Error(), "wrong", "the password is not echoed")
}

func TestServerDiesMidRun(t *testing.T) {
	cfg, err := gomysql.ParseDSN(testenv.Addr(t, envAddr))
	require.NoError(t, err)
	proxy := testkit.NewProxy(t, cfg.Addr)
	cfg.Addr = proxy.Addr()
	db := open(t, map[string]string{"mysql.url": cfg.FormatDSN(), "mysql.database": testDatabase})
	ctx := context.Background()
	s := driver.Schema{Table: "dies", Fields: []string{"field0"}}
	require.NoError(t, db.(driver.SchemaManager).CreateSchema(ctx, s))
	sess, err := db.Session(ctx, 0)
	require.NoError(t, err)
	defer sess.Close()
	_, err = sess.Read(ctx, s.Table, "missing", nil, nil)
	require.ErrorIs(t, err, driver.ErrNotFound)
	proxy.Cut()
	_, err = sess.Read(ctx, s.Table, "missing", nil, nil)
	require.Error(t, err)
	require.True(t, driver.Retryable(err), "a dead server is retryable: %v (%s)", err, driver.Classify(err))
}

func TestBadProperties(t *testing.T) {
	for prop, val := range map[string]string{
		"mysql.dialect": "oracle", "mysql.pool": "0", "mysql.connect.timeout": "soon", "mysql.url": "tcp(nowhere",
		"mysql.database": "a.b", "mysql.engine": "InnoDB; DROP", "mysql.batch.rows": "0",
	} {
		t.Run(prop, func(t *testing.T) {
			_, err := mysql.ParseConfig(map[string]string{prop: val}, 4)
			require.Error(t, err)
			require.Contains(t, err.Error(), prop)
		})
	}
}

func TestProperties(t *testing.T) {
	c, err := mysql.ParseConfig(nil, 16)
	require.NoError(t, err)
	require.Equal(t, "ycsb", c.Database)
	require.Equal(t, "127.0.0.1:3306", c.DSN.Addr)
	require.Equal(t, 16, c.Pool, "one connection per worker by default")
	require.True(t, c.DSN.ClientFoundRows, "updates count matched rows")
	require.Equal(t, 5*time.Second, c.DSN.Timeout)

	c, err = mysql.ParseConfig(map[string]string{"mysql.url": "u:p@tcp(db:4000)/bench?timeout=1s"}, 4)
	require.NoError(t, err)
	require.Equal(t, "bench", c.Database, "the DSN's database when mysql.database is not set")
	require.Equal(t, time.Second, c.DSN.Timeout, "the DSN's own timeout wins")
	require.True(t, strings.HasPrefix(c.DSN.FormatDSN(), "u:p@tcp(db:4000)/?"))
}
