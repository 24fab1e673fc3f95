package cql_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/cql"
)

// TestAddressIsRead: the properties Address makes are the ones the
// driver reads: contact points, one port when they share it, three
// replicas from three nodes, no discovery from private addresses.
func TestAddressIsRead(t *testing.T) {
	parse := func(r driver.Reach) cql.Config {
		c, err := cql.ParseConfig(driver.PropMap(cql.Address(r)))
		require.NoError(t, err)
		return c
	}
	c := parse(driver.Reach{Addrs: []string{"a:9100", "b:9100", "c:9100"}, Nodes: 3, SamePort: true, Private: true})
	require.Equal(t, []string{"a:9100", "b:9100", "c:9100"}, c.Hosts)
	require.Equal(t, 9100, c.Port)
	require.Equal(t, 3, c.Factor)
	require.False(t, c.Discovery)
	c = parse(driver.Reach{Addrs: []string{"svc:9042"}, Nodes: 3, SamePort: true})
	require.Equal(t, 3, c.Factor, "a Service's one name for three nodes")
	require.True(t, c.Discovery)
	c = parse(driver.Reach{Addrs: []string{"127.0.0.1:40001"}, Nodes: 1})
	require.Equal(t, []string{"127.0.0.1:40001"}, c.Hosts)
	require.Equal(t, 1, c.Factor)
}
