package clock

import (
	"sync"
	"time"
)

// spinBelow is the wait under which a coarse timer yields the processor
// in a loop instead of arming a runtime timer: a runtime timer fires 50
// µs to 1 ms late, so a shorter sleep would always overshoot.
const spinBelow = 50 * time.Microsecond

// coarseTimer sleeps on a runtime timer, reused from one wait to the next
// so that waiting does not allocate.
type coarseTimer struct {
	t        *time.Timer
	stop     chan struct{}
	stopOnce sync.Once
}

func newCoarseTimer() *coarseTimer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &coarseTimer{t: t, stop: make(chan struct{})}
}

// SleepUntil implements Timer.
func (c *coarseTimer) SleepUntil(at int64) bool {
	for {
		select {
		case <-c.stop:
			return true
		default:
		}
		d := at - runtimeNano()
		if d <= 0 {
			return false
		}
		if d < int64(spinBelow) {
			spinYield()
			continue
		}
		c.t.Reset(time.Duration(d))
		select {
		case <-c.stop:
			c.t.Stop()
			return true
		case <-c.t.C:
		}
	}
}

// Stop implements Timer.
func (c *coarseTimer) Stop() { c.stopOnce.Do(func() { close(c.stop) }) }

// Close implements Timer.
func (c *coarseTimer) Close() error {
	c.t.Stop()
	return nil
}
