package redis

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
)

// TestAddressIsRead: the properties Address makes are the ones the
// driver reads, password included.
func TestAddressIsRead(t *testing.T) {
	c, err := ParseConfig(driver.PropMap(Address(driver.Reach{Addrs: []string{"10.0.0.7:6380", "10.0.0.8:6380"}, Password: "pw"})), 1)
	require.NoError(t, err)
	require.Equal(t, []string{"10.0.0.7:6380"}, c.Addrs)
	require.Equal(t, "pw", c.Password)
}
