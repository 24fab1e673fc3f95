package cql_test

import (
	"context"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/record"
)

// clusterProps replicates the test keyspace to all three nodes and reads
// and writes at QUORUM, as the conformance suite's cluster run does
// (driver/drivertest).
func clusterProps(t testing.TB, extra map[string]string) map[string]string {
	addr := testenv.Addr(t, envCluster)
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
	hosts := strings.Split(testenv.Addr(t, envCluster), ",")
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

// TestClusterWithoutDiscovery opens the three-node cluster through one
// node with cql.discovery=false, as through a kubectl port-forward: the
// session must work at QUORUM and never connect to the other two nodes,
// which it does with discovery on.
func TestClusterWithoutDiscovery(t *testing.T) {
	requireNodes(t, 3)
	ctx := context.Background()
	hosts := strings.Split(testenv.Addr(t, envCluster), ",")
	others := map[string]bool{}
	for _, h := range hosts[1:] {
		others[hostOnly(h)] = true
	}
	use := func(discovery string) int {
		db := open(t, clusterProps(t, map[string]string{"cql.hosts": hosts[0], "cql.discovery": discovery}))
		schema := driver.Schema{Table: "dbarena_nodisc", Fields: []string{"field0"}}
		require.NoError(t, db.CreateSchema(ctx, schema))
		sess, err := db.Session(ctx, 0)
		require.NoError(t, err)
		for _, key := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
			rec := record.Record{{Name: "field0", Value: []byte("x" + key)}}
			require.NoError(t, sess.Insert(ctx, schema.Table, key, rec))
			_, err := sess.Read(ctx, schema.Table, key, nil, nil)
			require.NoError(t, err)
		}
		n := connectionsTo(t, others)
		require.NoError(t, db.DropSchema(ctx, schema))
		require.NoError(t, sess.Close())
		require.NoError(t, db.Close())
		return n
	}
	require.Zero(t, use("false"), "connections to the nodes not given as contact points")
	require.Positive(t, use("true"), "with discovery the driver reaches the other nodes (else the check above proves nothing)")
}

// hostOnly is the address part of host[:port].
func hostOnly(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		return host
	}
	return h
}

// connectionsTo counts this process's established TCP connections to
// the given IPv4 addresses, from /proc: the sockets among its open files.
func connectionsTo(t *testing.T, addrs map[string]bool) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	mine := map[string]bool{}
	for _, fd := range fds {
		if l, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.HasPrefix(l, "socket:[") {
			mine[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	b, err := os.ReadFile("/proc/self/net/tcp")
	require.NoError(t, err)
	n := 0
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 10 || f[3] != "01" || !mine[f[9]] { // 01: ESTABLISHED
			continue
		}
		// rem_address is the IPv4 address in little-endian hex, then the port.
		ipHex, _, _ := strings.Cut(f[2], ":")
		v, err := strconv.ParseUint(ipHex, 16, 32)
		require.NoError(t, err)
		ip := net.IPv4(byte(v), byte(v>>8), byte(v>>16), byte(v>>24)).String()
		if addrs[ip] {
			n++
		}
	}
	return n
}
