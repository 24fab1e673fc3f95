package mongodb_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/mongodb"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/internal/testkit"
	"github.com/dbarena/dbarena/record"
)

// envAddr holds a mongodb:// URL of a server (FerretDB in scripts/test);
// the tests choose the database themselves.
const envAddr = "DBARENA_TEST_MONGODB"

const testDatabase = "dbarena_test"

func testProps(t *testing.T, extra map[string]string) map[string]string {
	t.Helper()
	p := map[string]string{"mongodb.url": testenv.Addr(t, envAddr), "mongodb.database": testDatabase}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// tableName returns a collection name no other test run uses.
func tableName(prefix string) string {
	return fmt.Sprintf("%s%d", prefix, time.Now().UnixNano()%1_000_000_000)
}

// rawCollection returns the test collection through the official driver
// directly, to check what dbarena wrote and to write as YCSB does.
func rawCollection(t *testing.T, table string) *mongo.Collection {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(testenv.Addr(t, envAddr)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	coll := c.Database(testDatabase).Collection(table)
	t.Cleanup(func() { _ = coll.Drop(context.Background()) })
	return coll
}

// TestYCSBLayout checks both directions of compatibility with YCSB's
// binding: a record dbarena writes is {_id: string, field: binary}, and a
// document in that shape, as YCSB writes it, reads back.
func TestYCSBLayout(t *testing.T) {
	ctx := context.Background()
	table := tableName("ycsb_layout_")
	coll := rawCollection(t, table)
	db, err := mongodb.Open(ctx, driver.Params{Props: testProps(t, nil), Workers: 1})
	require.NoError(t, err)
	defer db.Close()
	s, err := db.Session(ctx, 0)
	require.NoError(t, err)
	defer s.Close()

	require.NoError(t, s.Insert(ctx, table, "user1", record.Record{{Name: "field0", Value: []byte("abc")}}))
	var got bson.Raw
	got, err = coll.FindOne(ctx, bson.D{{Key: "_id", Value: "user1"}}).Raw()
	require.NoError(t, err)
	id := got.Lookup("_id")
	require.Equal(t, bson.TypeString, id.Type, "_id is the key as a string")
	sub, data, ok := got.Lookup("field0").BinaryOK()
	require.True(t, ok, "field values are BSON binary: %s", got)
	require.Equal(t, byte(0), sub, "binary subtype 0, as the Java driver writes a byte[]")
	require.Equal(t, "abc", string(data))

	// YCSB's own document, and one with string values (other tools).
	_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "user2"},
		{Key: "field0", Value: bson.Binary{Subtype: 0, Data: []byte("from-ycsb")}},
		{Key: "field1", Value: "a string"}, {Key: "other", Value: int32(7)}})
	require.NoError(t, err)
	rec, err := s.Read(ctx, table, "user2", nil, nil)
	require.NoError(t, err)
	require.True(t, record.Equal(record.Record{{Name: "field0", Value: []byte("from-ycsb")}, {Name: "field1", Value: []byte("a string")}}, rec),
		"binary and string fields read, other types skipped: %v", rec)
}

func TestUpsertInserts(t *testing.T) {
	ctx := context.Background()
	table := tableName("ycsb_upsert_")
	rawCollection(t, table)
	db, err := mongodb.Open(ctx, driver.Params{Props: testProps(t, map[string]string{"mongodb.upsert": "true"}), Workers: 1})
	require.NoError(t, err)
	defer db.Close()
	s, err := db.Session(ctx, 0)
	require.NoError(t, err)
	defer s.Close()
	rec := record.Record{{Name: "field0", Value: []byte("one")}}
	require.NoError(t, s.Insert(ctx, table, "k", rec))
	rec[0].Value = []byte("two")
	require.NoError(t, s.Insert(ctx, table, "k", rec), "an upsert overwrites an existing key")
	bi := s.(driver.BatchInserter)
	require.NoError(t, bi.InsertBatch(ctx, table, []string{"k", "k2"}, []record.Record{rec, rec}))
	got, err := s.Read(ctx, table, "k2", nil, nil)
	require.NoError(t, err)
	require.Equal(t, "two", string(got[0].Value))
}

func TestBatchDuplicateIsConflict(t *testing.T) {
	ctx := context.Background()
	table := tableName("ycsb_dup_")
	rawCollection(t, table)
	db, err := mongodb.Open(ctx, driver.Params{Props: testProps(t, nil), Workers: 1})
	require.NoError(t, err)
	defer db.Close()
	s, err := db.Session(ctx, 0)
	require.NoError(t, err)
	defer s.Close()
	rec := record.Record{{Name: "field0", Value: []byte("v")}}
	require.NoError(t, s.Insert(ctx, table, "b1", rec))
	err = s.(driver.BatchInserter).InsertBatch(ctx, table, []string{"b0", "b1", "b2"}, []record.Record{rec, rec, rec})
	require.Equal(t, driver.ClassConflict, driver.Classify(err), "%v", err)
	// Unordered: the documents around the duplicate were inserted.
	for _, k := range []string{"b0", "b2"} {
		_, err := s.Read(ctx, table, k, nil, nil)
		require.NoError(t, err, k)
	}
}

func TestCheckSchemaFields(t *testing.T) {
	ctx := context.Background()
	table := tableName("ycsb_fields_")
	rawCollection(t, table)
	db, err := mongodb.Open(ctx, driver.Params{Props: testProps(t, nil), Workers: 1})
	require.NoError(t, err)
	defer db.Close()
	sm := db.(driver.SchemaManager)
	schema := driver.Schema{Table: table, Fields: []string{"field0", "field1"}}
	require.NoError(t, sm.CreateSchema(ctx, schema))
	require.NoError(t, sm.CheckSchema(ctx, schema), "an empty collection passes")
	s, err := db.Session(ctx, 0)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Insert(ctx, table, "k", record.Record{{Name: "field0", Value: []byte("v")}}))
	err = sm.CheckSchema(ctx, schema)
	require.ErrorContains(t, err, "field1", "a document without a workload field is reported")
}

// TestServerGone cuts the connection mid-run: operations then fail as
// SERVICE_UNAVAILABLE within the connect timeout instead of hanging.
func TestServerGone(t *testing.T) {
	ctx := context.Background()
	url := testenv.Addr(t, envAddr)
	host := strings.TrimSuffix(strings.TrimPrefix(url, "mongodb://"), "/")
	if i := strings.IndexAny(host, "/?"); i >= 0 {
		host = host[:i]
	}
	proxy := testkit.NewProxy(t, host)
	props := testProps(t, map[string]string{"mongodb.url": "mongodb://" + proxy.Addr() + "/", "mongodb.connect.timeout": "1s"})
	db, err := mongodb.Open(ctx, driver.Params{Props: props, Workers: 1})
	require.NoError(t, err)
	defer db.Close()
	s, err := db.Session(ctx, 0)
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Read(ctx, "ycsb_gone", "nothing", nil, nil)
	require.ErrorIs(t, err, driver.ErrNotFound)
	proxy.Cut()
	start := time.Now()
	var last error
	for i := 0; i < 3; i++ {
		_, last = s.Read(ctx, "ycsb_gone", "nothing", nil, nil)
	}
	require.Error(t, last)
	require.Contains(t, []driver.Class{driver.ClassUnavailable, driver.ClassTimeout}, driver.Classify(last), "%v", last)
	require.Less(t, time.Since(start), 10*time.Second)
}

func TestBadProperties(t *testing.T) {
	for prop, val := range map[string]string{
		"mongodb.url":             "postgres://localhost/ycsb",
		"mongodb.writeconcern":    "most",
		"mongodb.readconcern":     "strong",
		"mongodb.readpreference":  "closest",
		"mongodb.pool":            "0",
		"mongodb.connect.timeout": "soon",
		"mongodb.timeout":         "-1s",
		"mongodb.upsert":          "maybe",
		"mongodb.journal":         "yes please",
	} {
		_, err := mongodb.ParseConfig(map[string]string{prop: val}, 4)
		require.Error(t, err, prop)
		require.Contains(t, err.Error(), prop)
	}
	_, err := mongodb.ParseConfig(map[string]string{"mongodb.url": "mongodb://h:notaport/db"}, 4)
	require.ErrorContains(t, err, "mongodb.url")
}

// TestConnectKeepsItsPromise opens against a refused port, an address
// nothing answers, and a listener that accepts and then says nothing
// (a frozen server): each fails as unreachable "within" the connect
// timeout, and within it (plus a margin for the process), not twice it.
func TestConnectKeepsItsPromise(t *testing.T) {
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer silent.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				_ = c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	refused, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	refusedAddr := refused.Addr().String()
	require.NoError(t, refused.Close())
	for name, addr := range map[string]string{"refused": refusedAddr, "silent": silent.Addr().String(), "unroutable": "10.255.255.1:27017"} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, err := mongodb.Open(context.Background(), driver.Params{Workers: 1,
				Props: map[string]string{"mongodb.url": "mongodb://" + addr + "/ycsb", "mongodb.connect.timeout": "2s"}})
			took := time.Since(start)
			require.Error(t, err)
			require.Equal(t, driver.ClassUnavailable, driver.Classify(err), "%v", err)
			require.Contains(t, err.Error(), "within 2s")
			require.Less(t, took, 3*time.Second, "the promise is the connect timeout: %v", err)
			t.Logf("%s: failed after %v", name, took.Round(time.Millisecond))
		})
	}
}
