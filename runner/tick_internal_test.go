package runner

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestALateTickEndsAtTheTimeLimit: a tick the machine ran after the time
// limit ends at the limit, so that the window closes there (CI measured
// a 5 s run as 5.003 s when its last tick ran 3 ms late); before the
// limit, or with none, a tick ends when it ran.
func TestALateTickEndsAtTheTimeLimit(t *testing.T) {
	s := &run{}
	require.Equal(t, int64(5_003_000_000), s.tickEnd(5_003_000_000, 4_000_000_000), "no limit: the clock")
	s.deadline.Store(5_000_000_000)
	require.Equal(t, int64(4_999_000_000), s.tickEnd(4_999_000_000, 4_000_000_000), "before the limit: the clock")
	require.Equal(t, int64(5_000_000_000), s.tickEnd(5_000_000_000, 4_000_000_000), "at the limit")
	require.Equal(t, int64(5_000_000_000), s.tickEnd(5_003_000_000, 4_000_000_000), "late: the limit")
	require.Equal(t, int64(5_001_000_000), s.tickEnd(5_003_000_000, 5_001_000_000), "never before the interval before")
}
