package redis_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/redis"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/internal/testkit"
	"github.com/dbarena/dbarena/record"
)

const envAddr = "DBARENA_TEST_REDIS"

// checkedDB is the logical database of these tests' records, apart from
// the benchmark's (3) and the conformance suite's (1 and 4, both in
// driver/drivertest), which drops every indexed record of its database.
const checkedDB = "2"

func open(t *testing.T, props map[string]string) driver.DB {
	t.Helper()
	db, err := redis.Open(context.Background(), driver.Params{Props: props, Workers: 2})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestUpdateMissingIsNotFound(t *testing.T) {
	addr := testenv.Addr(t, envAddr)
	db := open(t, map[string]string{"redis.addr": addr, "redis.db": checkedDB})
	ctx := context.Background()
	sess, err := db.Session(ctx, 0)
	require.NoError(t, err)
	defer sess.Close()
	key := "dbarena-update-missing"
	_ = sess.Delete(ctx, "t", key) // left by an interrupted run
	err = sess.Update(ctx, "t", key, record.Record{{Name: "field0", Value: []byte("x")}})
	require.ErrorIs(t, err, driver.ErrNotFound)
	_, err = sess.Read(ctx, "t", key, nil, nil)
	require.ErrorIs(t, err, driver.ErrNotFound, "the failed update created nothing")
	require.ErrorIs(t, sess.Delete(ctx, "t", key), driver.ErrNotFound)
	_, err = sess.Read(ctx, "t", key, []string{"field0"}, nil)
	require.ErrorIs(t, err, driver.ErrNotFound, "HMGET of a missing record")
}

func TestCheckSchema(t *testing.T) {
	addr := testenv.Addr(t, envAddr)
	db := open(t, map[string]string{"redis.addr": addr, "redis.db": checkedDB})
	ctx := context.Background()
	sm := db.(driver.SchemaManager)
	s := driver.Schema{Table: "checked", Fields: []string{"field0", "field1"}}
	require.NoError(t, sm.DropSchema(ctx, s))
	err := sm.CheckSchema(ctx, s)
	require.ErrorContains(t, err, "checked", "nothing loaded")
	require.ErrorContains(t, err, "_indices")

	require.NoError(t, sm.CreateSchema(ctx, s))
	require.NoError(t, sm.CheckSchema(ctx, s))
	err = sm.CheckSchema(ctx, driver.Schema{Table: "chekced", Fields: s.Fields})
	require.ErrorContains(t, err, "chekced")
	require.ErrorContains(t, err, "checked", "the error lists the tables that exist")

	sess, err := db.Session(ctx, 0)
	require.NoError(t, err)
	defer sess.Close()
	require.NoError(t, sess.Insert(ctx, s.Table, "user1", record.Record{{Name: "field0", Value: []byte("a")}}))
	err = sm.CheckSchema(ctx, s)
	require.ErrorContains(t, err, "field1", "a record without a field is reported")
	require.NoError(t, sm.DropSchema(ctx, s))
	_, err = sess.Read(ctx, s.Table, "user1", nil, nil)
	require.ErrorIs(t, err, driver.ErrNotFound, "drop deletes the indexed records")
}

func TestServerDiesMidRun(t *testing.T) {
	addr := testenv.Addr(t, envAddr)
	proxy := testkit.NewProxy(t, addr)
	db := open(t, map[string]string{"redis.addr": proxy.Addr(), "redis.db": checkedDB, "redis.timeout": "1s"})
	ctx := context.Background()
	sess, err := db.Session(ctx, 0)
	require.NoError(t, err)
	defer sess.Close()
	_, err = sess.Read(ctx, "t", "dbarena-never-written", nil, nil)
	require.ErrorIs(t, err, driver.ErrNotFound)
	proxy.Cut()
	_, err = sess.Read(ctx, "t", "dbarena-never-written", nil, nil)
	require.Error(t, err)
	require.True(t, driver.Retryable(err), "a dead connection is retryable: %v (%s)", err, driver.Classify(err))
}

// TestServerHangs stalls a server with its connections open: an
// operation fails as TIMEOUT within redis.timeout instead of waiting for
// ever, and so do operations of concurrent workers sharing a connection.
func TestServerHangs(t *testing.T) {
	addr := testenv.Addr(t, envAddr)
	proxy := testkit.NewProxy(t, addr)
	db := open(t, map[string]string{"redis.addr": proxy.Addr(), "redis.db": checkedDB, "redis.timeout": "500ms", "redis.pool": "1"})
	ctx := context.Background()
	proxy.Stall()
	start := time.Now()
	errs := make(chan error, 4)
	for range cap(errs) {
		go func() {
			sess, err := db.Session(ctx, 0)
			if err == nil {
				_, err = sess.Read(ctx, "t", "dbarena-never-written", nil, nil)
			}
			errs <- err
		}()
	}
	for range cap(errs) {
		err := <-errs
		require.Error(t, err)
		require.Equal(t, driver.ClassTimeout, driver.Classify(err), "%v", err)
	}
	require.Less(t, time.Since(start), 5*time.Second, "a hung server fails operations near redis.timeout")
}

// TestErrorReplies reads a key of the wrong type: the server's error
// reply is a BAD_REQUEST, not a missing record or a dead connection.
func TestErrorReplies(t *testing.T) {
	addr := testenv.Addr(t, envAddr)
	db := open(t, map[string]string{"redis.addr": addr, "redis.db": checkedDB})
	ctx := context.Background()
	c := goredis.NewClient(&goredis.Options{Addr: addr, DB: 2})
	defer c.Close()
	require.NoError(t, c.Set(ctx, "dbarena-a-string", "x", 0).Err())
	sess, err := db.Session(ctx, 0)
	require.NoError(t, err)
	_, err = sess.Read(ctx, "t", "dbarena-a-string", nil, nil)
	require.Equal(t, driver.ClassBadRequest, driver.Classify(err), "%v", err)
	require.ErrorContains(t, err, "WRONGTYPE")
	err = sess.Insert(ctx, "t", "dbarena-a-string", record.Record{{Name: "field0", Value: []byte("x")}})
	require.Equal(t, driver.ClassBadRequest, driver.Classify(err), "an error inside MULTI/EXEC: %v", err)
}

// TestPoolConnections runs more workers than redis.pool: the server
// sees redis.pool connections of the driver, which pipelines the
// workers' commands onto them, and inserts (MULTI/EXEC) spread over
// them as reads do.
func TestPoolConnections(t *testing.T) {
	addr := testenv.Addr(t, envAddr)
	for _, pool := range []int{1, 4} {
		t.Run(fmt.Sprint("pool=", pool), func(t *testing.T) {
			const db = "6" // no other test connects to it
			d := open(t, map[string]string{"redis.addr": addr, "redis.db": db, "redis.pool": fmt.Sprint(pool)})
			ctx := context.Background()
			var wg sync.WaitGroup
			for w := range 32 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					sess, err := d.Session(ctx, w)
					assert.NoError(t, err)
					for i := range 100 {
						_, err = sess.Read(ctx, "t", "dbarena-never-written", nil, nil)
						assert.ErrorIs(t, err, driver.ErrNotFound)
						assert.NoError(t, sess.Insert(ctx, "t", fmt.Sprintf("pool-%d-%d", w, i), record.Record{{Name: "f", Value: []byte("v")}}))
					}
				}()
			}
			wg.Wait()
			c := goredis.NewClient(&goredis.Options{Addr: addr})
			defer c.Close()
			list, err := c.ClientList(ctx).Result()
			require.NoError(t, err)
			var busy int
			for _, line := range strings.Split(list, "\n") {
				if !strings.Contains(line, " db="+db+" ") {
					continue
				}
				if !strings.Contains(line, " cmd=ping") && !strings.Contains(line, " cmd=select") {
					busy++
				}
			}
			require.Equal(t, pool, strings.Count(list, " db="+db+" "), "connections on db %s:\n%s", db, list)
			require.Equal(t, pool, busy, "every connection carried operations:\n%s", list)
			require.NoError(t, c.Do(ctx, "SELECT", db).Err())
			require.NoError(t, c.FlushDB(ctx).Err())
		})
	}
}

// TestClusterFlagOnSingleNode asks for cluster mode from a server that is
// not a cluster: refused at open, naming the property.
func TestClusterFlagOnSingleNode(t *testing.T) {
	addr := testenv.Addr(t, envAddr)
	_, err := redis.Open(context.Background(), driver.Params{Props: map[string]string{"redis.addr": addr, "redis.cluster": "true"}, Workers: 1})
	require.ErrorContains(t, err, "redis.cluster=true")
	require.ErrorContains(t, err, "not a cluster")
}

func TestBadPassword(t *testing.T) {
	addr := testenv.Addr(t, envAddr)
	_, err := redis.Open(context.Background(), driver.Params{Props: map[string]string{
		"redis.addr": addr, "redis.user": "nobody_here", "redis.password": "wrong",
	}, Workers: 1})
	require.Error(t, err)
	t.Log(err)
	require.Contains(t, err.Error(), "redis.password")
}

func TestBadProperties(t *testing.T) {
	for prop, val := range map[string]string{
		"redis.addr": "localhost", "redis.cluster": "maybe", "redis.db": "-1", "redis.pool": "0",
		"redis.connect.timeout": "soon", "redis.timeout": "0", "redis.drop": "flushall", "redis.update": "upsert",
	} {
		t.Run(prop, func(t *testing.T) {
			_, err := redis.ParseConfig(map[string]string{prop: val}, 4)
			require.Error(t, err)
			require.Contains(t, err.Error(), prop)
		})
	}
	_, err := redis.ParseConfig(map[string]string{"redis.addr": "a:1,b:2"}, 4)
	require.ErrorContains(t, err, "redis.cluster", "several addresses need cluster mode")
	_, err = redis.ParseConfig(map[string]string{"redis.cluster": "true", "redis.db": "2"}, 4)
	require.ErrorContains(t, err, "redis.db")
}

// TestURL reads redis.url, the form cloud services hand out, and keeps
// its password out of every error.
func TestURL(t *testing.T) {
	c, err := redis.ParseConfig(map[string]string{"redis.url": "redis://:hunter22@db:6380/2"}, 4)
	require.NoError(t, err)
	require.Equal(t, []string{"db:6380"}, c.Addrs)
	require.Equal(t, "", c.Username)
	require.Equal(t, "hunter22", c.Password)
	require.Equal(t, 2, c.DB)
	require.Nil(t, c.TLS)

	c, err = redis.ParseConfig(map[string]string{"redis.url": "rediss://bench:hunter22@cache.example:6380"}, 4)
	require.NoError(t, err)
	require.Equal(t, "bench", c.Username)
	require.NotNil(t, c.TLS, "rediss is TLS")
	require.Equal(t, "cache.example", c.TLS.ServerName)

	c, err = redis.ParseConfig(map[string]string{"redis.url": "redis://:hunter22@n1:7000?addr=n2:7001", "redis.cluster": "true"}, 4)
	require.NoError(t, err)
	require.Equal(t, []string{"n1:7000", "n2:7001"}, c.Addrs)
	require.Equal(t, "hunter22", c.Password)

	c, err = redis.ParseConfig(map[string]string{"redis.url": "redis://db:6379", "redis.password": "hunter22"}, 4)
	require.NoError(t, err)
	require.Equal(t, "hunter22", c.Password, "a URL without a password leaves redis.password")

	for name, c := range map[string]struct {
		props map[string]string
		want  string
	}{
		"bad port":     {map[string]string{"redis.url": "redis://:hunter22@db:notaport"}, `redis.url="redis://:REDACTED@db:notaport"`},
		"bad scheme":   {map[string]string{"redis.url": "http://u:hunter22@db:6379"}, "invalid URL scheme"},
		"URL in addr":  {map[string]string{"redis.addr": "redis://:hunter22@db:6379"}, "a URL goes in redis.url"},
		"not an addr":  {map[string]string{"redis.addr": ":hunter22@db:6379"}, "is not host:port"},
		"two addrs":    {map[string]string{"redis.url": "redis://db:6379", "redis.addr": "db:6379"}, "redis.url and redis.addr: both give the address"},
		"two password": {map[string]string{"redis.url": "redis://:hunter22@db:6379", "redis.password": "hunter23"}, "redis.url and redis.password: both give the password"},
		"two db":       {map[string]string{"redis.url": "redis://db:6379/3", "redis.db": "2"}, "redis.url and redis.db: both give the database"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := redis.ParseConfig(c.props, 4)
			require.ErrorContains(t, err, c.want)
			require.NotContains(t, err.Error(), "hunter2")
		})
	}
}

func TestProperties(t *testing.T) {
	c, err := redis.ParseConfig(nil, 16)
	require.NoError(t, err)
	require.Equal(t, []string{redis.DefaultAddr}, c.Addrs)
	require.Equal(t, 16, c.Pool, "one connection per worker by default")
	c, err = redis.ParseConfig(nil, 3)
	require.NoError(t, err)
	require.Equal(t, 4, c.Pool, "rounded up to a power of two")
	c, err = redis.ParseConfig(nil, 1000)
	require.NoError(t, err)
	require.Equal(t, redis.MaxPool, c.Pool, "at most MaxPool")
	for _, bad := range []string{"12", "512"} {
		_, err = redis.ParseConfig(map[string]string{"redis.pool": bad}, 4)
		require.ErrorContains(t, err, "redis.pool="+bad+": want a power of two")
	}
	require.Equal(t, 5*time.Second, c.ConnectTimeout)
	require.Equal(t, redis.DropIndex, c.Drop)
	require.Equal(t, redis.UpdateChecked, c.Update)

	// YCSB's property names, with redis.timeout in milliseconds.
	c, err = redis.ParseConfig(map[string]string{"redis.host": "db1", "redis.port": "7000", "redis.timeout": "250"}, 4)
	require.NoError(t, err)
	require.Equal(t, []string{"db1:7000"}, c.Addrs)
	require.Equal(t, 250*time.Millisecond, c.Timeout)

	c, err = redis.ParseConfig(map[string]string{"redis.addr": "n1:7000, n2:7001", "redis.cluster": "true"}, 4)
	require.NoError(t, err)
	require.Equal(t, []string{"n1:7000", "n2:7001"}, c.Addrs)
}

// TestSumBalances: the ledger's snapshot sums every indexed record's
// balance and counts those under the floor; a balance that is not an
// integer is an error that names its record; past its cap of accounts
// it is refused as unsupported.
func TestSumBalances(t *testing.T) {
	addr := testenv.Addr(t, envAddr)
	db := open(t, map[string]string{"redis.addr": addr, "redis.db": checkedDB})
	ctx := context.Background()
	sm := db.(driver.SchemaManager)
	s := driver.Schema{Table: "ledger", Fields: []string{"field0"}}
	require.NoError(t, sm.DropSchema(ctx, s))
	require.NoError(t, sm.CreateSchema(ctx, s))
	t.Cleanup(func() { _ = sm.DropSchema(ctx, s) })
	sess, err := db.Session(ctx, 0)
	require.NoError(t, err)
	defer sess.Close()
	const n = 10000
	for i := range n {
		require.NoError(t, sess.Insert(ctx, s.Table, fmt.Sprintf("user%d", i), record.Record{{Name: "field0", Value: []byte("100")}}))
	}
	summer := db.(driver.LedgerSummer)
	start := time.Now()
	sum, err := summer.SumBalances(ctx, s.Table, "field0", 10)
	took := time.Since(start)
	require.NoError(t, err)
	require.Equal(t, driver.LedgerSum{Accounts: n, Total: n * 100}, sum)
	t.Logf("%d accounts summed in one script in %s", n, took)

	// The snapshot reads at most its cap of accounts: one more is
	// refused as unsupported, not taken.
	redis.SetSnapshotCap(db, n-1)
	_, err = summer.SumBalances(ctx, s.Table, "field0", 10)
	require.Equal(t, driver.ClassUnsupported, driver.Classify(err), "%v", err)
	require.ErrorContains(t, err, "the snapshot sums stop at 9999 accounts")
	redis.SetSnapshotCap(db, n)
	_, err = summer.SumBalances(ctx, s.Table, "field0", 10)
	require.NoError(t, err, "at the cap")

	require.NoError(t, sess.Update(ctx, s.Table, "user7", record.Record{{Name: "field0", Value: []byte("-5")}}))
	sum, err = summer.SumBalances(ctx, s.Table, "field0", 10)
	require.NoError(t, err)
	require.Equal(t, driver.LedgerSum{Accounts: n, Total: n*100 - 105, BelowFloor: 1}, sum)

	require.NoError(t, sess.Update(ctx, s.Table, "user8", record.Record{{Name: "field0", Value: []byte("1e3")}}))
	_, err = summer.SumBalances(ctx, s.Table, "field0", 10)
	require.ErrorContains(t, err, "the balance field0 of user8 is missing or not an integer")
}
