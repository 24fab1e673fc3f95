// Package basic is a driver that talks to no database. It measures the
// harness itself: key and value generation, scheduling, timing and
// recording. Like YCSB's BasicDB it can simulate a fixed service time.
package basic

import (
	"context"
	"fmt"
	"time"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/clock"
	"github.com/dbarena/dbarena/record"
)

// DB is the basic driver.
type DB struct {
	delay time.Duration
	clk   *clock.Real
}

// Session is one worker's handle. With a delay it sleeps on a precise
// timer of its own: a database's answer wakes its client through the
// network poller within microseconds, and a delay that came a
// millisecond late (as Go's timers do) would not stand in for a
// sub-millisecond database.
type Session struct {
	db    *DB
	timer clock.Timer
	// watched is the context whose cancellation stops timer; drivers get
	// one context per run, so it is registered once, not per operation.
	watched context.Context
	unwatch func() bool
}

var (
	_ driver.DB      = (*DB)(nil)
	_ driver.Session = (*Session)(nil)
)

// Open reads basic.delay (a Go duration such as "1ms"; default 0): the time
// every operation sleeps, to stand in for a database in harness tests.
func Open(_ context.Context, p driver.Params) (driver.DB, error) {
	delay, err := parseDelay(p.Props)
	if err != nil {
		return nil, err
	}
	return &DB{clk: clock.NewRealUndispatched(), delay: delay}, nil
}

// Check is the driver's [driver.Checker]: basic.delay's value.
func Check(props map[string]string, _ int) error {
	_, err := parseDelay(props)
	return err
}

// parseDelay reads basic.delay (0 when unset).
func parseDelay(props map[string]string) (time.Duration, error) {
	if err := driver.NewProps("basic", props).Unknown("delay"); err != nil {
		return 0, driver.BadConfig(err)
	}
	v, ok := props["basic.delay"]
	if !ok {
		return 0, nil
	}
	delay, err := time.ParseDuration(v)
	if err != nil || delay < 0 {
		return 0, driver.BadConfig(fmt.Errorf("basic: property basic.delay=%q: want a non-negative duration such as 500us or 2ms", v))
	}
	return delay, nil
}

// Session implements driver.DB.
func (d *DB) Session(context.Context, int) (driver.Session, error) {
	return &Session{db: d}, nil
}

// Close implements driver.DB.
func (d *DB) Close() error { return nil }

// Close implements driver.Session.
func (s *Session) Close() error {
	if s.unwatch != nil {
		s.unwatch()
	}
	if s.timer != nil {
		return s.timer.Close()
	}
	return nil
}

// wait sleeps for the delay, or until ctx is cancelled.
func (s *Session) wait(ctx context.Context) error {
	if s.db.delay == 0 {
		return ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if ctx != s.watched {
		if err := s.watch(ctx); err != nil {
			return err
		}
	}
	clk := s.db.clk
	if s.timer.SleepUntil(clk.Now() + int64(s.db.delay)) {
		return ctx.Err()
	}
	return nil
}

// watch makes ctx's cancellation end the session's sleeps, on a new
// timer: a stopped timer stays stopped.
func (s *Session) watch(ctx context.Context) error {
	if s.unwatch != nil {
		s.unwatch()
	}
	if s.timer != nil {
		_ = s.timer.Close() // replaced; it was only a descriptor
	}
	tm, err := s.db.clk.NewTimer(true)
	if err != nil {
		return fmt.Errorf("basic: %w", err)
	}
	s.timer, s.watched = tm, ctx
	s.unwatch = context.AfterFunc(ctx, tm.Stop)
	return nil
}

// Read implements driver.Session; it returns no fields.
func (s *Session) Read(ctx context.Context, _, _ string, _ []string, dst record.Record) (record.Record, error) {
	return dst[:0], s.wait(ctx)
}

// Scan implements driver.Session; it returns no records.
func (s *Session) Scan(ctx context.Context, _, _ string, _ int, _ []string, dst []record.Record) ([]record.Record, error) {
	return dst[:0], s.wait(ctx)
}

// Update implements driver.Session.
func (s *Session) Update(ctx context.Context, _, _ string, _ record.Record) error { return s.wait(ctx) }

// Insert implements driver.Session.
func (s *Session) Insert(ctx context.Context, _, _ string, _ record.Record) error { return s.wait(ctx) }

// Delete implements driver.Session.
func (s *Session) Delete(ctx context.Context, _, _ string) error { return s.wait(ctx) }
