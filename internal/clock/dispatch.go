package clock

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Above dispatchRate sleeps a second, a clock's precise timers stop
// arming a timerfd each and hand their wake-up times to one dispatcher
// goroutine that waits in a loop and releases each sleeper at its time. A
// timerfd wake-up costs 16-20 µs of CPU on this project's 2-core CI
// machines (an interrupt and a thread woken per sleep), so at 50,000
// sleeps a second it already costs a core, and comes 300-2,000 µs late at
// the 99th percentile because that core is busy; the dispatcher costs
// about the same core and released 50,000 a second from 16 or 256
// goroutines with a p99 of 27-60 µs (side by side, same machine). Below
// the rate it would cost a core where timerfds cost a fraction of one.
const dispatchRate = 40_000

// dispatchLeave is the rate of sleeps under which a dispatching clock
// goes back to timerfds: apart from dispatchRate, so that a rate near the
// threshold does not switch back and forth and leave some sleepers with
// the dispatcher while most sleep on timerfds, which starves the
// dispatcher's loop of processor time. The rate is counted over 100 ms
// windows: a mean of gaps between sleeps, fooled by the burst of every
// worker's first sleep, sent a run of 20,000 a second from 256 goroutines
// to the dispatcher and its p99 to 1.5-8 ms.
const dispatchLeave = 3 * dispatchRate / 4

// dispatcher releases sleeping goroutines at their times. It runs while
// it has sleepers, waiting in a loop that yields the processor (so the
// goroutines it releases run on it), or on a runtime timer when the next
// time is far; it exits after dispatchIdle without one.
type dispatcher struct {
	// on says the clock dispatches, from the rate of sleeps
	// (wakeEstimate.gap) with hysteresis.
	on      atomic.Bool
	mu      sync.Mutex
	waits   waitHeap
	running bool
	// next is the earliest waiting time (0: none), read without the
	// lock by the waiting loop, which takes the lock only to release.
	next atomic.Int64
	kick chan struct{}
}

// dispatchIdle is how long a dispatcher without sleepers stays.
const dispatchIdle = 100 * time.Millisecond

// dispatchSpin is the distance to the next time under which the
// dispatcher waits in a loop rather than on a runtime timer, which may
// fire up to a millisecond late.
const dispatchSpin = 2 * time.Millisecond

func newDispatcher() *dispatcher { return &dispatcher{kick: make(chan struct{}, 1)} }

// use says whether a sleep should go to the dispatcher, given the rate
// of sleeps a second.
func (d *dispatcher) use(rate int64) bool {
	if d == nil {
		return false
	}
	on := d.on.Load()
	switch {
	case !on && rate > dispatchRate:
		d.on.Store(true)
		return true
	case on && rate < dispatchLeave:
		d.on.Store(false)
		return false
	}
	return on
}

// wait blocks until at, when the dispatcher sends on ch, or until stop
// is closed, and reports whether it returned because of stop.
func (d *dispatcher) wait(at int64, ch chan struct{}, stop <-chan struct{}) bool {
	d.mu.Lock()
	d.waits.push(waiter{at: at, ch: ch})
	d.next.Store(d.waits[0].at)
	if !d.running {
		d.running = true
		go d.loop()
	}
	d.mu.Unlock()
	select {
	case d.kick <- struct{}{}:
	default:
	}
	select {
	case <-ch:
		return false
	case <-stop:
		// Take the wait back, so that a stopped sleeper's far time does
		// not keep the dispatcher.
		d.mu.Lock()
		if d.waits.remove(ch) {
			d.setNext()
		}
		d.mu.Unlock()
		select {
		case d.kick <- struct{}{}:
		default:
		}
		return true
	}
}

// setNext publishes the earliest waiting time; the caller holds mu.
func (d *dispatcher) setNext() {
	if len(d.waits) > 0 {
		d.next.Store(d.waits[0].at)
	} else {
		d.next.Store(0)
	}
}

func (d *dispatcher) loop() {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		next, now := d.next.Load(), runtimeNano()
		switch {
		case next != 0 && next <= now:
			d.release(now)
		case next == 0:
			if d.idle(t) {
				return
			}
		case next-now > int64(dispatchSpin):
			t.Reset(time.Duration(next - now - int64(dispatchSpin)/2))
			select {
			case <-d.kick:
				t.Stop()
			case <-t.C:
			}
		default:
			runtime.Gosched()
		}
	}
}

// release sends to every waiter due by now.
func (d *dispatcher) release(now int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for len(d.waits) > 0 && d.waits[0].at <= now {
		w := d.waits.pop()
		select {
		case w.ch <- struct{}{}:
		default: // a token left by a stopped sleeper: it never waits again
		}
	}
	d.setNext()
}

// idle waits for a sleeper, and reports whether none came within
// dispatchIdle and the loop should end.
func (d *dispatcher) idle(t *time.Timer) bool {
	t.Reset(dispatchIdle)
	select {
	case <-d.kick:
		t.Stop()
		return false
	case <-t.C:
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.waits) == 0 {
		d.running = false
		return true
	}
	return false
}

// waiter is one sleeper's time and the channel it waits on.
type waiter struct {
	at int64
	ch chan struct{}
}

// waitHeap is a binary min-heap of waiters by time, written out rather
// than through container/heap, whose interface boxes each waiter: one
// allocation per sleep.
type waitHeap []waiter

func (h *waitHeap) push(w waiter) {
	*h = append(*h, w)
	h.up(len(*h) - 1)
}

func (h *waitHeap) pop() waiter {
	top := (*h)[0]
	h.removeAt(0)
	return top
}

// remove takes out the wait on ch, and reports whether there was one.
func (h *waitHeap) remove(ch chan struct{}) bool {
	for i, w := range *h {
		if w.ch == ch {
			h.removeAt(i)
			return true
		}
	}
	return false
}

// removeAt takes out the waiter at i and restores the heap's order.
func (h *waitHeap) removeAt(i int) {
	s := *h
	last := len(s) - 1
	s[i] = s[last]
	s[last] = waiter{}
	s = s[:last]
	*h = s
	if i == last {
		return
	}
	h.down(i)
	h.up(i)
}

// up moves the waiter at i towards the root while it is earlier than
// its parent.
func (h *waitHeap) up(i int) {
	s := *h
	for i > 0 {
		p := (i - 1) / 2
		if s[p].at <= s[i].at {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

// down moves the waiter at i towards the leaves while a child is
// earlier.
func (h *waitHeap) down(i int) {
	s := *h
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(s) && s[l].at < s[m].at {
			m = l
		}
		if r < len(s) && s[r].at < s[m].at {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
}
