// Package clock is the runner's source of time: a monotonic clock and
// timers that wake a goroutine when an operation is due. The real clock's
// precise timers start operations within tens of microseconds of their
// intended time, where Go's own timers are up to a millisecond late on
// Linux; tests substitute a virtual clock so that timing behaviour
// (coordinated omission, rate limiting) can be checked exactly and
// without sleeping.
package clock

import (
	"errors"
	"syscall"
	_ "unsafe" // for go:linkname
)

// Clock gives monotonic nanoseconds and timers on that scale.
type Clock interface {
	// Now returns monotonic nanoseconds since an arbitrary origin.
	Now() int64
	// NewTimer returns a timer for one goroutine's waits. A precise
	// timer wakes within tens of microseconds of the time asked for, at
	// the cost of a file descriptor; a coarse one may be a millisecond
	// late and costs nothing while unused.
	NewTimer(precise bool) (Timer, error)
}

// Timer puts one goroutine to sleep until a point on its clock's scale.
// SleepUntil is called by one goroutine at a time; Stop may be called
// from any goroutine, also while SleepUntil runs.
type Timer interface {
	// SleepUntil blocks until the clock reads t or later, or the timer
	// is stopped, and reports whether it returned because of Stop.
	SleepUntil(t int64) (stopped bool)
	// Stop ends the current sleep, and every later one at once. It is
	// safe to call more than once.
	Stop()
	// Close releases the timer's resources; it does not stop a sleep in
	// progress (call Stop first).
	Close() error
}

// runtimeNano reads the runtime's monotonic clock (CLOCK_MONOTONIC on
// Linux, the clock timerfd schedules on). time.Now reads both the wall
// and the monotonic clock: 65 ns against 32 ns measured on this
// project's 2-core CI machines. It is called twice per operation, so the
// difference is about 10% of the harness's per-operation budget.
//
//go:linkname runtimeNano runtime.nanotime
func runtimeNano() int64

// Real is the process's monotonic clock. Its precise timers share one
// estimate of how late the operating system wakes a sleeping goroutine,
// so make one Real per run (NewReal) rather than one per timer.
type Real struct {
	wake *wakeEstimate
	disp *dispatcher
}

// NewReal returns the real clock.
func NewReal() *Real { return &Real{wake: newWakeEstimate(), disp: newDispatcher()} }

// NewRealUndispatched returns a real clock whose precise timers always
// sleep on a timerfd each, never on a shared dispatcher: a stand-in for
// a network round trip, which wakes its client through the poller however
// many there are.
func NewRealUndispatched() *Real { return &Real{wake: newWakeEstimate()} }

// Now implements Clock.
func (*Real) Now() int64 { return runtimeNano() }

// NewTimer implements Clock. A precise timer falls back to a coarse one
// where the operating system offers no precise wake-up (not Linux), and
// when the process is out of file descriptors (a run of many thousand
// paced workers past its limit): such a run's late starts then show in
// its pacing figures rather than failing it.
func (r *Real) NewTimer(precise bool) (Timer, error) {
	if !precise {
		return newCoarseTimer(), nil
	}
	t, err := newPreciseTimer(r.wake, r.disp)
	if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
		return newCoarseTimer(), nil
	}
	return t, err
}
