package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/record"
	"github.com/dbarena/dbarena/runner"
)

// TestWarmupUntilSteady: a warm-up until steady ends once its last
// intervals are steady, long before its maximum, and the measured phase
// keeps its length.
func TestWarmupUntilSteady(t *testing.T) {
	db, err := openBasic(basicParams())
	require.NoError(t, err)
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	start := time.Now()
	res, err := runner.Run(context.Background(), runner.Config{
		Phase: runner.Transactions, Threads: 2, Seed: 1, Target: 1000, Interval: 200 * time.Millisecond,
		WarmupTime: 20 * time.Second, WarmupSteady: true, MaxExecutionTime: 21 * time.Second,
	}, wl, db)
	require.NoError(t, err)
	require.NotNil(t, res.Warmup)
	require.Less(t, res.Warmup.Duration, 5*time.Second, "a paced rate is steady within a few intervals")
	require.InDelta(t, time.Second.Seconds(), res.Measured.Duration.Seconds(), 0.3, "the measured phase keeps its second")
	require.Less(t, time.Since(start), 8*time.Second)
	require.Equal(t, "maxexecutiontime reached", res.StopReason)
}

// rampDB answers reads faster and faster: a throughput that climbs, as
// a JVM's does while it compiles.
type rampDB struct{ start time.Time }

func (d *rampDB) Session(context.Context, int) (driver.Session, error) { return d, nil }
func (d *rampDB) Close() error                                         { return nil }
func (d *rampDB) Read(context.Context, string, string, []string, record.Record) (record.Record, error) {
	// 20 ms at the start, 4 ms after 1 s, 2.2 ms after 2 s: the rate
	// climbs by more than half in every second.
	time.Sleep(time.Duration(float64(20*time.Millisecond) / (1 + 4*time.Since(d.start).Seconds())))
	return nil, nil
}
func (d *rampDB) Insert(context.Context, string, string, record.Record) error { return nil }
func (d *rampDB) Update(context.Context, string, string, record.Record) error { return nil }
func (d *rampDB) Delete(context.Context, string, string) error                { return nil }
func (d *rampDB) Scan(context.Context, string, string, int, []string, []record.Record) ([]record.Record, error) {
	return nil, nil
}

// TestWarmupNeverSteadyEndsAtItsMaximum: a climbing throughput keeps the
// warm-up going until its maximum.
func TestWarmupNeverSteadyEndsAtItsMaximum(t *testing.T) {
	db := &rampDB{start: time.Now()}
	wl := newWorkload(t, "recordcount", "100", "readproportion", "1", "updateproportion", "0")
	res, err := runner.Run(context.Background(), runner.Config{
		Phase: runner.Transactions, Threads: 4, Seed: 1, Interval: 200 * time.Millisecond,
		WarmupTime: 2 * time.Second, WarmupSteady: true, MaxExecutionTime: 3 * time.Second,
	}, wl, db)
	require.NoError(t, err)
	require.NotNil(t, res.Warmup)
	require.InDelta(t, 2, res.Warmup.Duration.Seconds(), 0.3, "still climbing: the whole maximum")
	require.InDelta(t, 1, res.Measured.Duration.Seconds(), 0.3)
}

// TestWarmupSteadyNeedsItsSettings: warmup.steady without a maximum or
// with stages is refused.
func TestWarmupSteadyNeedsItsSettings(t *testing.T) {
	for _, cfg := range []runner.Config{
		{Phase: runner.Transactions, Threads: 1, Interval: time.Second, WarmupSteady: true, MaxExecutionTime: time.Second},
		{Phase: runner.Transactions, Threads: 1, Interval: time.Second, WarmupSteady: true, WarmupTime: time.Second,
			Stages: []runner.Stage{{Duration: time.Second, Threads: 1}}},
	} {
		require.ErrorContains(t, cfg.Validate(), "warmup.steady")
	}
}
