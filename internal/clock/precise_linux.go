package clock

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// preciseTimer sleeps on a Linux timerfd waited for through the Go
// runtime's network poller. Go's own timers are checked by the poller
// with a millisecond timeout and fire up to a millisecond late; a
// timerfd becomes readable when its high-resolution timer expires and
// wakes the poller at once, with no timer slack.
//
// Each sleep costs one system call, to arm the timer. It is made with
// RawSyscall: timerfd_settime never blocks, and the ordinary entry point
// wakes the runtime's monitor thread out of its deep sleep on every call,
// which on an otherwise idle process doubled the CPU cost of a paced
// operation (44 against 20 µs measured on the CI machines). The
// expiration count is never read: arming the timer resets it.
type preciseTimer struct {
	fd   int
	f    *os.File
	rc   syscall.RawConn
	wake *wakeEstimate
	// disp releases this timer's sleeps when they are too frequent for
	// a timerfd each (dispatchRate); released and stop are its channels.
	disp     *dispatcher
	released chan struct{}
	stop     chan struct{}
	stopped  atomic.Bool
	// armAt is the expiry the next wait arms; armed reports that the
	// wait's first readiness check armed it. Both are read by onReady,
	// kept in the struct so that waiting does not allocate.
	armAt   int64
	armErr  error
	armed   bool
	onReady func(uintptr) bool
}

func newPreciseTimer(wake *wakeEstimate, disp *dispatcher) (Timer, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("create a timerfd: %w", err)
	}
	f := os.NewFile(uintptr(fd), "timerfd")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("timerfd: %w", err)
	}
	t := &preciseTimer{fd: fd, f: f, rc: rc, wake: wake, disp: disp,
		released: make(chan struct{}, 1), stop: make(chan struct{})}
	t.onReady = t.ready
	return t, nil
}

// ready is called by the poller: first, after it has cleared any earlier
// readiness, to arm the timer (false: now wait); then when the timerfd
// is readable (true: done).
func (t *preciseTimer) ready(uintptr) bool {
	if t.armed {
		return true
	}
	t.armed = true
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(t.armAt)}
	_, _, errno := unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(t.fd), unix.TFD_TIMER_ABSTIME,
		uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
	if errno != 0 {
		t.armErr = errno
		return true
	}
	return false
}

// SleepUntil implements Timer.
func (t *preciseTimer) SleepUntil(at int64) bool {
	for {
		if t.stopped.Load() {
			return true
		}
		now := runtimeNano()
		if now >= at {
			return false
		}
		early := t.wake.early()
		if at-now <= early {
			// Closer than a wake-up takes: wait it out yielding.
			spinYield()
			continue
		}
		t.wake.sleeping(now)
		if t.disp.use(t.wake.rate.Load()) {
			if t.disp.wait(at, t.released, t.stop) {
				return true
			}
			continue
		}
		t.armAt, t.armed, t.armErr = at-early, false, nil
		if err := t.rc.Read(t.onReady); err != nil || t.armErr != nil {
			if t.stopped.Load() || errors.Is(err, os.ErrDeadlineExceeded) {
				return true
			}
			// The timerfd failed (it does not on Linux): sleep coarsely
			// rather than spin, still stoppable.
			tm := time.NewTimer(time.Duration(at - runtimeNano()))
			select {
			case <-t.stop:
				tm.Stop()
				return true
			case <-tm.C:
			}
			continue
		}
		// A readiness left from an earlier expiry can end a wait early:
		// it is not a wake-up latency, and the loop waits again.
		if late := runtimeNano() - t.armAt; late >= 0 {
			t.wake.observe(late)
		}
	}
}

// Stop implements Timer: a read deadline in the past ends the poller's
// wait at once.
func (t *preciseTimer) Stop() {
	if t.stopped.CompareAndSwap(false, true) {
		close(t.stop)
		_ = t.f.SetReadDeadline(time.Unix(1, 0)) // the timerfd is pollable: this does not fail
	}
}

// Close implements Timer.
func (t *preciseTimer) Close() error { return t.f.Close() }
