package postgres_test

import (
	"context"
	"net"
	neturl "net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/postgres"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/internal/testkit"
	"github.com/dbarena/dbarena/record"
)

const envAddr = "DBARENA_TEST_POSTGRES"

// withDatabase returns the server URL with another database name.
func withDatabase(t *testing.T, url, name string) string {
	t.Helper()
	i := strings.LastIndex(url, "/")
	q := ""
	if j := strings.Index(url[i:], "?"); j >= 0 {
		q = url[i+j:]
	}
	return url[:i+1] + name + q
}

func TestCreatesMissingDatabase(t *testing.T) {
	ctx := context.Background()
	name := "dbarena_new_" + strings.ReplaceAll(time.Now().Format("150405.000000"), ".", "")
	url := withDatabase(t, testenv.Addr(t, envAddr), name)
	db, err := postgres.Open(ctx, driver.Params{Props: map[string]string{"postgres.url": url}, Workers: 1})
	require.NoError(t, err, "a missing database is not an error at open")
	defer db.Close()
	sm := db.(driver.SchemaManager)
	schema := driver.Schema{Table: "usertable", Fields: []string{"field0"}}
	err = sm.CheckSchema(ctx, schema)
	require.ErrorContains(t, err, name, "check names the missing database")
	_, err = db.Session(ctx, 0)
	require.ErrorContains(t, err, "does not exist")
	require.NoError(t, sm.CreateSchema(ctx, schema))
	require.NoError(t, sm.CheckSchema(ctx, schema))

	// A table of another shape is reported with the missing columns.
	err = sm.CheckSchema(ctx, driver.Schema{Table: "usertable", Fields: []string{"field0", "field1"}})
	require.ErrorContains(t, err, "field1")
}

func TestBadLogin(t *testing.T) {
	url := testenv.Addr(t, envAddr)
	url = strings.Replace(url, "postgres://postgres@", "postgres://nobody_here@", 1)
	_, err := postgres.Open(context.Background(), driver.Params{Props: map[string]string{"postgres.url": url}, Workers: 1})
	require.Error(t, err)
	require.Contains(t, err.Error(), "nobody_here")
}

func TestBadProperties(t *testing.T) {
	for prop, val := range map[string]string{
		"postgres.dialect": "oracle", "postgres.pool.max": "0", "postgres.layout": "xml",
		"postgres.connect.timeout": "soon", "postgres.upsert": "true", "postgres.url": "::not a url",
	} {
		_, err := postgres.ParseConfig(map[string]string{prop: val}, 4)
		require.Error(t, err, prop)
		require.Contains(t, err.Error(), prop)
	}
}

func TestJDBCProperties(t *testing.T) {
	c, err := postgres.ParseConfig(map[string]string{
		"db.url": "jdbc:postgresql://db1:5433/bench", "db.user": "alice", "db.passwd": "s3cret",
	}, 4)
	require.NoError(t, err)
	require.Equal(t, "postgresql://alice:s3cret@db1:5433/bench", c.URL)
	require.Equal(t, 4, c.PoolMax, "one connection per worker by default")
}

// sameServerHosts is the test server's URL and properties that list it
// n times in postgres.hosts, as n nodes of a cluster.
func sameServerHosts(t *testing.T, n int) (string, map[string]string) {
	url := withDatabase(t, testenv.Addr(t, envAddr), "dbarena_test")
	pc, err := pgx.ParseConfig(url)
	require.NoError(t, err)
	addr := net.JoinHostPort(pc.Host, strconv.Itoa(int(pc.Port)))
	return url, map[string]string{"postgres.url": url, "postgres.hosts": strings.TrimSuffix(strings.Repeat(addr+",", n), ",")}
}

// TestHostsSpreadWorkers gives postgres.hosts the same server under two
// entries, as two nodes of a cluster: the workers' sessions must split
// between them (each pool names its host in application_name). The
// conformance suite runs over such hosts in driver/drivertest.
func TestHostsSpreadWorkers(t *testing.T) {
	// Sessions sent to one host would wait for connections its half of
	// the pool does not have: fail, not hang.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	url, props := sameServerHosts(t, 2)
	db, err := postgres.Open(ctx, driver.Params{Props: props, Workers: 4})
	require.NoError(t, err)
	defer db.Close()
	schema := driver.Schema{Table: "dbarena_hosts", Fields: []string{"field0"}}
	sm := db.(driver.SchemaManager)
	require.NoError(t, sm.CreateSchema(ctx, schema))
	defer func() { _ = sm.DropSchema(ctx, schema) }()
	for w := range 4 {
		s, err := db.Session(ctx, w)
		require.NoError(t, err)
		defer s.Close()
		// One operation each: the session keeps its connection.
		_, err = s.Read(ctx, schema.Table, "k", nil, nil)
		require.True(t, err == nil || driver.Classify(err) == driver.ClassNotFound, "%v", err)
	}
	check, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer check.Close(ctx)
	per := map[string]int{}
	rows, err := check.Query(ctx, "SELECT application_name, count(*) FROM pg_stat_activity WHERE application_name LIKE 'dbarena host %' GROUP BY 1")
	require.NoError(t, err)
	for rows.Next() {
		var name string
		var n int
		require.NoError(t, rows.Scan(&name, &n))
		per[name] = n
	}
	require.NoError(t, rows.Err())
	require.GreaterOrEqual(t, per["dbarena host 1 of 2"], 2, "%v", per)
	require.GreaterOrEqual(t, per["dbarena host 2 of 2"], 2, "workers 1 and 3 on the second host: %v", per)

	// Without sslmode=disable pgx tries TLS, then plain: the fallback
	// must survive the host's rewriting (the test server has no TLS).
	prefer := strings.Replace(url, "sslmode=disable", "sslmode=prefer", 1)
	require.Contains(t, prefer, "sslmode=prefer")
	db2, err := postgres.Open(ctx, driver.Params{Props: map[string]string{"postgres.url": prefer, "postgres.hosts": props["postgres.hosts"]}, Workers: 2})
	require.NoError(t, err, "sslmode=prefer falls back to plain on each host")
	require.NoError(t, db2.Close())

	_, err = postgres.ParseConfig(map[string]string{"postgres.hosts": "10.0.0.2"}, 1)
	require.ErrorContains(t, err, "postgres.hosts")
}

// TestFirstWorkerPicksTheHost: a loader whose workers the trial
// numbers from 2 (driver.Params.FirstWorker) sends its first worker to
// the third of three hosts (the same server under three entries; each
// pool names its host in application_name), so that a trial's loaders
// fill every node rather than each start at the first.
func TestFirstWorkerPicksTheHost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	url, props := sameServerHosts(t, 3)
	check, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer check.Close(ctx)
	for first, want := range map[int]string{0: "dbarena host 1 of 3", 2: "dbarena host 3 of 3", 4: "dbarena host 2 of 3"} {
		db, err := postgres.Open(ctx, driver.Params{Props: props, Workers: 1, FirstWorker: first})
		require.NoError(t, err)
		schema := driver.Schema{Table: "dbarena_first", Fields: []string{"field0"}}
		sm := db.(driver.SchemaManager)
		require.NoError(t, sm.CreateSchema(ctx, schema))
		s, err := db.Session(ctx, 0)
		require.NoError(t, err)
		time.Sleep(20 * time.Millisecond) // the pools' pings change state before the read
		_, err = s.Read(ctx, schema.Table, "k", nil, nil)
		require.True(t, err == nil || driver.Classify(err) == driver.ClassNotFound, "%v", err)
		var last string
		require.NoError(t, check.QueryRow(ctx,
			"SELECT application_name FROM pg_stat_activity WHERE application_name LIKE 'dbarena host %' ORDER BY state_change DESC LIMIT 1").Scan(&last))
		require.Equal(t, want, last, "FirstWorker %d", first)
		require.NoError(t, s.Close())
		require.NoError(t, sm.DropSchema(ctx, schema))
		require.NoError(t, db.Close())
	}
}

// openTable opens url for workers workers, closed when the test ends,
// with usertable dropped and created with fields.
func openTable(t *testing.T, url string, workers int, fields ...string) (driver.DB, driver.SchemaManager) {
	t.Helper()
	ctx := context.Background()
	db, err := postgres.Open(ctx, driver.Params{Props: map[string]string{"postgres.url": url}, Workers: workers})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	sm := db.(driver.SchemaManager)
	schema := driver.Schema{Table: "usertable", Fields: fields}
	require.NoError(t, sm.DropSchema(ctx, schema))
	require.NoError(t, sm.CreateSchema(ctx, schema))
	return db, sm
}

// TestOperationAllocations guards the protocol-level path: a read of
// every field and an update of one field allocate at most a handful of
// times each (2 when written, 5 before the session watched the run's
// context once instead of pgx per operation), not once per field or
// argument as pgx's generic path does.
func TestOperationAllocations(t *testing.T) {
	url := withDatabase(t, testenv.Addr(t, envAddr), "dbarena_test_allocs")
	ctx, cancel := context.WithCancel(context.Background()) // as the runner's: cancellable
	defer cancel()
	fields := []string{"field0", "field1", "field2", "field3", "field4", "field5", "field6", "field7", "field8", "field9"}
	db, _ := openTable(t, url, 1, fields...)
	sess, err := db.Session(ctx, 0)
	require.NoError(t, err)
	defer sess.Close()
	var rec record.Record
	for _, f := range fields {
		rec = rec.Append(f, []byte(strings.Repeat("v", 100)))
	}
	require.NoError(t, sess.Insert(ctx, "usertable", "user1", rec))
	one := record.Record{{Name: "field3", Value: []byte(strings.Repeat("w", 100))}}
	var dst record.Record
	read := testing.AllocsPerRun(200, func() {
		dst, err = sess.Read(ctx, "usertable", "user1", nil, dst)
		if err != nil {
			t.Fatal(err)
		}
	})
	update := testing.AllocsPerRun(200, func() {
		if err := sess.Update(ctx, "usertable", "user1", one); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("allocations: %.1f per read, %.1f per update", read, update)
	require.Len(t, dst, len(fields))
	require.LessOrEqual(t, read, 3.0, "allocations per read of 10 fields")
	require.LessOrEqual(t, update, 3.0, "allocations per update")
}

// TestTableRecreated recreates the table with another column under a
// session whose connection has its statements prepared: the next read
// prepares again instead of failing on the stale plan.
func TestTableRecreated(t *testing.T) {
	url := withDatabase(t, testenv.Addr(t, envAddr), "dbarena_test_recreated")
	ctx := context.Background()
	// Two connections: the session keeps one, the schema changes use the
	// other.
	db, sm := openTable(t, url, 2, "field0")
	sess, err := db.Session(ctx, 0)
	require.NoError(t, err)
	defer sess.Close()
	require.NoError(t, sess.Insert(ctx, "usertable", "user1", record.Record{{Name: "field0", Value: []byte("a")}}))
	got, err := sess.Read(ctx, "usertable", "user1", nil, nil)
	require.NoError(t, err)
	require.Len(t, got, 1)

	large := driver.Schema{Table: "usertable", Fields: []string{"field0", "field1"}}
	require.NoError(t, sm.DropSchema(ctx, large))
	require.NoError(t, sm.CreateSchema(ctx, large))
	require.NoError(t, sess.Insert(ctx, "usertable", "user1", record.Record{{Name: "field0", Value: []byte("b")}, {Name: "field1", Value: []byte("c")}}))
	got, err = sess.Read(ctx, "usertable", "user1", nil, nil)
	require.NoError(t, err, "the read of every field after the table changed")
	require.Len(t, got, 2)
}

// frozenRow is the row TestInterruptOnFrozenServer writes and updates.
func frozenRow() record.Record { return record.Record{{Name: "field0", Value: []byte("v")}} }

// frozenDB opens a one-worker database, and so one connection, through a
// proxy it returns, on a fresh table.
func frozenDB(t *testing.T) (driver.DB, *testkit.Proxy) {
	t.Helper()
	u, err := neturl.Parse(withDatabase(t, testenv.Addr(t, envAddr), "dbarena_test_frozen"))
	require.NoError(t, err)
	proxy := testkit.NewProxy(t, u.Host)
	u.Host = proxy.Addr()
	db, _ := openTable(t, u.String(), 1, "field0")
	t.Cleanup(proxy.Cut) // before db.Close: closing waits on a frozen server
	return db, proxy
}

// frozenSession opens a session that the test's end closes.
func frozenSession(t *testing.T, db driver.DB) driver.Session {
	t.Helper()
	sess, err := db.Session(context.Background(), 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = sess.Close() })
	return sess
}

// writeAndEnd writes k1 under a context it then ends, between operations.
func writeAndEnd(t *testing.T, sess driver.Session) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, sess.Insert(ctx, "usertable", "k1", frozenRow()))
	cancel()
}

// updateFrozen freezes the server, runs an update under ctx, calls end
// after a moment, and returns the update's error and how long it took.
func updateFrozen(t *testing.T, sess driver.Session, proxy *testkit.Proxy, ctx context.Context, end func()) (time.Duration, error) {
	t.Helper()
	proxy.Stall()
	start := time.Now()
	errc := make(chan error, 1)
	go func() { errc <- sess.Update(ctx, "usertable", "k1", frozenRow()) }()
	time.Sleep(300 * time.Millisecond)
	end()
	select {
	case err := <-errc:
		return time.Since(start), err
	case <-time.After(10 * time.Second):
		t.Fatal("the update outlived its context by 10 s")
		return 0, nil
	}
}

// TestInterruptOnFrozenServer freezes the server under an update (its
// connection open, nothing forwarded): the end of the operation's context
// ends the update at once, as a context error. The session watches a
// context without a deadline once rather than per operation, which sets
// the connection's deadline when the context ends; the cases are that
// context reused across operations, a context with a deadline after one
// that ended (pgx's own watch, on a connection whose deadline must have
// been cleared), a fresh context after an ended one, and the pool's next
// session after a session closed with an ended context.
func TestInterruptOnFrozenServer(t *testing.T) {
	t.Run("the run's context, reused", func(t *testing.T) {
		db, proxy := frozenDB(t)
		sess := frozenSession(t, db)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		require.NoError(t, sess.Insert(ctx, "usertable", "k1", frozenRow()))
		require.NoError(t, sess.Update(ctx, "usertable", "k1", frozenRow()))
		took, err := updateFrozen(t, sess, proxy, ctx, cancel)
		require.ErrorIs(t, err, context.Canceled)
		require.Less(t, took, 2*time.Second)
		require.ErrorIs(t, sess.Update(ctx, "usertable", "k1", frozenRow()), context.Canceled, "after the end: not started")
	})
	t.Run("a deadline after an ended context", func(t *testing.T) {
		db, proxy := frozenDB(t)
		sess := frozenSession(t, db)
		writeAndEnd(t, sess)
		ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
		defer cancel()
		took, err := updateFrozen(t, sess, proxy, ctx, func() {})
		require.ErrorIs(t, err, context.DeadlineExceeded, "ended by the deadline, not at once by the ended context's")
		require.Greater(t, took, 500*time.Millisecond)
		require.Less(t, took, 2*time.Second)
	})
	t.Run("a fresh context after an ended one", func(t *testing.T) {
		db, _ := frozenDB(t)
		sess := frozenSession(t, db)
		writeAndEnd(t, sess)
		fresh, cancel := context.WithCancel(context.Background())
		defer cancel()
		require.NoError(t, sess.Update(fresh, "usertable", "k1", frozenRow()), "the ended context's deadline was cleared")
		_, err := sess.Read(fresh, "usertable", "k1", nil, nil)
		require.NoError(t, err)
	})
	t.Run("the pool's next session", func(t *testing.T) {
		db, _ := frozenDB(t)
		sess := frozenSession(t, db)
		writeAndEnd(t, sess)
		require.NoError(t, sess.Close())
		next := frozenSession(t, db) // the same connection: the pool has one
		_, err := next.Read(context.Background(), "usertable", "k1", nil, nil)
		require.NoError(t, err, "the closed session's connection went back without its deadline")
	})
}
