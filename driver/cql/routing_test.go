package cql

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strconv"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/record"
)

// TestClusterTokenAware checks that reads go to the node owning the key:
// with RF=1 exactly one node holds each key, and the host gocql sent the
// request to must be that node, found from the ring's tokens.
func TestClusterTokenAware(t *testing.T) {
	addr := testenv.Addr(t, "DBARENA_TEST_CASSANDRA_CLUSTER")
	ctx := context.Background()
	dbi, err := Open(ctx, driver.Params{Props: map[string]string{
		"cql.hosts": addr, "cql.keyspace": "dbarena_test_rf1", "cql.replication.factor": "1",
	}, Workers: 1})
	require.NoError(t, err)
	db := dbi.(*DB)
	defer db.Close()
	schema := driver.Schema{Table: "dbarena_route", Fields: []string{"field0"}}
	require.NoError(t, db.CreateSchema(ctx, schema))
	t.Cleanup(func() { _ = db.DropSchema(ctx, schema) })

	ring := readRing(t, db.session)
	require.Greater(t, len(ring.tokens), 3, "a ring of several nodes")
	sess := newSession(db)
	for i := 0; i < 40; i++ {
		key := "user" + strconv.Itoa(i*7919)
		require.NoError(t, sess.Insert(ctx, schema.Table, key, record.Record{{Name: "field0", Value: []byte("v")}}))
		var tok int64
		require.NoError(t, db.session.Query(fmt.Sprintf("SELECT token(y_id) FROM %s.%s WHERE y_id = ?", db.cfg.Keyspace, schema.Table), key).Scan(&tok))

		st := sess.lookup(opRead, schema.Table, nil, true)
		setKey(&st.args[0], key)
		iter := sess.run(ctx, st)
		host := iter.Host()
		require.NoError(t, iter.Close())
		require.NotNil(t, host)
		require.Equal(t, ring.ownerOf(tok), host.ConnectAddress().String(), "key %s (token %d)", key, tok)
	}
}

// ring maps each node's tokens to its address.
type ring struct {
	tokens []int64
	owner  map[int64]string
}

// ownerOf returns the node owning a token: the first token at or after it,
// wrapping around.
func (r ring) ownerOf(tok int64) string {
	i := sort.Search(len(r.tokens), func(i int) bool { return r.tokens[i] >= tok })
	if i == len(r.tokens) {
		i = 0
	}
	return r.owner[r.tokens[i]]
}

func readRing(t *testing.T, s *gocql.Session) ring {
	r := ring{owner: map[int64]string{}}
	seen := map[string]bool{}
	add := func(ip net.IP, toks []string) {
		if seen[ip.String()] {
			return
		}
		seen[ip.String()] = true
		for _, x := range toks {
			n, err := strconv.ParseInt(x, 10, 64)
			require.NoError(t, err)
			r.owner[n] = ip.String()
			r.tokens = append(r.tokens, n)
		}
	}
	// Unrouted queries go round robin, so a few rounds reach every node;
	// system.local answers for the node reached, system.peers for the rest.
	var ip net.IP
	var toks []string
	for round := 0; round < 6; round++ {
		iter := s.Query("SELECT peer, tokens FROM system.peers").Iter()
		for iter.Scan(&ip, &toks) {
			add(ip, toks)
		}
		require.NoError(t, iter.Close())
		require.NoError(t, s.Query("SELECT broadcast_address, tokens FROM system.local").Scan(&ip, &toks))
		add(ip, toks)
	}
	sort.Slice(r.tokens, func(i, j int) bool { return r.tokens[i] < r.tokens[j] })
	return r
}
