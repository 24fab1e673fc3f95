package trial

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/runner"
)

// TestChecksAreBounded: a check after a phase that does not end (a
// database that stopped answering) gives up at audit.timeout and says
// so; one interrupted says that instead; one that ends in time is
// untouched. Waiting for workers a frozen database left in a
// transaction is bounded the same way.
func TestChecksAreBounded(t *testing.T) {
	tr := &Trial{Plan: &Plan{Settings: Settings{AuditTimeout: 50 * time.Millisecond}}}
	hang := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	err := tr.bounded(context.Background(), "TPC-C consistency check", hang)
	require.EqualError(t, err, "TPC-C consistency check: not finished within audit.timeout=50ms: the database did not answer in time, and nothing is judged (a larger database may need more)")

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	err = tr.bounded(ctx, "ledger audit", hang)
	require.ErrorContains(t, err, "ledger audit: interrupted before it ended")

	mine := errors.New("condition 3 could not be read")
	require.Equal(t, mine, tr.bounded(context.Background(), "x", func(context.Context) error { return mine }))
	require.NoError(t, tr.bounded(context.Background(), "x", func(context.Context) error { return nil }))
	require.Equal(t, DefaultAuditTimeout, (&Trial{Plan: &Plan{}}).auditTimeout(), "settings built without parsing get the default")

	stuck := make(chan struct{})
	res := &runner.Result{LeftBehind: 2, Settled: stuck}
	require.ErrorContains(t, tr.settle(context.Background(), res), "not finished within audit.timeout=50ms")
	close(stuck)
	require.NoError(t, tr.settle(context.Background(), res), "the workers returned: the audit may read")
	require.ErrorContains(t, tr.settle(context.Background(), &runner.Result{LeftBehind: 1}),
		"1 workers were still in a transaction when the run ended")
}
