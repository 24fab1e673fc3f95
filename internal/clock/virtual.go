package clock

import "sync"

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

// SleepUntil implements Clock by jumping to t.
func (v *Virtual) SleepUntil(t int64, done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
	}
	v.mu.Lock()
	if t > v.now {
		v.now = t
	}
	v.mu.Unlock()
	return false
}
