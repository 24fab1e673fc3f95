package clock

import (
	"sync/atomic"
	"time"
)

// A sleeping goroutine resumes some tens of microseconds after its timer
// expires: the operating system's wake-up latency, measured on this
// project's 2-core CI machines (Linux guests) at 26-35 µs at the median
// and 90-160 µs at the 99th percentile from an idle process, a few
// microseconds on bare metal. A precise timer therefore expires early and
// yields the processor for the rest of the wait. How early is a trade:
// expiring at a low quantile of the latencies costs almost no waiting in
// a loop but leaves the slow wake-ups late; expiring at a high one makes
// nearly every operation start on time, at the price of a loop after
// most wake-ups. The loop's cost grows with the rate of sleeps, so the
// timer expires as early as a CPU budget allows: at the high quantile
// when sleeps are rare, at the low one when they are frequent.
const (
	// wakeLow and wakeHigh are the quantiles of the wake-up latency
	// tracked: the earliest expiry any rate gets, and the latest.
	wakeLow  = 0.2
	wakeHigh = 0.99
	// spinBudget is the share of one core the waiting loops may use on
	// top of the low quantile's. At 2% a paced run of 5,000 operations
	// per second cost 17-18 µs of CPU per operation on the CI machines,
	// against 19-22 µs at 4% (BenchmarkPacing, no delay, side by side),
	// with the same lateness at that rate.
	spinBudget = 0.02
	// wakeStep moves an estimate per wake-up; at 2 µs the low one
	// settles within some tens of wake-ups and the high one within a few
	// hundred, and both follow a changing machine.
	wakeStep = 2 * time.Microsecond
	// lowInitial and highInitial are the estimates before any wake-up
	// was seen: typical of a virtual machine, so that the first
	// operations of a run are on time while the estimates settle.
	lowInitial  = 20 * time.Microsecond
	highInitial = 100 * time.Microsecond
	// wakeMax caps the estimates, and so the time a wake-up may spend
	// yielding: on a saturated machine wake-ups come late because the
	// processors are busy, and waiting longer in a loop would make that
	// worse.
	wakeMax = 300 * time.Microsecond
	// gapSmoothing weighs a new gap between sleeps into their running
	// mean.
	gapSmoothing = 0.05
)

// wakeEstimate tracks two quantiles of the operating system's wake-up
// latency by stochastic approximation (each wake-up earlier than an
// estimate moves it down by (1-q) steps, each later one up by q steps,
// which settles where a share q of the wake-ups comes earlier), and the
// mean gap between sleeps. Many timers update it without locks; a lost
// update only slows it down.
type wakeEstimate struct {
	low, high atomic.Int64
	// gap is the mean time between two sleeps of any timer, lastSleep
	// when the last one began.
	gap, lastSleep atomic.Int64
	// rate is the sleeps a second over the last rateWindow, counted in
	// windowSleeps since windowStart: unlike gap, a burst (every worker
	// sleeping at a run's start) does not move it.
	rate, windowStart, windowSleeps atomic.Int64
}

// rateWindow is the span the rate of sleeps is counted over.
const rateWindow = 100 * time.Millisecond

func newWakeEstimate() *wakeEstimate {
	w := &wakeEstimate{}
	w.low.Store(int64(lowInitial))
	w.high.Store(int64(highInitial))
	w.gap.Store(int64(time.Second))
	return w
}

// early is how long before the intended time a timer should expire: the
// low quantile, plus as much as the spin budget allows at the current
// rate of sleeps, up to the high quantile.
func (w *wakeEstimate) early() int64 {
	low, high := w.low.Load(), w.high.Load()
	allowed := int64(spinBudget * float64(w.gap.Load()))
	return max(low, min(high, low+allowed))
}

// sleeping notes that a timer is about to sleep at now, for the rate of
// sleeps.
func (w *wakeEstimate) sleeping(now int64) {
	n := w.windowSleeps.Add(1)
	if start := w.windowStart.Load(); now-start >= int64(rateWindow) && w.windowStart.CompareAndSwap(start, now) {
		if start != 0 {
			w.rate.Store(n * int64(time.Second) / (now - start))
		}
		w.windowSleeps.Store(0)
	}
	last := w.lastSleep.Swap(now)
	if last == 0 || now <= last {
		return
	}
	g := w.gap.Load()
	w.gap.Store(g + int64(gapSmoothing*float64(now-last-g)))
}

// observe adds one wake-up that came latency nanoseconds after its
// timer expired.
func (w *wakeEstimate) observe(latency int64) {
	track(&w.low, wakeLow, latency)
	track(&w.high, wakeHigh, latency)
}

// track moves the estimate of quantile q towards the sample y.
func track(e *atomic.Int64, q float64, y int64) {
	v := e.Load()
	if y < v {
		v -= int64(float64(wakeStep) * (1 - q))
	} else {
		v += int64(float64(wakeStep) * q)
	}
	e.Store(min(max(v, 0), int64(wakeMax)))
}
