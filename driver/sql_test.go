package driver_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
)

// TestPlaceholders: ? becomes $n in PostgreSQL's dialect, except inside
// a quoted string; MySQL's keeps ?.
func TestPlaceholders(t *testing.T) {
	q := "SELECT a FROM t WHERE b = ? AND c = '?' AND d IN (?, ?)"
	require.Equal(t, "SELECT a FROM t WHERE b = $1 AND c = '?' AND d IN ($2, $3)", driver.DialectPostgres.Placeholders(q))
	require.Equal(t, q, driver.DialectMySQL.Placeholders(q))
	require.Equal(t, "SELECT 1", driver.DialectPostgres.Placeholders("SELECT 1"))
}
