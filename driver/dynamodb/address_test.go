package dynamodb

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
)

// TestAddressIsRead: the properties Address makes are the ones the
// driver reads.
func TestAddressIsRead(t *testing.T) {
	c, err := ParseConfig(driver.PropMap(Address(driver.Reach{Addrs: []string{"10.0.0.7:8000"}})), 1)
	require.NoError(t, err)
	require.Equal(t, "http://10.0.0.7:8000", c.Endpoint)
	require.Equal(t, "us-east-1", c.Region)
	require.Equal(t, "dbarena", c.AccessKey)
}
