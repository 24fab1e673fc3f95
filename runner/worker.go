package runner

import (
	"math/rand/v2"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/clock"
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
	timer   clock.Timer
	main    measure.Handle
	warm    measure.Handle
	integ   bool
	readBuf record.Record
	scanBuf []record.Record
	// batch collects load inserts when the driver batches them.
	batch *batch
	// kind is the workload kind's part of the worker (nil for core
	// YCSB's): a ledger's transfers, a TPC-C terminal.
	kind kindWorker
	// retryRand jitters insert retry waits, as YCSB does, so retrying
	// workers do not hit the database in lockstep.
	retryRand *rand.Rand
	// warming says the operation running now is the warm-up's.
	warming bool
}

// schedule is one worker's pacing: the interval between its requests
// (0: as fast as it can) and the next one's intended time, and under a
// schedule of stages the stage it paces for.
type schedule struct {
	interval, next float64
	// stage is the stage the pacing is for, -1 when none (yet).
	stage int
	// carry is the new stage's schedule, waiting while this worker sends
	// the requests the last stage made due before the boundary: they
	// keep their intended times, so a spike's backlog is measured where
	// it is worked off instead of vanishing at the boundary.
	carry *stageSchedule
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

func (s *run) worker(id int) {
	w := s.newWorker(id)
	if w.batch != nil {
		defer w.flushBatch(w.main)
	}
	limit := s.quotaOf(id)
	if limit == 0 {
		return
	}
	sc := s.scheduleOf(id)
	clk := s.cfg.Clock
	var measured int64
	// free is when this worker finished its last operation: a paced
	// operation due before then waited for the worker, not for the
	// harness.
	var free int64
	for !s.stop.Load() {
		if len(s.stageStarts) > 0 && !w.followStages(&sc) {
			return
		}
		op, intended, ok := w.next(&sc)
		if !ok {
			return
		}
		start := clk.Now()
		if d := s.deadline.Load(); d > 0 && start >= d {
			w.wk.Done(op)
			s.halt(reasonTimeLimit, byLimit)
			return
		}
		warm := s.inWarmup(start)
		h := w.main
		if warm {
			h = w.warm
		}
		if intended == 0 {
			intended = start
			s.inFlight[id].due.Store(0) // not paced (any more)
		} else {
			h.Pace(int(op.Kind), start-max(intended, free))
			s.inFlight[id].due.Store(int64(sc.next))
		}
		s.inFlight[id].since.Store(intended)
		w.warming = warm
		w.exec(op, h, intended, start)
		if sc.interval > 0 {
			free = clk.Now()
		}
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

// newWorker is worker id's state: its session, workload state, timer,
// histogram handles and, for a batched load, its batch.
func (s *run) newWorker(id int) *workerState {
	w := &workerState{
		s: s, id: id, sess: s.sessions[id], wk: s.workers[id], timer: s.timers[id],
		main:      s.mainRec.Handle(id),
		integ:     s.wl.Config().DataIntegrity,
		retryRand: rand.New(rand.NewPCG(s.cfg.Seed, uint64(id)+1<<32)),
	}
	if s.warmRec != nil {
		w.warm = s.warmRec.Handle(id)
	}
	w.kind = s.kinds[id]
	if bi, ok := w.sess.(driver.BatchInserter); ok && s.cfg.Phase == Load && s.cfg.BatchSize > 1 {
		w.batch = newBatch(bi, s.cfg.BatchSize)
		s.batched.Store(true)
	}
	return w
}

// quotaOf is how many measured operations worker id runs: -1 for no
// bound. A worker whose share of a small operationcount is zero does
// nothing.
func (s *run) quotaOf(id int) int64 {
	if s.cfg.Phase == Transactions && s.cfg.OperationCount > 0 {
		return quota(s.cfg.OperationCount, s.cfg.Threads, id)
	}
	return -1
}

// scheduleOf is worker id's pacing at the run's target rate, if any: an
// equal share of the rate, the workers' schedules staggered so that the
// aggregate arrivals are evenly spaced.
func (s *run) scheduleOf(id int) schedule {
	sc := schedule{stage: -1}
	if s.cfg.Target > 0 {
		sc.interval = float64(s.cfg.Threads) * 1e9 / s.cfg.Target
		sc.next = float64(s.startMono) + float64(id)*sc.interval/float64(s.cfg.Threads)
	}
	return sc
}

// next draws the worker's next operation and, when paced, waits until
// it is due. intended is when it was due (0 when not paced). ok is
// false when the worker is done: its inserts ran out, or the run
// stopped (no operation starts after the stop, also when it came
// during the wait).
func (w *workerState) next(sc *schedule) (op *workload.Operation, intended int64, ok bool) {
	s := w.s
	if s.cfg.Phase != Transactions {
		if op = w.wk.NextInsert(); op == nil {
			return nil, 0, false
		}
	} else {
		op = w.wk.NextTransaction()
	}
	if sc.interval > 0 {
		intended = int64(sc.next)
		sc.next += sc.interval
		// Until it is issued, this one is the first not issued.
		s.inFlight[w.id].due.Store(intended)
		s.inFlight[w.id].every.Store(int64(sc.interval))
		if s.cfg.Clock.Now() < intended && w.timer.SleepUntil(intended) {
			w.wk.Done(op)
			return nil, 0, false
		}
	}
	if s.stop.Load() {
		w.wk.Done(op)
		return nil, 0, false
	}
	return op, intended, true
}

// followStages brings the worker's schedule to the stage running now,
// parking the worker through the stages that do not need it. It returns
// false when the run is over.
func (w *workerState) followStages(sc *schedule) bool {
	s, id, clk := w.s, w.id, w.s.cfg.Clock
	for {
		now := clk.Now()
		i := s.stageAt(now)
		st := s.cfg.Stages[i]
		behind := sc.stage >= 0 && sc.stage != i && sc.interval > 0 && sc.next < float64(s.stageStarts[i])
		if id >= st.Threads && !behind {
			// Not needed in this stage: park until it ends, and lose
			// the schedule, so that coming back is not a backlog. A
			// worker still behind the last stage's schedule first sends
			// what that stage made due (below), then parks.
			sc.stage, sc.carry = -1, nil
			s.inFlight[id].due.Store(0)
			if w.timer.SleepUntil(s.stageEnd(i)) {
				return false
			}
			if d := s.deadline.Load(); d > 0 && clk.Now() >= d {
				s.halt("schedule completed", byLimit)
				return false
			}
			continue
		}
		if i != sc.stage && id < st.Threads {
			w.enterStage(sc, i, now)
		}
		if sc.carry != nil && sc.next >= sc.carry.after {
			sc.interval, sc.next, sc.carry = sc.carry.interval, sc.carry.next, nil
		}
		return true
	}
}

// enterStage paces a new stage from its own start (or from now, for a
// worker that just woke): a slower rate has no idle gap counted as
// latency. A worker still behind the last stage's schedule first sends
// what was due before the boundary, at the old pace and intended times.
func (w *workerState) enterStage(sc *schedule, i int, now int64) {
	s, id := w.s, w.id
	st := s.cfg.Stages[i]
	next := stageSchedule{}
	if st.Target > 0 {
		// The first stage paces the warm-up too: it leads into the
		// schedule rather than idling before it.
		from := s.stageStarts[i]
		if i == 0 {
			from = s.startMono
		}
		next.interval = float64(st.Threads) * 1e9 / st.Target
		next.next = float64(max(now, from)) + float64(id)*next.interval/float64(st.Threads)
	}
	if sc.stage >= 0 && sc.interval > 0 && sc.next < float64(s.stageStarts[i]) {
		// The new stage's arrivals begin at the boundary all the same.
		next.after = float64(s.stageStarts[i])
		if next.interval > 0 {
			next.next = next.after + float64(id)*next.interval/float64(st.Threads)
		}
		sc.carry = &next
	} else {
		sc.interval, sc.next, sc.carry = next.interval, next.next, nil
	}
	sc.stage = i
}

// begin marks the worker as waiting on its driver for an operation of
// the series (for a composite one, the whole's series); end clears it.
func (w *workerState) begin(series int) { w.s.inFlight[w.id].v.Store(int32(series) + 1) }
func (w *workerState) end()             { w.s.inFlight[w.id].v.Store(0) }

// record measures one finished call. A call that failed after the run's
// stop cancelled it was cut short by the run, not by the database: it
// counts as aborted, once for a composite operation.
func (w *workerState) record(h measure.Handle, series int, err error, intended, start, end int64, f measure.Flags) {
	response := end - intended
	if err != nil && w.s.opsCtx.Err() != nil {
		if f&measure.Sub == 0 {
			h.RecordAborted(series)
			// Its latency so far when the window closed, from the
			// later of its due time and the window's start.
			w.s.cutOffAt(h, series, intended)
		}
		return
	}
	if err != nil {
		h.RecordError(series, string(driver.Classify(err)), response, f)
		return
	}
	if start-intended > int64(w.s.cfg.LateThreshold) {
		f |= measure.Late
	}
	h.Record(series, end-start, response, f)
}

func (w *workerState) exec(op *workload.Operation, h measure.Handle, intended, start int64) {
	ctx, clk := w.s.opsCtx, w.s.cfg.Clock
	var err error
	switch {
	case w.s.cfg.Phase == Verify:
		w.verifyRecord(op, h, intended, start)
		return
	case w.kind != nil && w.kind.exec(w, op, h, intended, start):
		return
	case w.batch != nil:
		w.addToBatch(op, h)
		return
	}
	series := int(op.Kind)
	switch op.Kind {
	case workload.Read:
		w.begin(series)
		w.readBuf, err = w.sess.Read(ctx, op.Table, op.Key, op.Fields, w.readBuf)
		w.end()
		end := clk.Now()
		w.record(h, series, err, intended, start, end, 0)
		if err == nil && w.integ {
			w.verify(h, op.Key, w.readBuf, end)
		}
	case workload.Update:
		w.begin(series)
		err = w.sess.Update(ctx, op.Table, op.Key, op.Values)
		w.end()
		w.record(h, series, err, intended, start, clk.Now(), 0)
	case workload.Insert:
		w.insert(op, h, intended, start)
	case workload.Scan:
		w.begin(series)
		w.scanBuf, err = w.sess.Scan(ctx, op.Table, op.Key, op.ScanCount, op.Fields, w.scanBuf)
		w.end()
		w.record(h, series, err, intended, start, clk.Now(), 0)
	case workload.Delete:
		w.begin(series)
		err = w.sess.Delete(ctx, op.Table, op.Key)
		w.end()
		w.record(h, series, err, intended, start, clk.Now(), 0)
	case workload.ReadModifyWrite:
		w.readModifyWrite(op, h, intended, start)
	}
}

// readModifyWrite reads then updates one record. As in YCSB the READ and
// UPDATE are also recorded on their own; the READ's response time runs
// from the intended start, the UPDATE's from the end of the read.
func (w *workerState) readModifyWrite(op *workload.Operation, h measure.Handle, intended, start int64) {
	ctx, clk := w.s.opsCtx, w.s.cfg.Clock
	var err error
	w.begin(int(workload.ReadModifyWrite))
	defer w.end()
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
// configured limit. Every attempt is measured; the insert counts once,
// by its last attempt, so that an insert a retry saved is a success, and
// its response time runs from its intended start across the retries. An
// insert whose retry the run's stop cut short is aborted.
func (w *workerState) insert(op *workload.Operation, h measure.Handle, intended, start int64) {
	ctx, clk := w.s.opsCtx, w.s.cfg.Clock
	defer w.wk.Done(op)
	for attempt := 0; ; attempt++ {
		w.begin(int(workload.Insert))
		err := w.sess.Insert(ctx, op.Table, op.Key, op.Values)
		w.end()
		last := err == nil || w.s.cfg.Phase != Load || attempt >= w.s.cfg.InsertRetryLimit || w.s.stop.Load()
		f := measure.Sub
		if last {
			f = 0
		}
		w.record(h, int(workload.Insert), err, intended, start, clk.Now(), f)
		if last {
			return
		}
		wait := float64(w.s.cfg.InsertRetryInterval) * (0.8 + 0.4*w.retryRand.Float64())
		if w.timer.SleepUntil(clk.Now() + int64(wait)) {
			h.RecordAborted(int(workload.Insert))
			return
		}
		start = clk.Now()
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
func (w *workerState) verifyRecord(op *workload.Operation, h measure.Handle, intended, start int64) {
	defer w.wk.Done(op)
	var err error
	w.begin(int(workload.Read))
	w.readBuf, err = w.sess.Read(w.s.opsCtx, op.Table, op.Key, nil, w.readBuf)
	w.end()
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
