// Package basic is a driver that talks to no database. It measures the
// harness itself: key and value generation, scheduling, timing and
// recording. Like YCSB's BasicDB it can simulate a fixed service time.
package basic

import (
	"context"
	"fmt"
	"time"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/record"
)

// DB is the basic driver. It is stateless.
type DB struct {
	delay time.Duration
}

var (
	_ driver.DB      = (*DB)(nil)
	_ driver.Session = (*DB)(nil)
)

// Open reads basic.delay (a Go duration such as "1ms"; default 0): the time
// every operation sleeps, to stand in for a database in harness tests.
func Open(_ context.Context, p driver.Params) (driver.DB, error) {
	d := &DB{}
	if v, ok := p.Props["basic.delay"]; ok {
		delay, err := time.ParseDuration(v)
		if err != nil || delay < 0 {
			return nil, fmt.Errorf("basic: property basic.delay=%q: want a non-negative duration such as 500us or 2ms", v)
		}
		d.delay = delay
	}
	return d, nil
}

// Session implements driver.DB; every worker shares the stateless DB.
func (d *DB) Session(context.Context, int) (driver.Session, error) { return d, nil }

// Close implements driver.DB and driver.Session.
func (d *DB) Close() error { return nil }

func (d *DB) wait(ctx context.Context) error {
	if d.delay == 0 {
		return nil
	}
	t := time.NewTimer(d.delay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Read implements driver.Session; it returns no fields.
func (d *DB) Read(ctx context.Context, _, _ string, _ []string, dst record.Record) (record.Record, error) {
	return dst[:0], d.wait(ctx)
}

// Scan implements driver.Session; it returns no records.
func (d *DB) Scan(ctx context.Context, _, _ string, _ int, _ []string, dst []record.Record) ([]record.Record, error) {
	return dst[:0], d.wait(ctx)
}

// Update implements driver.Session.
func (d *DB) Update(ctx context.Context, _, _ string, _ record.Record) error { return d.wait(ctx) }

// Insert implements driver.Session.
func (d *DB) Insert(ctx context.Context, _, _ string, _ record.Record) error { return d.wait(ctx) }

// Delete implements driver.Session.
func (d *DB) Delete(ctx context.Context, _, _ string) error { return d.wait(ctx) }
