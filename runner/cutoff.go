package runner

// The run's end: the operations in flight cut off at the window's end,
// and the ones a paced run never issued.

import (
	"sync/atomic"

	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/workload"
)

// inFlight is one worker's operation in flight, on cache lines of its
// own: written twice per operation, it would otherwise bounce between the
// cores of neighbouring workers (two workers ran 40% slower).
type inFlight struct {
	_ [64]byte
	// v is 1 + the series of the operation the driver is running, 0
	// between operations.
	v atomic.Int32
	// since is when the operation in flight was due (its start in a
	// closed loop).
	since atomic.Int64
	// due is when the worker's next operation not yet issued is due,
	// every the pacing interval: under a target rate, the operations
	// due from then to the window's end and never issued are cut off
	// (runner.cutOff). 0 in a closed loop.
	due, every atomic.Int64
	_          [36]byte
}

// cutOff records, at their latency so far to the window's end, the
// operations that were due in the measured window and had not completed
// when it closed: the one each left-behind worker's driver is still in
// (its own record, should the driver ever return, comes after the final
// collection and is lost), and under a target rate those its schedule
// made due while it waited on the database and that it never issued.
// Without them, a stall at the very end of a run vanished: Redis paced
// at 1,000 ops/s and silent for the last 3 s of 6 read p99 1.0 ms over
// 2,997 operations, the other 3,000 in no count. The operations whose
// driver returned cut short recorded themselves (workerState.record).
func (s *run) cutOff(end int64) {
	if s.warming.Load() {
		return // nothing was measured
	}
	from := s.measuredStart.Load()
	mix := newMix(s.wl.OperationWeights(), s.cfg.Phase)
	for i := range s.workers {
		h := s.mainRec.Handle(i)
		if !s.exited[i].Load() {
			if series := s.inFlight[i].v.Load() - 1; series >= 0 {
				h.RecordAborted(int(series))
				s.cutOffAt(h, int(series), s.inFlight[i].since.Load())
			}
		}
		due, every := s.inFlight[i].due.Load(), s.inFlight[i].every.Load()
		if due <= 0 || every <= 0 || due >= end {
			continue
		}
		if due < from { // due in the warm-up: the first due in the window
			due += (from - due + every - 1) / every * every
		}
		recordUnissued(h, mix, due, every, end)
	}
}

// cutOffAt records one operation due at since that the stop cut short,
// at its latency to the window's end (from its due time, which may lie
// in the warm-up: its latency is its own).
func (s *run) cutOffAt(h measure.Handle, series int, since int64) {
	end := s.stopMono.Load()
	if end == 0 || s.warming.Load() {
		return
	}
	h.RecordCutOff(series, end-since, 1)
}

// recordUnissued records the operations due at due, due+every ... before
// end, each at end - its due time, their kinds drawn in turn from mix.
func recordUnissued(h measure.Handle, mix *mix, due, every, end int64) {
	n := (end - due + every - 1) / every
	group := max(n/unissuedBatch, 1)
	for k := int64(0); k < n; k += group {
		g := min(group, n-k)
		// the group's mean due time
		at := due + (k+(g-1)/2)*every
		h.RecordCutOff(mix.next(), end-at, g)
	}
}

// mix hands out operation kinds in the proportions of the workload's
// mix, deterministically (smooth weighted round-robin): the kinds of
// operations that were due but never drawn.
type mix struct {
	weights, credit []float64
	total           float64
}

func newMix(weights []float64, phase Phase) *mix {
	if phase != Transactions {
		weights = make([]float64, len(weights))
		weights[workload.Insert] = 1
	}
	m := &mix{weights: weights, credit: make([]float64, len(weights))}
	for _, w := range weights {
		m.total += max(w, 0)
	}
	return m
}

// next returns the next kind's series.
func (m *mix) next() int {
	if m.total <= 0 {
		return int(workload.Read)
	}
	best := -1
	for i, w := range m.weights {
		if w <= 0 {
			continue
		}
		m.credit[i] += w
		if best < 0 || m.credit[i] > m.credit[best] {
			best = i
		}
	}
	m.credit[best] -= m.total
	return best
}
