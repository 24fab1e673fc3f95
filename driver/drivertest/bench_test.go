package drivertest_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver/drivers"
)

// tableDriver is a driver from the table, as the pipeline reaches every
// driver: the benchmarks beside this file measure each one through the
// runner next to its library's or its database's own tool.
func tableDriver(tb testing.TB, name string) drivers.Info {
	d, err := drivers.Lookup(name)
	require.NoError(tb, err)
	return d
}
