package trial

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/runner"
)

// TestRunRecordsTheReadBack: a load whose settings ask for verify reads
// every record back once it ends; one that does not, or a run, gets no
// report; the memory driver counts nothing of its own.
func TestRunRecordsTheReadBack(t *testing.T) {
	ctx := context.Background()
	for _, verify := range []string{"true", "false"} {
		pl, err := Parse("memory", props("recordcount", "50", "verify", verify, "threadcount", "2"), runner.Load, nil)
		require.NoError(t, err)
		tr, err := pl.Open(ctx, nil)
		require.NoError(t, err)
		require.NoError(t, tr.Ready(ctx, true, nil))
		out, err := tr.Run(ctx)
		require.NoError(t, err)
		require.Equal(t, int64(50), out.Result.Measured.Operations)
		require.NoError(t, out.VerifyErr)
		if verify == "true" {
			require.NotNil(t, out.Verify, "the read-back ran")
			require.Equal(t, int64(50), out.Verify.Records)
			require.False(t, out.Verify.Failed())
		} else {
			require.Nil(t, out.Verify, "no read-back asked for")
		}
		require.Empty(t, out.Counters)
		tr.Close()
	}
}
