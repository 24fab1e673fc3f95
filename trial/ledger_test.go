package trial

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
)

// failingSummer fails every snapshot with err: a deployment that
// cannot take one, or a server that errs.
type failingSummer struct {
	mu    sync.Mutex
	err   error
	calls int
}

func (f *failingSummer) SumBalances(context.Context, string, string, int64) (driver.LedgerSum, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return driver.LedgerSum{}, f.err
}

// TestLedgerSamplerUnsupported: a deployment that cannot take a
// snapshot (a Redis Cluster, a DynamoDB ledger of over 100 accounts) is
// said once as not judged and asked no more; a snapshot that errs is
// counted as failed each time, and asked again.
func TestLedgerSamplerUnsupported(t *testing.T) {
	sample := func(err error) (calls int, failed int64, notJudged string) {
		f := &failingSummer{err: err}
		l := &ledgerSampler{db: f, accounts: 10, expected: 1000, every: 5 * time.Millisecond, start: time.Now()}
		var ctx context.Context
		ctx, l.cancel = context.WithCancel(context.Background())
		l.done.Add(1)
		go l.run(ctx)
		time.Sleep(60 * time.Millisecond)
		rec := l.stop()
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.calls, rec.Failed, rec.NotJudged
	}
	calls, failed, not := sample(driver.Errorf(driver.ClassUnsupported, "one transaction reads at most 100 items"))
	require.Equal(t, 1, calls)
	require.Zero(t, failed)
	require.Contains(t, not, "at most 100 items")

	calls, failed, not = sample(errors.New("connection reset"))
	require.Greater(t, calls, 1)
	// The last call may have been cut short by the stop: not counted.
	require.GreaterOrEqual(t, failed, int64(calls-1))
	require.Empty(t, not)
}
