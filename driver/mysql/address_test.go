package mysql

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
)

// TestAddressIsRead: the properties Address makes are the ones the
// driver reads, login included.
func TestAddressIsRead(t *testing.T) {
	c, err := ParseConfig(driver.PropMap(Address(driver.Reach{Addrs: []string{"10.0.0.7:3307"}, User: "root", Password: "pw", Database: "bench"})), 1)
	require.NoError(t, err)
	require.Equal(t, "10.0.0.7:3307", c.DSN.Addr)
	require.Equal(t, "root", c.DSN.User)
	require.Equal(t, "pw", c.DSN.Passwd)
	require.Equal(t, "bench", c.Database)
}
