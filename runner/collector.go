package runner

import (
	"fmt"
	"time"

	"github.com/dbarena/dbarena/analysis/steady"
	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/measure"
)

// collector turns the recorders' contents into intervals and cumulative
// results. Only one goroutine uses it at a time: the interval loop while
// the run lasts, then the final collection.
type collector struct {
	s                *run
	warmIv, mainIv   measure.Results
	warmCum, mainCum measure.Results
	index            int
	lastMono         int64
	totalOps         int64
	// warmRates are the warm-up intervals' rates, for a warm-up until
	// steady.
	warmRates []float64
}

func newCollector(s *run) *collector {
	intended := s.cfg.Paced()
	c := &collector{
		s:        s,
		mainIv:   measure.NewResults(s.series, intended),
		mainCum:  measure.NewResults(s.series, intended),
		lastMono: s.startMono,
	}
	if s.warmRec != nil {
		c.warmIv = measure.NewResults(s.series, intended)
		c.warmCum = measure.NewResults(s.series, intended)
	}
	return c
}

// loop collects every interval until the run stops. It runs on the wall
// clock: it is only started with the real clock.
func (c *collector) loop() {
	t := time.NewTicker(c.s.cfg.Interval)
	defer t.Stop()
	// A schedule's stage boundaries are collected too, so that no
	// interval straddles two stages and each stage's figures are its
	// own.
	var boundary <-chan time.Time
	next := 0
	arm := func() {
		boundary = nil
		for next < len(c.s.stageStarts) {
			at := c.s.stageStarts[next]
			next++
			if d := time.Duration(at - c.s.cfg.Clock.Now()); d > 0 && next > 1 {
				boundary = time.After(d)
				return
			}
		}
	}
	arm()
	for {
		select {
		case <-c.s.done:
			return
		case <-boundary:
			arm()
			if c.over() {
				return
			}
			c.collect(c.cut(), false)
		case <-t.C:
			if c.over() {
				return
			}
			c.collect(c.cut(), false)
		}
	}
}

// over says whether a tick came at or after the run's end: the stop, or
// the time limit before the timer that stops the run at it has run. When
// a tick and the stop are both pending, select picks either; a
// collection after the end would end past the run, and what completed
// from then on in the drain would make a last interval of no length (a
// busy machine runs the limit's timer and the tick it shares a time with
// in either order). The final collection takes that interval.
func (c *collector) over() bool {
	select {
	case <-c.s.done:
		return true
	default:
	}
	d := c.s.deadline.Load()
	return d > 0 && c.s.cfg.Clock.Now() >= d
}

// cut ends the interval being recorded, in both recorders at once, and
// returns when it ended. The clock is read after the cut, so every
// operation the interval holds completed before its end; what completes
// from then on is the next interval's, however long collecting this one
// and handing it to the observers take. Observers take milliseconds (an
// interval log compresses every histogram): with the clock read before
// and the measured recorder collected after the warm-up's part was
// written out, the few milliseconds of measured time after the warm-up
// held every operation completed meanwhile (261 in 6 ms where 65 fit).
func (c *collector) cut() int64 {
	if c.s.warmRec != nil {
		c.s.warmRec.Cut()
	}
	c.s.mainRec.Cut()
	return c.s.tickEnd(c.s.cfg.Clock.Now(), c.lastMono)
}

// tickEnd is when a tick's interval ends, given the clock read after its
// cut and the end of the interval before. A tick that reached the time
// limit between over and its cut ends at the limit: the window closes
// there, and what completed since was in flight at the limit and counts
// in the last interval, as what the drain waits for does. Left at the
// clock, a late tick moved the window's end (CI measured a 5 s run as
// 5.003 s).
func (s *run) tickEnd(now, last int64) int64 {
	if d := s.deadline.Load(); d > 0 && now > d {
		return max(d, last)
	}
	return now
}

// collect hands the interval that ended at now to the observers; final
// marks the last collection of the run, which ends at the run's end. An
// interval the warm-up ended in is split where it ended: the warm-up's
// part and the measured part each span only their own time, so that
// their rates are not diluted by the other's. An operation belongs to
// the phase it started in, and to the interval it completed in: a
// warm-up operation still running when the warm-up's last part was
// collected (at most one per worker) comes out as warm-up in the
// interval it completed in, over that interval's length.
//
// A tick's interval was cut first (cut, which returned now); the final
// collection comes after the workers stopped, and the recorders' own
// cuts in Collect are as good. The warm-up's state is read after the
// cut: while it says warming, no measured operation was recorded before
// the cut.
func (c *collector) collect(now int64, final bool) {
	// A tick collected while the workers were stopping may end after the
	// run's end; the final interval then starts and ends there.
	now = max(now, c.lastMono)
	warming := c.s.warming.Load()
	split := now
	if !warming {
		split = min(max(c.s.measuredStart.Load(), c.lastMono), now)
	}
	if c.s.warmRec != nil {
		c.s.warmRec.Collect(c.warmIv)
		if warming && c.s.cfg.WarmupSteady && !final && now > c.lastMono {
			c.warmRates = append(c.warmRates, float64(c.warmIv.TotalCounted())/time.Duration(now-c.lastMono).Seconds())
			if steady.Settled(c.warmRates) {
				c.s.settle(now)
			}
		}
		// The warm-up ended before this interval began: what it holds of
		// the warm-up completed in it, after the warm-up's last part.
		warmEnd := split
		if warmEnd == c.lastMono {
			warmEnd = now
		}
		c.emit(c.warmIv, true, false, c.lastMono, warmEnd)
		c.warmCum.Merge(c.warmIv)
		c.warmIv.Reset()
	}
	// Collected whether or not it is emitted, so that the next cut
	// takes effect.
	c.s.mainRec.Collect(c.mainIv)
	if (warming || split >= now) && !final {
		// The measured phase has no time of its own in this interval
		// yet; what it recorded (nothing: it began after the cut) waits
		// for the next one.
		c.lastMono = now
		return
	}
	c.emit(c.mainIv, false, final, split, now)
	c.mainCum.Merge(c.mainIv)
	c.mainIv.Reset()
	c.lastMono = now
}

func (c *collector) emit(r measure.Results, warm, final bool, from, to int64) {
	ops := r.TotalCounted()
	// An empty warm-up interval says nothing, nor does an empty last one
	// of no length. An empty measured interval otherwise is a stall, or
	// a dead database, and is kept.
	if ops == 0 && r.TotalAborted() == 0 && (warm || (final && from == to)) {
		return
	}
	c.totalOps += ops
	iv := &Interval{
		Index:   c.index,
		Warmup:  warm,
		Final:   final,
		Start:   c.s.wallAt(from),
		End:     c.s.wallAt(to),
		Elapsed: time.Duration(to - c.s.startMono),
		Results: r, Ops: ops, TotalOps: c.totalOps,
		Planned:     c.s.planned,
		ExpectedOps: c.s.cfg.OperationCount,
		Limit:       c.s.cfg.MaxExecutionTime,
		Stage:       c.s.stageAt(from + (to-from)/2),
	}
	if c.s.cfg.Phase == Load {
		iv.ExpectedOps = c.s.wl.Config().EffectiveInsertCount()
	}
	c.index++
	for _, o := range c.s.observers {
		o.Interval(iv)
	}
	c.checkErrorRate(r, ops)
}

// checkErrorRate halts the run when the interval's share of failed
// operations is above the configured limit. Data-integrity mismatches are
// not database errors and do not count.
func (c *collector) checkErrorRate(r measure.Results, ops int64) {
	limit := c.s.cfg.StopOnErrorRate
	if limit <= 0 || ops == 0 || c.s.stop.Load() {
		// Nothing to stop: the run stopped already (the last interval is
		// judged with the whole run, by its MaxErrorRate).
		return
	}
	// Operations as counted: a composite operation's failed part and a
	// retried insert's failed attempts are not failures of their own.
	errs := judgedErrors(r, c.s.cfg.NotFoundIsNoError)
	if rate := float64(errs) / float64(ops); errs >= MinErrorsToStop && rate > limit {
		c.s.halt(fmt.Sprintf("error rate %.1f%% in one interval (%d of %d operations) above stop-on-error-rate=%g", 100*rate, errs, ops, limit), byErrorRate)
	}
}

// judgedErrors are the failed operations the error policy judges: as
// counted (a composite operation once), without NOT_FOUND when the
// workload deletes records.
func judgedErrors(r measure.Results, notFoundIsNoError bool) int64 {
	n := r.TotalCountedErrors()
	if notFoundIsNoError {
		for i := range r {
			if r[i].Counted > 0 {
				n -= min(r[i].Errors[string(driver.ClassNotFound)], r[i].CountedErrors)
			}
		}
	}
	return n
}
