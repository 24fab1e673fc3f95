package cql_test

import (
	"context"
	"strings"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/cql"
	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/record"
)

// clusterProps replicates the test keyspace to all three nodes and reads
// and writes at QUORUM: two of three replicas acknowledge each write and
// answer each read, so every read overlaps the last acknowledged write.
func clusterProps(t testing.TB, extra map[string]string) map[string]string {
	addr := drivertest.Address(t, envCluster)
	p := map[string]string{
		"cql.hosts": addr, "cql.keyspace": "dbarena_test_rf3",
		"cql.replication.strategy": "SimpleStrategy", "cql.replication.factor": "3",
		"cql.consistency.read": "QUORUM", "cql.consistency.write": "QUORUM",
	}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

func TestClusterConformance(t *testing.T) {
	requireNodes(t, 3)
	drivertest.Run(t, drivertest.Options{
		Open: cql.Open, Prefix: cql.Prefix, Props: clusterProps(t, nil),
		ScanOrdered: false, StrictInsert: false, Records: 600,
	})
}

func TestClusterConsistencyAll(t *testing.T) {
	requireNodes(t, 3)
	ctx := context.Background()
	db := open(t, clusterProps(t, map[string]string{"cql.consistency.read": "ALL", "cql.consistency.write": "ALL"}))
	schema := driver.Schema{Table: "dbarena_all", Fields: []string{"field0", "field1"}}
	require.NoError(t, db.CreateSchema(ctx, schema))
	t.Cleanup(func() { _ = db.DropSchema(ctx, schema) })
	sess, err := db.Session(ctx, 0)
	require.NoError(t, err)
	// ALL needs every one of the three replicas: these succeed only when
	// the keyspace really has RF=3 and every node is up.
	for _, key := range []string{"a", "b", "c", "d", "e", "f"} {
		rec := record.Record{{Name: "field0", Value: []byte("x" + key)}, {Name: "field1", Value: []byte("y" + key)}}
		require.NoError(t, sess.Insert(ctx, schema.Table, key, rec))
		got, err := sess.Read(ctx, schema.Table, key, nil, nil)
		require.NoError(t, err)
		require.True(t, record.Equal(rec, got), "%v", got)
	}
}

// requireNodes checks that the cluster under test has n nodes, so that a
// one-node cluster cannot pass the RF=3 tests by accident.
func requireNodes(t *testing.T, n int) {
	t.Helper()
	hosts := strings.Split(drivertest.Address(t, envCluster), ",")
	cc := gocql.NewCluster(hosts...)
	s, err := cc.CreateSession()
	require.NoError(t, err)
	defer s.Close()
	var peer string
	peers := 0
	iter := s.Query("SELECT peer FROM system.peers").Iter()
	for iter.Scan(&peer) {
		peers++
	}
	require.NoError(t, iter.Close())
	require.Equal(t, n, peers+1, "nodes in the cluster")
}
