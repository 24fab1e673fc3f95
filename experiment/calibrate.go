package experiment

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/analysis/saturation"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/trial"
)

// The calibration behind run.threads: auto: a warm-up until steady at
// calibrationWarmThreads (a ramp on a cold JVM measures its warm-up:
// Cassandra on one core, ramped straight after its load, read 1,048
// ops/s at 2 workers, 857 at 4, 338 at 32 and 2,939 at 64; warmed
// first, it rose steadily from 929 at 1 to 3,865 at 64), then a ramp of closed-loop workers doubling from 1, each count
// held for calibrationStage, the first calibrationSettle of each left
// out (workers joining, sessions opening): two seconds measured, where
// one (a 1.5-second stage) read 13,549 ops/s for 16 workers on one of
// two identical PostgreSQL and 18,222 on the other, and chose 8 and 16. The ramp stops once two
// doublings in a row added under 5%, or at maxCalibrationThreads, and
// chooses the fewest workers that reached calibrationShare of the most
// throughput seen: the database is then as busy as more workers would
// make it, without the queueing more workers would add to every
// latency.
const (
	calibrationWarmThreads = 8
	calibrationWarmMax     = 20 * time.Second
	calibrationStage       = 2500 * time.Millisecond
	calibrationInterval    = 250 * time.Millisecond
	calibrationSettle      = 500 * time.Millisecond
	maxCalibrationThreads  = 64
	calibrationShare       = 0.95
	calibrationFlatGain    = 0.05
	calibrationFlatSteps   = 2
)

// calibrationStages is the ramp: 1, 2, 4 ... maxCalibrationThreads.
func calibrationStages() []runner.Stage {
	var out []runner.Stage
	for n := 1; n <= maxCalibrationThreads; n *= 2 {
		out = append(out, runner.Stage{Duration: calibrationStage, Threads: n})
	}
	return out
}

// calibrate runs the ramp on the target with the workload and settings
// of its first run st, records it in the manifest and returns the
// threads chosen. Nothing of it goes into the trials: it only chooses.
func (tr *targetRun) calibrate(ctx context.Context, st *spec.Step) (int, error) {
	if st == nil { // the plan refuses this; a guard for other callers
		return 0, errors.New("no run that leaves the data as loaded to calibrate on")
	}
	warmup := fmt.Sprintf("a warm-up until steady (%d workers, at most %s), then ", calibrationWarmThreads, calibrationWarmMax)
	if tr.prewarmed {
		warmup = "warm from the target's warm-up: "
	}
	fmt.Fprintf(tr.s.opts.Stderr, "dbarena: %s: calibrating threads on workload %s: %s1, 2, 4 ... up to %d workers, %s each, until two doublings add under %.0f%%\n",
		tr.t.Name, st.Workload.Name, warmup, maxCalibrationThreads, calibrationStage, 100*calibrationFlatGain)
	r, err := tr.runRamp(ctx, st, calibrationStages(), !tr.prewarmed)
	if err != nil {
		return 0, err
	}
	cal, err := r.choose(st.Workload.Name)
	if err != nil {
		return 0, fmt.Errorf("calibrate threads on %s: %w", st.ID, err)
	}
	tr.s.mu.Lock()
	tr.s.manifest.Targets[tr.index].Calibration = cal
	tr.s.mu.Unlock()
	fmt.Fprintf(tr.s.opts.Stderr, "dbarena: %s: %s\n", tr.t.Name, describeCalibration(cal))
	return cal.Threads, nil
}

// runRamp runs stages on tr with the workload and settings of st,
// after a warm-up until steady where warm is set, and returns what the
// ramp measured. A ramp from 1 worker stops once its throughput is flat.
func (tr *targetRun) runRamp(ctx context.Context, st *spec.Step, stages []runner.Stage, warm bool) (*ramp, error) {
	p, err := tr.prepare(ctx, st, override{settings: func(set *trial.Settings) {
		c := &set.Run
		c.Threads, c.Target, c.Stages = stages[len(stages)-1].Threads, 0, stages
		c.WarmupTime, c.WarmupOperations, c.WarmupSteady = 0, 0, false
		c.OperationCount, c.MaxExecutionTime = 0, 0
		c.Interval = calibrationInterval
	}})
	if err != nil {
		return nil, fmt.Errorf("calibrate threads on %s: %w", st.ID, err)
	}
	defer p.Close()
	tr.watchDatabase(ctx, p)
	if warm {
		w := p.Settings.Run
		w.Threads, w.Stages = calibrationWarmThreads, nil
		w.WarmupTime, w.WarmupSteady = calibrationWarmMax, true
		w.MaxExecutionTime, w.Interval = calibrationWarmMax+time.Second, time.Second
		w.Abort = tr.s.opts.Abort
		if _, err := runner.Run(ctx, w, p.Workload, p.DB); err != nil && ctx.Err() == nil {
			return nil, fmt.Errorf("calibrate threads on %s: warm-up: %w", st.ID, err)
		}
	}
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	// Only a ramp from its start judges flatness: a ramp measured on
	// holds every count it was given.
	r := &ramp{stages: stages, stop: stop, keepOn: stages[0].Threads > 1}
	cfg := p.Settings.Run
	cfg.Abort = tr.s.opts.Abort
	if _, err := runner.Run(rctx, cfg, p.Workload, p.DB, r); err != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("calibrate threads on %s: %w", st.ID, err)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return r, nil
}

// extendCalibration measures tr's ramp on from where its flat rule
// stopped it up to n workers, the count another target's calibration
// chose: without those points no count can be shown to suit both (a
// Redis A/A pair's ramps chose 4 workers, stopping at 16, and 64), and
// each target would run its own, their latencies read at different
// concurrencies. The points are added to tr's calibration, which keeps
// its choice.
func (tr *targetRun) extendCalibration(ctx context.Context, st *spec.Step, n int) error {
	cal := tr.s.calibrationOf(tr)
	if cal == nil || len(cal.Points) == 0 {
		return nil
	}
	var stages []runner.Stage
	for m := 2 * cal.Points[len(cal.Points)-1].Threads; m <= min(n, maxCalibrationThreads); m *= 2 {
		stages = append(stages, runner.Stage{Duration: calibrationStage, Threads: m})
	}
	if len(stages) == 0 {
		return nil
	}
	fmt.Fprintf(tr.s.opts.Stderr, "dbarena: %s: calibration measured on to %d workers, the count another target's chose, to find one count that suits every target\n",
		tr.t.Name, n)
	r, err := tr.runRamp(ctx, st, stages, false)
	if err != nil {
		return err
	}
	pts := r.points()
	if len(pts) == 0 {
		return fmt.Errorf("calibrate threads on %s: the ramp measured on measured no stage (each needs %s)", st.ID, calibrationStage)
	}
	tr.s.mu.Lock()
	cal.Points = append(cal.Points, pts...)
	cal.Extended += len(pts)
	tr.s.mu.Unlock()
	fmt.Fprintf(tr.s.opts.Stderr, "dbarena: %s: %s\n", tr.t.Name, describeCalibration(cal))
	return nil
}

// describeCalibration says "1 thread 3,100 ops/s, 2 6,000 ... : 8
// threads, the fewest reaching 95% of the most (17,300 ops/s)".
func describeCalibration(c *results.Calibration) string {
	var parts []string
	most := 0.0
	for _, pt := range c.Points {
		parts = append(parts, fmt.Sprintf("%d: %.0f ops/s", pt.Threads, pt.Throughput))
		most = max(most, pt.Throughput)
	}
	return fmt.Sprintf("threads %s; chose %d, the fewest reaching %.0f%% of the most (%.0f ops/s)",
		strings.Join(parts, ", "), c.Threads, 100*c.Share, most)
}

// ramp observes the calibration run: each stage's operations, time and
// latency after its settling, and stops the run once the throughput is
// flat.
type ramp struct {
	stages []runner.Stage
	stop   func()
	// first is when each stage's first interval began.
	first   map[int]time.Time
	ok      map[int]int64
	secs    map[int]float64
	hist    map[int]*hdrhistogram.Histogram
	judged  int  // stages whose throughput the flat rule has seen
	stopped bool // the rule stopped the ramp
	keepOn  bool // measure every stage: the flat rule does not apply
}

// Interval implements runner.Observer.
func (r *ramp) Interval(iv *runner.Interval) {
	if iv.Warmup || iv.Stage < 0 || iv.Stage >= len(r.stages) {
		return
	}
	if r.first == nil {
		r.first, r.ok, r.secs, r.hist = map[int]time.Time{}, map[int]int64{}, map[int]float64{}, map[int]*hdrhistogram.Histogram{}
	}
	if _, ok := r.first[iv.Stage]; !ok {
		r.first[iv.Stage] = iv.Start
		// The stages before this one are whole: once the throughput
		// is flat, this one is not measured.
		for !r.keepOn && r.judged < iv.Stage {
			r.judged++
			if saturation.Saturated(r.rates(r.judged), calibrationFlatGain, calibrationFlatSteps) {
				r.stop()
				r.stopped = true
			}
		}
	}
	if r.stopped || iv.Start.Sub(r.first[iv.Stage]) < calibrationSettle || iv.Final {
		return
	}
	if r.hist[iv.Stage] == nil {
		r.hist[iv.Stage] = measure.NewHistogram()
	}
	for i := range iv.Results {
		s := &iv.Results[i]
		r.ok[iv.Stage] += s.OK()
		r.hist[iv.Stage].Merge(s.Service)
	}
	r.secs[iv.Stage] += iv.End.Sub(iv.Start).Seconds()
}

// rates are the throughputs of the first n stages measured.
func (r *ramp) rates(n int) []float64 {
	var xs []float64
	for i := 0; i < n; i++ {
		if r.secs[i] > 0 {
			xs = append(xs, float64(r.ok[i])/r.secs[i])
		}
	}
	return xs
}

// points are the stages measured, in order, up to the first that was
// not.
func (r *ramp) points() []results.CalibrationPoint {
	var out []results.CalibrationPoint
	for i, sg := range r.stages {
		if r.secs[i] <= 0 {
			break
		}
		p99 := 0.0
		if h := r.hist[i]; h != nil && h.TotalCount() > 0 {
			p99 = float64(h.ValueAtQuantile(99)) / 1e3
		}
		out = append(out, results.CalibrationPoint{Threads: sg.Threads, Throughput: float64(r.ok[i]) / r.secs[i], P99: p99})
	}
	return out
}

// choose picks the threads from the stages measured.
func (r *ramp) choose(workload string) (*results.Calibration, error) {
	cal := &results.Calibration{Workload: workload, Share: calibrationShare, Points: r.points()}
	var pts []saturation.Point
	for _, p := range cal.Points {
		pts = append(pts, saturation.Point{N: float64(p.Threads), X: p.Throughput})
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("the ramp measured no stage (each needs %s)", calibrationStage)
	}
	i, err := saturation.Enough(pts, calibrationShare)
	if err != nil {
		return nil, err
	}
	if pts[i].X <= 0 {
		return nil, fmt.Errorf("no operation succeeded in the ramp")
	}
	cal.Threads = int(pts[i].N)
	return cal, nil
}

// calibrationOf is the calibration recorded for tr (nil: none).
func (s *runState) calibrationOf(tr *targetRun) *results.Calibration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.manifest.Targets[tr.index].Calibration
}
