package clock

import (
	"sync/atomic"
	"time"
)

// Tuning of the early wake-up. A sleeping goroutine resumes some tens of
// microseconds after its timer expires: the operating system's wake-up
// latency, measured at 26-35 µs at the median and 50-90 µs at the 99th
// percentile on this project's 2-core CI machines (Linux guests), and a
// few microseconds on bare metal. A precise timer therefore expires a
// little before the time asked for and yields the processor for the
// rest: by wakeQuantile of the recent latencies, so that most wake-ups
// land just after the intended time and few have anything left to wait.
const (
	// wakeQuantile is the share of wake-ups expected to come back
	// before the intended time, with time left to wait out.
	wakeQuantile = 0.2
	// wakeStep moves the estimate per wake-up; at 2 µs it settles within
	// some tens of wake-ups and follows a changing machine.
	wakeStep = 2 * time.Microsecond
	// wakeInitial is the estimate before any wake-up was seen.
	wakeInitial = 20 * time.Microsecond
	// wakeMax caps the estimate, and so the time a wake-up may spend
	// yielding: on a saturated machine wake-ups come late because the
	// processors are busy, and waiting longer in a loop would make that
	// worse.
	wakeMax = 50 * time.Microsecond
)

// wakeEstimate tracks a low quantile of the operating system's wake-up
// latency by stochastic approximation: each wake-up earlier than the
// estimate moves it down by (1-q) steps, each later one up by q steps,
// which settles where a share q of the wake-ups comes earlier. Many
// timers update it without locks; a lost update only slows it down.
type wakeEstimate struct {
	ns atomic.Int64
}

func newWakeEstimate() *wakeEstimate {
	w := &wakeEstimate{}
	w.ns.Store(int64(wakeInitial))
	return w
}

// early is how long before the intended time a timer should expire.
func (w *wakeEstimate) early() int64 { return w.ns.Load() }

// observe adds one wake-up that came latency nanoseconds after its
// timer expired.
func (w *wakeEstimate) observe(latency int64) {
	e := w.ns.Load()
	if latency < e {
		e -= int64(float64(wakeStep) * (1 - wakeQuantile))
	} else {
		e += int64(float64(wakeStep) * wakeQuantile)
	}
	w.ns.Store(min(max(e, 0), int64(wakeMax)))
}
