package runner

import (
	"context"
	"math/rand/v2"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/record"
	"github.com/dbarena/dbarena/workload"
)

// workerState is one worker's loop state.
type workerState struct {
	s       *run
	id      int
	sess    driver.Session
	wk      *workload.Worker
	main    measure.Handle
	warm    measure.Handle
	integ   bool
	readBuf record.Record
	scanBuf []record.Record
	// batch collects load inserts when the driver batches them.
	batch *batch
	// retryRand jitters insert retry waits, as YCSB does, so retrying
	// workers do not hit the database in lockstep.
	retryRand *rand.Rand
}

// quota returns how many measured operations worker id performs: YCSB
// splits operationcount evenly, the first workers taking the remainder.
func quota(total int64, threads, id int) int64 {
	if total <= 0 {
		return 0
	}
	q := total / int64(threads)
	if int64(id) < total%int64(threads) {
		q++
	}
	return q
}

func (s *run) worker(ctx context.Context, id int) {
	w := &workerState{
		s: s, id: id, sess: s.sessions[id], wk: s.workers[id],
		main:      s.mainRec.Handle(id),
		integ:     s.wl.Config().DataIntegrity,
		retryRand: rand.New(rand.NewPCG(s.cfg.Seed, uint64(id)+1<<32)),
	}
	if s.warmRec != nil {
		w.warm = s.warmRec.Handle(id)
	}
	if bi, ok := w.sess.(driver.BatchInserter); ok && s.cfg.Phase == Load && s.cfg.BatchSize > 1 {
		w.batch = newBatch(bi, s.cfg.BatchSize)
		defer w.flushBatch(ctx, w.main)
	}
	clk := s.cfg.Clock
	// limit < 0: no operation bound. A worker whose share of a small
	// operationcount is zero does nothing.
	limit := int64(-1)
	if s.cfg.Phase == Transactions && s.cfg.OperationCount > 0 {
		if limit = quota(s.cfg.OperationCount, s.cfg.Threads, id); limit == 0 {
			return
		}
	}
	var interval, next float64
	if s.cfg.Target > 0 {
		// Each worker takes an equal share of the rate; their schedules are
		// staggered so that the aggregate arrivals are evenly spaced.
		interval = float64(s.cfg.Threads) * 1e9 / s.cfg.Target
		next = float64(s.startMono) + float64(id)*interval/float64(s.cfg.Threads)
	}
	var measured int64
	stage := -1
	// carry is the new stage's schedule, waiting while this worker sends
	// the requests the last stage made due before the boundary: they
	// keep their intended times, so a spike's backlog is measured where
	// it is worked off instead of vanishing at the boundary.
	var carry *stageSchedule
	for !s.stop.Load() {
		if len(s.stageStarts) > 0 {
			now := clk.Now()
			i := s.stageAt(now)
			st := s.cfg.Stages[i]
			behind := stage >= 0 && stage != i && interval > 0 && next < float64(s.stageStarts[i])
			if id >= st.Threads && !behind {
				// Not needed in this stage: park until it ends, and lose
				// the schedule, so that coming back is not a backlog. A
				// worker still behind the last stage's schedule first
				// sends what that stage made due (below), then parks.
				stage, carry = -1, nil
				if clk.SleepUntil(s.stageEnd(i), s.done) {
					return
				}
				if s.deadline > 0 && clk.Now() >= s.deadline {
					s.halt("schedule completed")
					return
				}
				continue
			}
			if i != stage && !(id >= st.Threads) {
				// A new stage paces from its own start (or from now, for
				// a worker that just woke): a slower rate has no idle gap
				// counted as latency. A worker still behind the last
				// stage's schedule first sends what was due before the
				// boundary, at the old pace and intended times.
				sched := stageSchedule{}
				if st.Target > 0 {
					// The first stage paces the warm-up too: it leads
					// into the schedule rather than idling before it.
					from := s.stageStarts[i]
					if i == 0 {
						from = s.startMono
					}
					sched.interval = float64(st.Threads) * 1e9 / st.Target
					sched.next = float64(max(now, from)) + float64(id)*sched.interval/float64(st.Threads)
				}
				if stage >= 0 && interval > 0 && next < float64(s.stageStarts[i]) {
					// The new stage's arrivals begin at the boundary all
					// the same.
					sched.after = float64(s.stageStarts[i])
					if sched.interval > 0 {
						sched.next = sched.after + float64(id)*sched.interval/float64(st.Threads)
					}
					carry = &sched
				} else {
					interval, next, carry = sched.interval, sched.next, nil
				}
				stage = i
			}
			if carry != nil && next >= carry.after {
				interval, next, carry = carry.interval, carry.next, nil
			}
		}
		var op *workload.Operation
		if s.cfg.Phase != Transactions {
			if op = w.wk.NextInsert(); op == nil {
				return
			}
		} else {
			op = w.wk.NextTransaction()
		}
		var intended int64
		if interval > 0 {
			intended = int64(next)
			next += interval
			if clk.Now() < intended && clk.SleepUntil(intended, s.done) {
				w.wk.Done(op)
				return
			}
		}
		start := clk.Now()
		if s.deadline > 0 && start >= s.deadline {
			w.wk.Done(op)
			s.halt("maxexecutiontime reached")
			return
		}
		if intended == 0 {
			intended = start
		}
		warm := s.inWarmup(start)
		h := w.main
		if warm {
			h = w.warm
		}
		w.exec(ctx, op, h, intended, start)
		if warm {
			s.warmOps.Add(1)
			continue
		}
		measured++
		if limit >= 0 && measured >= limit {
			return
		}
	}
}

// record measures one finished call.
func (w *workerState) record(h measure.Handle, series int, err error, intended, start, end int64, f measure.Flags) {
	response := end - intended
	if err != nil {
		h.RecordError(series, string(driver.Classify(err)), response, f)
		return
	}
	if start-intended > int64(w.s.cfg.LateThreshold) {
		f |= measure.Late
	}
	h.Record(series, end-start, response, f)
}

func (w *workerState) exec(ctx context.Context, op *workload.Operation, h measure.Handle, intended, start int64) {
	clk := w.s.cfg.Clock
	var err error
	switch {
	case w.s.cfg.Phase == Verify:
		w.verifyRecord(ctx, op, h, intended, start)
		return
	case w.batch != nil:
		w.addToBatch(ctx, op, h)
		return
	}
	switch op.Kind {
	case workload.Read:
		w.readBuf, err = w.sess.Read(ctx, op.Table, op.Key, op.Fields, w.readBuf)
		end := clk.Now()
		w.record(h, int(workload.Read), err, intended, start, end, 0)
		if err == nil && w.integ {
			w.verify(h, op.Key, w.readBuf, end)
		}
	case workload.Update:
		err = w.sess.Update(ctx, op.Table, op.Key, op.Values)
		w.record(h, int(workload.Update), err, intended, start, clk.Now(), 0)
	case workload.Insert:
		w.insert(ctx, op, h, intended, start)
	case workload.Scan:
		w.scanBuf, err = w.sess.Scan(ctx, op.Table, op.Key, op.ScanCount, op.Fields, w.scanBuf)
		w.record(h, int(workload.Scan), err, intended, start, clk.Now(), 0)
	case workload.Delete:
		err = w.sess.Delete(ctx, op.Table, op.Key)
		w.record(h, int(workload.Delete), err, intended, start, clk.Now(), 0)
	case workload.ReadModifyWrite:
		w.readModifyWrite(ctx, op, h, intended, start)
	}
}

// readModifyWrite reads then updates one record. As in YCSB the READ and
// UPDATE are also recorded on their own; the READ's response time runs
// from the intended start, the UPDATE's from the end of the read.
func (w *workerState) readModifyWrite(ctx context.Context, op *workload.Operation, h measure.Handle, intended, start int64) {
	clk := w.s.cfg.Clock
	var err error
	w.readBuf, err = w.sess.Read(ctx, op.Table, op.Key, op.Fields, w.readBuf)
	readEnd := clk.Now()
	w.record(h, int(workload.Read), err, intended, start, readEnd, measure.Sub)
	if err == nil && w.integ {
		w.verify(h, op.Key, w.readBuf, readEnd)
	}
	if err == nil {
		updStart := clk.Now()
		err = w.sess.Update(ctx, op.Table, op.Key, op.Values)
		w.record(h, int(workload.Update), err, updStart, updStart, clk.Now(), measure.Sub)
	}
	w.record(h, int(workload.ReadModifyWrite), err, intended, start, clk.Now(), 0)
}

// insert performs an insert, retrying a failed load insert up to the
// configured limit. Every attempt is measured.
func (w *workerState) insert(ctx context.Context, op *workload.Operation, h measure.Handle, intended, start int64) {
	clk := w.s.cfg.Clock
	defer w.wk.Done(op)
	var f measure.Flags
	for attempt := 0; ; attempt++ {
		err := w.sess.Insert(ctx, op.Table, op.Key, op.Values)
		w.record(h, int(workload.Insert), err, intended, start, clk.Now(), f)
		// Retries are measured but the insert counts once.
		f = measure.Sub
		if err == nil || w.s.cfg.Phase != Load || attempt >= w.s.cfg.InsertRetryLimit || w.s.stop.Load() {
			return
		}
		wait := float64(w.s.cfg.InsertRetryInterval) * (0.8 + 0.4*w.retryRand.Float64())
		if clk.SleepUntil(clk.Now()+int64(wait), w.s.done) {
			return
		}
		start = clk.Now()
		intended = start
	}
}

// verify checks a read record against its dataintegrity values and counts
// the outcome in the VERIFY series, as YCSB does.
func (w *workerState) verify(h measure.Handle, key string, rec record.Record, start int64) {
	_, ok := w.wk.Verify(key, rec)
	end := w.s.cfg.Clock.Now()
	if !ok {
		h.RecordError(seriesVerify, "UNEXPECTED_STATE", end-start, measure.Sub)
		return
	}
	h.Record(seriesVerify, end-start, end-start, measure.Sub)
}

// verifyRecord reads back one loaded record and checks it: a missing
// record is a READ error of class NOT_FOUND; a record whose field count or
// values differ from what the load wrote is a VERIFY UNEXPECTED_STATE.
// Without dataintegrity the values are random, so only the fields' presence
// and, for constant field lengths, their lengths can be checked.
func (w *workerState) verifyRecord(ctx context.Context, op *workload.Operation, h measure.Handle, intended, start int64) {
	defer w.wk.Done(op)
	var err error
	w.readBuf, err = w.sess.Read(ctx, op.Table, op.Key, nil, w.readBuf)
	end := w.s.cfg.Clock.Now()
	w.record(h, int(workload.Read), err, intended, start, end, 0)
	if err != nil {
		return
	}
	ok := len(w.readBuf) == len(op.Values)
	if ok && w.integ {
		_, ok = w.wk.Verify(op.Key, w.readBuf)
	} else if ok {
		constant := w.s.wl.Config().FieldLengthDistribution == workload.DistConstant
		for _, f := range op.Values {
			got, found := w.readBuf.Get(f.Name)
			if !found || (constant && len(got) != len(f.Value)) {
				ok = false
				break
			}
		}
	}
	done := w.s.cfg.Clock.Now()
	if !ok {
		h.RecordError(seriesVerify, "UNEXPECTED_STATE", done-end, measure.Sub)
		return
	}
	h.Record(seriesVerify, done-end, done-end, measure.Sub)
}

// stageSchedule is a stage's pacing for one worker: the interval
// between its requests (0: as fast as it can) and the next one's
// intended time, from after on.
type stageSchedule struct {
	interval, next, after float64
}
