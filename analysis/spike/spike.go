// Package spike reads a scheduled run (stages of threads or target
// rate, such as 4 -> 404 -> 4 threads) for what a spike did to it: which
// stage was the spike, the stage before it as the baseline, and how long
// after the spike ended latency and throughput came back to that
// baseline: the recovery time.
package spike

import (
	"fmt"
	"time"
)

// Stage is one stage's settings and what it measured over all of it.
type Stage struct {
	Threads int
	// Target is the stage's rate (0: closed loop).
	Target float64
	// Rate is the measured throughput, P99Ms the stage's p99.
	Rate, P99Ms float64
}

// load is what a stage asks of the database: its rate when paced, else
// its threads.
func (s Stage) load(paced bool) float64 {
	if paced {
		return s.Target
	}
	return float64(s.Threads)
}

// Interval is one collection interval of the run.
type Interval struct {
	// Start is the interval's start since the run began.
	Start time.Duration
	// Stage is the stage's index, from 0.
	Stage int
	Rate  float64
	P99Ms float64
}

// Recovery is what the spike did.
type Recovery struct {
	// Spike is the index of the stage with the highest load, Baseline
	// the stage before it; -1 when there is none.
	Spike, Baseline int
	// Recovered says whether latency and throughput came back within
	// the tolerance of the baseline in the stages after the spike, and
	// After how long after the spike ended.
	Recovered bool
	After     time.Duration
	// Text says it in a sentence, or why it cannot be said.
	Text string
}

// DefaultTolerance is how close to the baseline counts as recovered:
// p99 at most 20% above it, throughput at most 20% below it (or below
// the stage's target).
const DefaultTolerance = 0.2

// DefaultSustain is how many consecutive intervals must be back within
// the tolerance: one good second in a noisy tail is not a recovery.
const DefaultSustain = 3

// Analyze finds the spike and its recovery. ivs must be in time order;
// tol and k default to DefaultTolerance and DefaultSustain when 0.
func Analyze(stages []Stage, ivs []Interval, tol float64, k int) Recovery {
	if tol == 0 {
		tol = DefaultTolerance
	}
	if k == 0 {
		k = DefaultSustain
	}
	r := Recovery{Spike: -1, Baseline: -1}
	if len(stages) < 2 {
		r.Text = "a single stage: no spike to recover from"
		return r
	}
	paced := true
	for _, s := range stages {
		paced = paced && s.Target > 0
	}
	for i, s := range stages {
		if r.Spike < 0 || s.load(paced) > stages[r.Spike].load(paced) {
			r.Spike = i
		}
	}
	if r.Spike == 0 {
		r.Text = "the first stage has the highest load: no baseline before the spike"
		return r
	}
	r.Baseline = r.Spike - 1
	base := stages[r.Baseline]
	if r.Spike == len(stages)-1 {
		r.Text = "the spike is the last stage: nothing was measured after it"
		return r
	}
	// The spike ends where the first interval of the next stage starts.
	end, found := time.Duration(-1), false
	run := 0
	for j, iv := range ivs {
		if iv.Stage <= r.Spike {
			continue
		}
		if end < 0 {
			end = iv.Start
		}
		want := base.Rate
		if t := stages[iv.Stage].Target; t > 0 {
			want = min(want, t)
		}
		ok := iv.P99Ms <= (1+tol)*base.P99Ms && iv.Rate >= (1-tol)*want
		if !ok {
			run = 0
			continue
		}
		run++
		if run == k {
			// Recovered at the start of the first good interval of the run.
			first := ivs[j-k+1]
			r.Recovered, r.After, found = true, first.Start-end, true
			break
		}
	}
	switch {
	case end < 0:
		r.Text = "no interval was measured after the spike"
	case found:
		r.Text = fmt.Sprintf("recovered %s after the spike (stage %d) ended: p99 within %.0f%% of the baseline's %.3g ms (stage %d) and throughput within %.0f%% for %d intervals in a row",
			r.After.Round(100*time.Millisecond), r.Spike+1, 100*tol, base.P99Ms, r.Baseline+1, 100*tol, k)
	default:
		r.Text = fmt.Sprintf("did not recover after the spike (stage %d): p99 never stayed within %.0f%% of the baseline's %.3g ms (stage %d), with throughput within %.0f%%, for %d intervals in a row",
			r.Spike+1, 100*tol, base.P99Ms, r.Baseline+1, 100*tol, k)
	}
	return r
}
