package cql_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/cql"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/internal/testkit"
	"github.com/dbarena/dbarena/record"
)

// Environment variables scripts/servers sets: one node, and a three-node
// cluster as host:port,host:port,host:port.
const (
	envNode    = "DBARENA_TEST_CASSANDRA"
	envCluster = "DBARENA_TEST_CASSANDRA_CLUSTER"
)

// testKeyspace keeps the tests' tables apart from a user's ycsb keyspace.
const testKeyspace = "dbarena_test"

func nodeProps(t testing.TB, extra map[string]string) map[string]string {
	addr := testenv.Addr(t, envNode)
	p := map[string]string{"cql.hosts": addr, "cql.keyspace": testKeyspace}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

func open(t *testing.T, props map[string]string) *cql.DB {
	t.Helper()
	db, err := cql.Open(context.Background(), driver.Params{Props: props, Workers: 4})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db.(*cql.DB)
}

func TestLWTSemantics(t *testing.T) {
	ctx := context.Background()
	db := open(t, nodeProps(t, map[string]string{"cql.lwt": "true"}))
	schema := driver.Schema{Table: "dbarena_lwt", Fields: []string{"field0", "field1"}}
	require.NoError(t, db.CreateSchema(ctx, schema))
	t.Cleanup(func() { _ = db.DropSchema(ctx, schema) })
	sess, err := db.Session(ctx, 0)
	require.NoError(t, err)
	rec := record.Record{{Name: "field0", Value: []byte("a")}, {Name: "field1", Value: []byte("b")}}

	err = sess.Update(ctx, schema.Table, "missing", rec[:1])
	require.ErrorIs(t, err, driver.ErrNotFound, "UPDATE IF EXISTS of a missing key")
	err = sess.Delete(ctx, schema.Table, "missing")
	require.ErrorIs(t, err, driver.ErrNotFound, "DELETE IF EXISTS of a missing key")
	require.NoError(t, sess.Insert(ctx, schema.Table, "k", rec))
	err = sess.Insert(ctx, schema.Table, "k", rec)
	require.Equal(t, driver.ClassConflict, driver.Classify(err), "INSERT IF NOT EXISTS of an existing key: %v", err)
	require.NoError(t, sess.Update(ctx, schema.Table, "k", record.Record{{Name: "field1", Value: []byte("c")}}))
	got, err := sess.Read(ctx, schema.Table, "k", nil, nil)
	require.NoError(t, err)
	require.True(t, record.Equal(record.Record{{Name: "field0", Value: []byte("a")}, {Name: "field1", Value: []byte("c")}}, got), "%v", got)
	require.NoError(t, sess.Delete(ctx, schema.Table, "k"))

	var notApplied float64
	for _, c := range db.Counters() {
		if c.Name == "cql.lwt.not_applied" {
			notApplied = c.Value
		}
	}
	require.EqualValues(t, 3, notApplied)
}

func TestUpsertAndEmptyValues(t *testing.T) {
	ctx := context.Background()
	db := open(t, nodeProps(t, nil))
	schema := driver.Schema{Table: "dbarena_upsert", Fields: []string{"field0", "field1"}}
	require.NoError(t, db.CreateSchema(ctx, schema))
	t.Cleanup(func() { _ = db.DropSchema(ctx, schema) })
	sess, err := db.Session(ctx, 0)
	require.NoError(t, err)

	// Without LWT an UPDATE of a missing key creates the row with the
	// fields given; the others are absent, not empty.
	require.NoError(t, sess.Update(ctx, schema.Table, "u", record.Record{{Name: "field1", Value: []byte("x")}}))
	got, err := sess.Read(ctx, schema.Table, "u", nil, nil)
	require.NoError(t, err)
	require.True(t, record.Equal(record.Record{{Name: "field1", Value: []byte("x")}}, got), "%v", got)

	// An empty value is stored as empty, not NULL, and every byte of
	// YCSB's value alphabet round-trips.
	var all []byte
	for c := byte(' '); c <= '~'; c++ {
		all = append(all, c)
	}
	rec := record.Record{{Name: "field0", Value: []byte{}}, {Name: "field1", Value: all}}
	require.NoError(t, sess.Insert(ctx, schema.Table, "e", rec))
	got, err = sess.Read(ctx, schema.Table, "e", nil, got)
	require.NoError(t, err)
	require.True(t, record.Equal(rec, got), "%q", got)

	// Deleting a missing key is a blind tombstone, not an error.
	require.NoError(t, sess.Delete(ctx, schema.Table, "never-there"))
}

func TestCheckSchema(t *testing.T) {
	ctx := context.Background()
	db := open(t, nodeProps(t, nil))
	schema := driver.Schema{Table: "dbarena_check", Fields: []string{"field0", "field1"}}
	require.NoError(t, db.DropSchema(ctx, schema))
	err := db.CheckSchema(ctx, schema)
	require.ErrorContains(t, err, "dbarena_check", "a missing table is named")
	require.NoError(t, db.CreateSchema(ctx, schema))
	t.Cleanup(func() { _ = db.DropSchema(ctx, schema) })
	require.NoError(t, db.CheckSchema(ctx, schema))
	err = db.CheckSchema(ctx, driver.Schema{Table: schema.Table, Fields: []string{"field0", "field1", "field2"}})
	require.ErrorContains(t, err, "field2", "a missing column is named")

	// A keyspace that does not exist is named too, and dropping a table
	// in it is not an error.
	other := open(t, nodeProps(t, map[string]string{"cql.keyspace": "dbarena_no_such_keyspace"}))
	err = other.CheckSchema(ctx, schema)
	require.ErrorContains(t, err, "dbarena_no_such_keyspace")
	require.ErrorContains(t, err, "dbarena_check")
	require.NoError(t, other.DropSchema(ctx, schema))
}

func TestServerGoesAway(t *testing.T) {
	// Through a proxy that is cut mid-run: operations fail as
	// SERVICE_UNAVAILABLE (or TIMEOUT), promptly, and the error says so.
	addr := testenv.Addr(t, envNode)
	proxy := testkit.NewProxy(t, addr)
	ctx := context.Background()
	db := open(t, map[string]string{"cql.hosts": proxy.Addr(), "cql.keyspace": testKeyspace, "cql.timeout": "2s"})
	schema := driver.Schema{Table: "dbarena_gone", Fields: []string{"field0"}}
	require.NoError(t, db.CreateSchema(ctx, schema))
	t.Cleanup(func() { _ = db.DropSchema(ctx, schema) })
	sess, err := db.Session(ctx, 0)
	require.NoError(t, err)
	require.NoError(t, sess.Insert(ctx, schema.Table, "k", record.Record{{Name: "field0", Value: []byte("v")}}))
	proxy.Cut()
	start := time.Now()
	_, err = sess.Read(ctx, schema.Table, "k", nil, nil)
	require.Error(t, err)
	t.Log(err)
	class := driver.Classify(err)
	require.Contains(t, []driver.Class{driver.ClassUnavailable, driver.ClassTimeout}, class, "%v", err)
	require.Less(t, time.Since(start), 5*time.Second)
}

func TestBadProperties(t *testing.T) {
	for prop, val := range map[string]string{
		"cql.consistency.read":     "MOST",
		"cql.consistency.write":    "SERIAL",
		"cql.serial.consistency":   "QUORUM",
		"cql.replication.strategy": "Everywhere",
		"cql.replication.factor":   "0",
		"cql.replication.dcs":      "dc1",
		"cql.connections":          "0",
		"cql.connect.timeout":      "soon",
		"cql.timeout":              "-1s",
		"cql.hosts":                "host:notaport",
		"cql.keyspace":             "my-keyspace",
		"cql.lwt":                  "maybe",
		"cql.compression":          "zstd",
		"cql.load":                 "logged",
		"cql.load.batch.bytes":     "0",
	} {
		_, err := cql.ParseConfig(map[string]string{prop: val})
		require.Error(t, err, prop)
		require.Contains(t, err.Error(), prop)
	}
	_, err := cql.ParseConfig(map[string]string{"cql.consistency.read": "MOST"})
	require.ErrorContains(t, err, "LOCAL_QUORUM", "the error lists the choices")
}

func TestBadConsistencyAtOpen(t *testing.T) {
	_, err := cql.Open(context.Background(), driver.Params{Props: map[string]string{"cql.consistency.read": "FEW"}, Workers: 1})
	require.ErrorContains(t, err, "cql.consistency.read")
	require.ErrorContains(t, err, "QUORUM")
}

func TestConfigDefaults(t *testing.T) {
	c, err := cql.ParseConfig(map[string]string{})
	require.NoError(t, err)
	require.Equal(t, []string{"127.0.0.1:9042"}, c.Hosts)
	require.Equal(t, "ycsb", c.Keyspace)
	require.Equal(t, "ONE", c.Read.String())
	require.Equal(t, "ONE", c.Write.String())
	require.Equal(t, "SERIAL", c.Serial.String())
	require.Equal(t, 1, c.Connections, "one multiplexed connection per host")
	require.Equal(t, 5*time.Second, c.ConnectTimeout)
	require.False(t, c.LWT)
	require.Equal(t, "unlogged", c.Load)
	require.Equal(t, 4096, c.BatchBytes)

	c, err = cql.ParseConfig(map[string]string{
		"cql.hosts": "db1, db2:19042,[::1]", "cql.port": "9142", "cql.consistency.read": "local_quorum",
		"cql.replication.strategy": "NetworkTopologyStrategy", "cql.replication.dcs": "dc1:3, dc2:2",
	})
	require.NoError(t, err)
	require.Equal(t, []string{"db1:9142", "db2:19042", "[::1]:9142"}, c.Hosts)
	require.Equal(t, "LOCAL_QUORUM", c.Read.String())
	require.Equal(t, []cql.DCFactor{{DC: "dc1", Factor: 3}, {DC: "dc2", Factor: 2}}, c.DCs)
	require.Nil(t, c.TLS, "plain unless asked")

	// Amazon Keyspaces: TLS on 9142 with the system's authorities.
	c, err = cql.ParseConfig(map[string]string{"cql.hosts": "cassandra.us-east-1.amazonaws.com", "cql.port": "9142", "cql.tls": "true"})
	require.NoError(t, err)
	require.NotNil(t, c.TLS)
	require.False(t, c.TLS.InsecureSkipVerify)
	_, err = cql.ParseConfig(map[string]string{"cql.tls.ca": "/no/such.pem"})
	require.ErrorContains(t, err, "cql.tls.ca: open /no/such.pem")
}

func TestYCSBProperties(t *testing.T) {
	c, err := cql.ParseConfig(map[string]string{
		"hosts": "10.0.0.1,10.0.0.2", "port": "9043", "cassandra.keyspace": "bench",
		"cassandra.readconsistencylevel": "QUORUM", "cassandra.writeconsistencylevel": "ALL",
		"cassandra.username": "u", "cassandra.password": "p", "cassandra.maxconnections": "3",
		"cassandra.connecttimeoutmillis": "1500", "cassandra.readtimeoutmillis": "3000", "cassandra.tracing": "true",
	})
	require.NoError(t, err)
	require.Equal(t, []string{"10.0.0.1:9043", "10.0.0.2:9043"}, c.Hosts)
	require.Equal(t, "bench", c.Keyspace)
	require.Equal(t, "QUORUM", c.Read.String())
	require.Equal(t, "ALL", c.Write.String())
	require.Equal(t, "u", c.Username)
	require.Equal(t, 3, c.Connections)
	require.Equal(t, 1500*time.Millisecond, c.ConnectTimeout)
	require.Equal(t, 3*time.Second, c.Timeout)
	require.True(t, c.Tracing)

	_, err = cql.ParseConfig(map[string]string{"cassandra.readconsistencylevel": "MOST"})
	require.ErrorContains(t, err, "cql.consistency.read")
	require.True(t, strings.Contains(err.Error(), "YCSB"), err.Error())
}
