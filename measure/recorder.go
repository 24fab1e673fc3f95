package measure

import (
	"fmt"
	"runtime"
	"sort"
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Options configures a Recorder.
type Options struct {
	// Series names the measured operation types ("READ", "UPDATE", ...). A
	// series is addressed by its index in this slice.
	Series []string
	// Workers is the number of goroutines that will record.
	Workers int
	// Stripes bounds the number of independent recording slots. Zero means
	// four per processor: contention comes from goroutines that run at the
	// same moment, which the processor count bounds, not the worker count.
	Stripes int
	// Intended records response time (from the intended start) apart from
	// service time. Only meaningful under a target rate.
	Intended bool
}

// Recorder collects latencies from many workers.
type Recorder struct {
	series   []string
	intended bool
	stripes  []stripe
	// cut says the stripes' spare sets hold an interval set aside by
	// Cut and not collected yet; only the collecting goroutine uses it.
	cut bool
}

// seriesSet is one stripe's histograms and counters for every series.
type seriesSet struct {
	service  []*hdrhistogram.Histogram
	response []*hdrhistogram.Histogram
	errLat   []*hdrhistogram.Histogram
	// pacing holds how late the harness itself started each paced
	// operation (see Handle.Pace).
	pacing  []*hdrhistogram.Histogram
	late    []int64
	top     []int64
	topErr  []int64
	aborted []int64
	// cutLat holds the latency so far of the operations cut off by the
	// end of the measured window (Handle.RecordCutOff).
	cutLat []*hdrhistogram.Histogram
	errors []map[string]int64
}

func newSeriesSet(n int) *seriesSet {
	return &seriesSet{
		service:  make([]*hdrhistogram.Histogram, n),
		response: make([]*hdrhistogram.Histogram, n),
		errLat:   make([]*hdrhistogram.Histogram, n),
		pacing:   make([]*hdrhistogram.Histogram, n),
		late:     make([]int64, n),
		top:      make([]int64, n),
		topErr:   make([]int64, n),
		aborted:  make([]int64, n),
		cutLat:   make([]*hdrhistogram.Histogram, n),
		errors:   make([]map[string]int64, n),
	}
}

// reset clears the set for reuse, keeping allocated histograms.
func (s *seriesSet) reset() {
	for i := range s.service {
		for _, h := range []*hdrhistogram.Histogram{s.service[i], s.response[i], s.errLat[i], s.pacing[i], s.cutLat[i]} {
			if h != nil {
				h.Reset()
			}
		}
		s.late[i] = 0
		s.top[i] = 0
		s.topErr[i] = 0
		s.aborted[i] = 0
		clear(s.errors[i])
	}
}

type stripe struct {
	mu     sync.Mutex
	active *seriesSet
	spare  *seriesSet
	// pad gives each stripe two cache lines of its own (adjacent-line
	// prefetch pairs them), so workers on different stripes never share one.
	_ [104]byte
}

// NewRecorder returns a recorder for the given series.
func NewRecorder(o Options) (*Recorder, error) {
	if len(o.Series) == 0 {
		return nil, fmt.Errorf("measure: no series to record")
	}
	n := o.Stripes
	if n <= 0 {
		n = 4 * runtime.GOMAXPROCS(0)
	}
	if o.Workers > 0 && o.Workers < n {
		n = o.Workers
	}
	r := &Recorder{series: append([]string(nil), o.Series...), intended: o.Intended, stripes: make([]stripe, n)}
	for i := range r.stripes {
		r.stripes[i].active = newSeriesSet(len(o.Series))
		r.stripes[i].spare = newSeriesSet(len(o.Series))
	}
	return r, nil
}

// Series returns the series names.
func (r *Recorder) Series() []string { return r.series }

// Intended reports whether response time is recorded apart from service time.
func (r *Recorder) Intended() bool { return r.intended }

// Handle returns the recording handle of a worker.
func (r *Recorder) Handle(worker int) Handle {
	if worker < 0 {
		worker = -worker
	}
	return Handle{s: &r.stripes[worker%len(r.stripes)], intended: r.intended}
}

// Handle records for one worker. It is a small value; copy it freely.
type Handle struct {
	s        *stripe
	intended bool
}

// Flags qualify a recorded operation.
type Flags uint8

const (
	// Late marks an operation issued behind its intended start by more
	// than the late threshold.
	Late Flags = 1 << iota
	// Sub marks a part of a composite operation (the READ inside a
	// READ-MODIFY-WRITE, a verification): it is measured in its series but
	// not counted again in the throughput.
	Sub
)

// Record records a successful operation of the given series. serviceNs runs
// from the actual start, responseNs from the intended start (equal in a
// closed loop).
func (h Handle) Record(series int, serviceNs, responseNs int64, f Flags) {
	s := h.s
	s.mu.Lock()
	a := s.active
	if f&Sub == 0 {
		a.top[series]++
	}
	hs := histAt(a.service, series)
	_ = hs.RecordValue(clampNs(serviceNs)) // in range by clampNs
	if h.intended {
		hr := histAt(a.response, series)
		_ = hr.RecordValue(clampNs(responseNs))
		if f&Late != 0 {
			a.late[series]++
		}
	}
	s.mu.Unlock()
}

// RecordError counts a failed operation by class and keeps its latency apart
// from successful ones, so that fast failures cannot flatter the results.
func (h Handle) RecordError(series int, class string, responseNs int64, f Flags) {
	s := h.s
	s.mu.Lock()
	a := s.active
	if f&Sub == 0 {
		a.top[series]++
		a.topErr[series]++
	}
	if a.errors[series] == nil {
		a.errors[series] = make(map[string]int64)
	}
	a.errors[series][class]++
	he := histAt(a.errLat, series)
	_ = he.RecordValue(clampNs(responseNs))
	s.mu.Unlock()
}

// RecordAborted counts an operation that the run's own stop cut short:
// it neither succeeded nor failed, and counts towards neither throughput
// nor errors.
func (h Handle) RecordAborted(series int) {
	s := h.s
	s.mu.Lock()
	s.active.aborted[series]++
	s.mu.Unlock()
}

// RecordCutOff records n operations of the series that were due in the
// measured window and had not completed when it closed: still in flight
// (the run's stop cut them short, or their driver never returned), or,
// under a target rate, never issued because the worker was still
// waiting on the database. soFarNs is each one's latency so far, from
// its intended start to the window's end: a lower bound, but a latency
// all the same, so a stall at the very end of a run shows in the
// percentiles instead of vanishing. It goes into the response time
// (when recorded) and into the series' cut-off latency; never into
// service time, throughput or errors.
func (h Handle) RecordCutOff(series int, soFarNs, n int64) {
	if n <= 0 {
		return
	}
	s := h.s
	s.mu.Lock()
	a := s.active
	hc := histAt(a.cutLat, series)
	_ = hc.RecordValues(clampNs(soFarNs), n) // in range by clampNs
	if h.intended {
		hr := histAt(a.response, series)
		_ = hr.RecordValues(clampNs(soFarNs), n)
	}
	s.mu.Unlock()
}

// Pace records how late the harness itself started a paced operation of
// the series: the time from when the operation was due, or from when its
// worker was free if that came later, to its start. It is the tool's
// own scheduling delay (timer wake-ups, the Go scheduler, a loaded
// machine), apart from the wait behind a slow database that response
// time already holds. Recorded only when the recorder measures response
// time.
func (h Handle) Pace(series int, latenessNs int64) {
	if !h.intended {
		return
	}
	s := h.s
	s.mu.Lock()
	hp := histAt(s.active.pacing, series)
	_ = hp.RecordValue(clampNs(latenessNs)) // in range by clampNs
	s.mu.Unlock()
}

// SeriesResult is what one series measured over some span of time.
type SeriesResult struct {
	Name string
	// Service holds latencies from the actual start of each operation.
	Service *hdrhistogram.Histogram
	// Response holds latencies from the intended start; nil in a closed loop.
	Response *hdrhistogram.Histogram
	// ErrorLatency holds the latencies of failed operations.
	ErrorLatency *hdrhistogram.Histogram
	// Pacing holds the harness's own lateness in starting paced
	// operations (Handle.Pace); nil in a closed loop.
	Pacing *hdrhistogram.Histogram
	// Late counts operations issued behind schedule.
	Late int64
	// Aborted counts operations the run's own stop cut short; they are
	// neither successes nor errors, and not in Counted.
	Aborted int64
	// CutOff holds the latency so far of every operation that was due in
	// the measured window and had not completed when it closed
	// (Handle.RecordCutOff): those Aborted counts and, under a target
	// rate, those never issued. Under a target rate Response holds them
	// too. nil until one is (a histogram is 260 kB, and most runs cut
	// off nothing).
	CutOff *hdrhistogram.Histogram
	// Counted is the number of operations of this series that count
	// towards throughput (those not recorded as a Sub part), and
	// CountedErrors how many of them failed.
	Counted, CountedErrors int64
	// Errors counts failed operations by class.
	Errors map[string]int64
}

// OK returns the number of successful operations.
func (s *SeriesResult) OK() int64 { return s.Service.TotalCount() }

// ErrorCount returns the number of failed operations.
func (s *SeriesResult) ErrorCount() int64 {
	var n int64
	for _, c := range s.Errors {
		n += c
	}
	return n
}

// Latency returns the histogram that answers "how long did users wait": the
// response time when it was recorded, service time otherwise, with the
// operations the window's end cut off at their latency so far (a copy
// then: the service time stays the completed operations').
func (s *SeriesResult) Latency() *hdrhistogram.Histogram {
	if s.Response != nil {
		return s.Response
	}
	if s.CutOff == nil || s.CutOff.TotalCount() == 0 {
		return s.Service
	}
	h := NewHistogram()
	mergeInto(h, s.Service)
	mergeInto(h, s.CutOff)
	return h
}

// CutOffCount is how many operations the window's end cut off.
func (s *SeriesResult) CutOffCount() int64 {
	if s.CutOff == nil {
		return 0
	}
	return s.CutOff.TotalCount()
}

// TotalCounted returns the number of operations in r that count towards
// throughput.
func (r Results) TotalCounted() int64 {
	var n int64
	for i := range r {
		n += r[i].Counted
	}
	return n
}

// TotalCountedErrors returns the number of operations in r that count
// towards throughput and failed.
func (r Results) TotalCountedErrors() int64 {
	var n int64
	for i := range r {
		n += r[i].CountedErrors
	}
	return n
}

// TotalAborted returns the number of operations the run's stop cut
// short, parts of composite operations included.
func (r Results) TotalAborted() int64 {
	var n int64
	for i := range r {
		n += r[i].Aborted
	}
	return n
}

// PacingHistogram returns every series' pacing lateness merged into one
// histogram, or nil when none was recorded (a closed loop).
func (r Results) PacingHistogram() *hdrhistogram.Histogram {
	var out *hdrhistogram.Histogram
	for i := range r {
		if r[i].Pacing == nil {
			continue
		}
		if out == nil {
			out = NewHistogram()
		}
		mergeInto(out, r[i].Pacing)
	}
	return out
}

// ErrorClasses returns the error classes in sorted order.
func (s *SeriesResult) ErrorClasses() []string {
	out := make([]string, 0, len(s.Errors))
	for c := range s.Errors {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// Results holds one SeriesResult per series, in series order.
type Results []SeriesResult

// NewResults returns empty results for the given series.
func NewResults(series []string, intended bool) Results {
	out := make(Results, len(series))
	for i, name := range series {
		out[i] = SeriesResult{Name: name, Service: NewHistogram(), ErrorLatency: NewHistogram(), Errors: map[string]int64{}}
		if intended {
			out[i].Response = NewHistogram()
			out[i].Pacing = NewHistogram()
		}
	}
	return out
}

// Merge adds o into r. Both must have the same series.
func (r Results) Merge(o Results) {
	for i := range r {
		mergeInto(r[i].Service, o[i].Service)
		mergeInto(r[i].ErrorLatency, o[i].ErrorLatency)
		mergeAlloc(&r[i].CutOff, o[i].CutOff)
		if r[i].Response != nil {
			mergeInto(r[i].Response, o[i].Response)
		}
		if r[i].Pacing != nil {
			mergeInto(r[i].Pacing, o[i].Pacing)
		}
		r[i].Late += o[i].Late
		r[i].Aborted += o[i].Aborted
		r[i].Counted += o[i].Counted
		r[i].CountedErrors += o[i].CountedErrors
		for c, n := range o[i].Errors {
			r[i].Errors[c] += n
		}
	}
}

// Reset empties r for reuse.
func (r Results) Reset() {
	for i := range r {
		r[i].Service.Reset()
		r[i].ErrorLatency.Reset()
		if r[i].CutOff != nil {
			r[i].CutOff.Reset()
		}
		if r[i].Response != nil {
			r[i].Response.Reset()
		}
		if r[i].Pacing != nil {
			r[i].Pacing.Reset()
		}
		r[i].Late = 0
		r[i].Aborted = 0
		r[i].Counted = 0
		r[i].CountedErrors = 0
		clear(r[i].Errors)
	}
}

// histAt returns hs[i], made on first use: a stripe's histograms exist
// only for the series it recorded.
func histAt(hs []*hdrhistogram.Histogram, i int) *hdrhistogram.Histogram {
	if hs[i] == nil {
		hs[i] = NewHistogram()
	}
	return hs[i]
}

// mergeAlloc merges src into *dst, making *dst on src's first counts: for
// a histogram kept nil until something is recorded in it.
func mergeAlloc(dst **hdrhistogram.Histogram, src *hdrhistogram.Histogram) {
	if src == nil || src.TotalCount() == 0 {
		return
	}
	if *dst == nil {
		*dst = NewHistogram()
	}
	(*dst).Merge(src)
}

func mergeInto(dst, src *hdrhistogram.Histogram) {
	if src != nil && src.TotalCount() > 0 {
		dst.Merge(src)
	}
}

// Cut ends the interval being recorded: every stripe's contents are set
// aside for the next Collect, and what workers record from then on goes
// to the interval after. All stripes are swapped first and merged only
// in Collect, so the interval ends at one moment for every worker
// (microseconds apart, a lock each), not once per stripe with the
// merging of the stripes before it in between. A caller that collects
// several recorders cuts them all, reads the clock, and only then
// collects: the interval then holds exactly what completed before its
// end, however long the merging and the observers take. A Cut while an
// earlier one was not collected yet does nothing. Cut and Collect are
// called by one goroutine at a time.
func (r *Recorder) Cut() {
	if r.cut {
		return
	}
	for i := range r.stripes {
		st := &r.stripes[i]
		st.mu.Lock()
		st.active, st.spare = st.spare, st.active
		st.mu.Unlock()
	}
	r.cut = true
}

// Collect moves the interval the last Cut set aside (cutting now when
// none is pending) into dst, which must come from NewResults with this
// recorder's series and mode. Workers keep recording while it runs:
// each stripe was locked only to swap its histograms.
func (r *Recorder) Collect(dst Results) {
	r.Cut()
	for i := range r.stripes {
		// spare is owned by the collector alone since the cut.
		sp := r.stripes[i].spare
		for j := range dst {
			mergeInto(dst[j].Service, sp.service[j])
			mergeInto(dst[j].ErrorLatency, sp.errLat[j])
			mergeAlloc(&dst[j].CutOff, sp.cutLat[j])
			if dst[j].Response != nil {
				mergeInto(dst[j].Response, sp.response[j])
			}
			if dst[j].Pacing != nil {
				mergeInto(dst[j].Pacing, sp.pacing[j])
			}
			dst[j].Late += sp.late[j]
			dst[j].Aborted += sp.aborted[j]
			dst[j].Counted += sp.top[j]
			dst[j].CountedErrors += sp.topErr[j]
			for c, n := range sp.errors[j] {
				dst[j].Errors[c] += n
			}
		}
		sp.reset()
	}
	r.cut = false
}
