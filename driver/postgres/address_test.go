package postgres_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/postgres"
)

// TestAddressIsRead: the properties Address makes are the ones the
// driver reads: the URL with the login at the first node, every node
// to spread the workers over.
func TestAddressIsRead(t *testing.T) {
	c, err := postgres.ParseConfig(driver.PropMap(postgres.Address(driver.Reach{Addrs: []string{"a:26257", "b:26257"}, User: "root", Password: "pw", Database: "defaultdb"})), 1)
	require.NoError(t, err)
	require.Equal(t, "postgres://root:pw@a:26257/defaultdb?sslmode=disable", c.URL)
	require.Equal(t, []string{"a:26257", "b:26257"}, c.Hosts)
}
