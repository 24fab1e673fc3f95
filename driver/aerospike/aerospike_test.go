package aerospike_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/aerospike"
	"github.com/dbarena/dbarena/record"
)

// envAddr holds host:port of an Aerospike node with namespace "test" (the
// default configuration's) or the one in DBARENA_TEST_AEROSPIKE_NAMESPACE.
//
// Unlike the other drivers' suites these tests skip when it is unset even
// under CI=true: no Aerospike server can be installed on the CI machines
// (no package in a reachable registry, no container engine), so only the
// server-free tests run there.
const envAddr = "DBARENA_TEST_AEROSPIKE"

// liveProps returns the properties for the server in envAddr, or skips.
func liveProps(t *testing.T) map[string]string {
	t.Helper()
	addr := os.Getenv(envAddr)
	if addr == "" {
		t.Skipf("%s is not set: these tests need an Aerospike server (host:port); none can run on the CI machines", envAddr)
	}
	ns := os.Getenv(envAddr + "_NAMESPACE")
	if ns == "" {
		ns = "test"
	}
	return map[string]string{"aerospike.host": addr, "aerospike.namespace": ns}
}

func TestLiveBehaviour(t *testing.T) {
	ctx := context.Background()
	props := liveProps(t)
	db, err := aerospike.Open(ctx, driver.Params{Props: props, Workers: 2})
	require.NoError(t, err)
	defer db.Close()
	table := fmt.Sprintf("dbarena_live_%d", time.Now().UnixNano()%1_000_000)
	sm := db.(driver.SchemaManager)
	schema := driver.Schema{Table: table, Fields: []string{"field0", "field1"}}
	require.NoError(t, sm.CreateSchema(ctx, schema))
	defer func() { _ = sm.DropSchema(ctx, schema) }()
	s, err := db.Session(ctx, 0)
	require.NoError(t, err)
	defer s.Close()

	require.ErrorIs(t, s.Update(ctx, table, "missing", record.Record{{Name: "field0", Value: []byte("x")}}), driver.ErrNotFound,
		"update of a missing key does not create it")
	require.ErrorIs(t, s.Delete(ctx, table, "missing"), driver.ErrNotFound)
	_, err = s.Scan(ctx, table, "a", 10, nil, nil)
	require.ErrorIs(t, err, driver.ErrUnsupported)

	err = s.(driver.BatchInserter).InsertBatch(ctx, table, []string{"b1", "b2"}, []record.Record{
		{{Name: "field0", Value: []byte("1")}}, {{Name: "field0", Value: []byte("2")}}})
	require.NoError(t, err)
	err = s.(driver.BatchInserter).InsertBatch(ctx, table, []string{"b2", "b3"}, []record.Record{
		{{Name: "field0", Value: []byte("2")}}, {{Name: "field0", Value: []byte("3")}}})
	require.Equal(t, driver.ClassConflict, driver.Classify(err), "a batch with an existing key: %v", err)
	_, err = s.Read(ctx, table, "b3", nil, nil)
	require.NoError(t, err, "the other records of the batch are written")

	other, err := aerospike.Open(ctx, driver.Params{Props: map[string]string{
		"aerospike.host": props["aerospike.host"], "aerospike.namespace": "dbarena_no_such_ns",
	}, Workers: 1})
	require.NoError(t, err, "a missing namespace is found by the schema calls, not at open")
	defer other.Close()
	err = other.(driver.SchemaManager).CheckSchema(ctx, schema)
	require.ErrorContains(t, err, "dbarena_no_such_ns")
	require.ErrorContains(t, err, "aerospike.conf")
}
