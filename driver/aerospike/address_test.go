package aerospike

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
)

// TestAddressIsRead: the properties Address makes are the ones the
// driver reads (a deployment once wrote aerospike.hosts, which it
// ignored for its default host).
func TestAddressIsRead(t *testing.T) {
	c, err := ParseConfig(driver.PropMap(Address(driver.Reach{Addrs: []string{"10.0.0.7:3100"}, Database: "bench"})), 1)
	require.NoError(t, err)
	require.Equal(t, []string{"10.0.0.7:3100"}, c.Hosts)
	require.Equal(t, "bench", c.Namespace)
}
