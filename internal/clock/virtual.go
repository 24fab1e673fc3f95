package clock

import (
	"sync"
	"sync/atomic"
)

// Virtual is a clock that only moves when told to. Sleeping advances it to
// the wake-up time at once, so a single-goroutine run over a virtual clock is
// deterministic and takes no wall time. It is meant for tests of timing
// logic with one worker; with several workers sleeps still advance the shared
// time, which is monotonic but not a faithful simulation.
type Virtual struct {
	mu  sync.Mutex
	now int64
}

// NewVirtual returns a virtual clock reading start.
func NewVirtual(start int64) *Virtual { return &Virtual{now: start} }

// Now implements Clock.
func (v *Virtual) Now() int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.now
}

// Advance moves the clock forward by d nanoseconds.
func (v *Virtual) Advance(d int64) {
	v.mu.Lock()
	v.now += d
	v.mu.Unlock()
}

// NewTimer implements Clock; precise and coarse timers are alike.
func (v *Virtual) NewTimer(bool) (Timer, error) { return &virtualTimer{v: v}, nil }

// virtualTimer sleeps by moving its clock.
type virtualTimer struct {
	v       *Virtual
	stopped atomic.Bool
}

// SleepUntil implements Timer by jumping to t.
func (t *virtualTimer) SleepUntil(at int64) bool {
	if t.stopped.Load() {
		return true
	}
	t.v.mu.Lock()
	if at > t.v.now {
		t.v.now = at
	}
	t.v.mu.Unlock()
	return false
}

// Stop implements Timer.
func (t *virtualTimer) Stop() { t.stopped.Store(true) }

// Close implements Timer.
func (t *virtualTimer) Close() error { return nil }
