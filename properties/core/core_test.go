package core_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/properties/core"
)

// TestKnownIsAList: every name once, none empty.
func TestKnownIsAList(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range core.Known() {
		require.NotEmpty(t, k)
		require.False(t, seen[k], "%s listed twice", k)
		seen[k] = true
	}
	require.True(t, seen[core.ThreadCount] && seen[core.RecordCount] && seen[core.WarmupTime])
}
