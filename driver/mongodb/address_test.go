package mongodb

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
)

// TestAddressIsRead: the properties Address makes are the ones the
// driver reads.
func TestAddressIsRead(t *testing.T) {
	c, err := ParseConfig(driver.PropMap(Address(driver.Reach{Addrs: []string{"10.0.0.7:27018"}, Database: "bench"})), 1)
	require.NoError(t, err)
	require.Equal(t, []string{"10.0.0.7:27018"}, c.Hosts)
	require.Equal(t, "bench", c.Database)
}
