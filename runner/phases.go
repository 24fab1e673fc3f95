package runner

// When a run is in its warm-up, which stage it is in, and when its
// measured phase ends.

import (
	"time"
)

// Paced says whether the run, or a stage of its schedule, has a target
// rate: its latency is then measured from each operation's intended
// start (response time), not only from when it was sent.
func (c *Config) Paced() bool {
	paced := c.Target > 0
	for _, st := range c.Stages {
		paced = paced || st.Target > 0
	}
	return paced
}

// stageAt returns the index of the stage running at now (0 during the
// warm-up), or -1 without stages.
func (s *run) stageAt(now int64) int {
	i := len(s.stageStarts) - 1
	for i > 0 && now < s.stageStarts[i] {
		i--
	}
	return i
}

// stageEnd is when stage i ends.
func (s *run) stageEnd(i int) int64 {
	if i+1 < len(s.stageStarts) {
		return s.stageStarts[i+1]
	}
	return s.deadline.Load()
}

// settle ends a warm-up until steady at now, and moves the deadline so
// that the measured phase keeps its length.
func (s *run) settle(now int64) {
	if !s.warming.Load() || now >= s.warmEnd.Load() {
		return
	}
	s.warmEnd.Store(now)
	s.keepMeasuredLength(now)
}

// keepMeasuredLength moves the deadline so that a measured phase that
// began at now lasts MaxExecutionTime - WarmupTime, whether the warm-up
// ended early (steady) or late: its operations count came later than its
// time, or every worker was still in a warm-up operation when its time
// was up. A late end used to shorten the measured phase (a 2 s trial
// measured 0.92 s after a stall at its warm-up's end), and the trial's
// figures then held less than the time asked for. A schedule's stages
// keep their times: they were laid out at the start.
func (s *run) keepMeasuredLength(now int64) {
	if s.cfg.MaxExecutionTime <= 0 || len(s.stageStarts) > 0 {
		return
	}
	end := now + int64(s.cfg.MaxExecutionTime-s.cfg.WarmupTime)
	if end == s.deadline.Load() {
		return
	}
	s.deadline.Store(end)
	if s.limit != nil {
		s.limit.Reset(time.Duration(end - s.cfg.Clock.Now()))
	}
}

// inWarmup reports whether an operation starting at now belongs to the
// warm-up, ending the warm-up when both its conditions are met.
func (s *run) inWarmup(now int64) bool {
	if !s.warming.Load() {
		return false
	}
	if now >= s.warmEnd.Load() && s.warmOps.Load() >= s.cfg.WarmupOperations {
		if s.warming.CompareAndSwap(true, false) {
			s.measuredStart.Store(now)
			s.keepMeasuredLength(now)
		}
		return false
	}
	return true
}
