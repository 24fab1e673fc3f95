package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/analysis/capacity"
	"github.com/dbarena/dbarena/analysis/objective"
	"github.com/dbarena/dbarena/analysis/sizing"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/results"
)

// maxProbeThreads bounds a probe's workers (per load generator
// process): each holds a connection, and a database's own limit on them
// (PostgreSQL's max_connections is 100 by default) comes long before
// the harness's.
const maxProbeThreads = 1024

// busyShare is the share of its workers a paced probe may keep busy
// (Little's law, L = XW) before it counts as short of workers: past it,
// operations wait for a free worker, a queue in the client that the
// response time counts as the database's.
const busyShare = 0.9

// search runs a rate search step (run.until: slo): a closed-loop probe
// at the step's threads gives the most the target serves at all, then
// probes at the rates analysis/capacity chooses, each a trial of its own
// (ID.target=RATE) with workers sized by Little's law, until the lowest
// rate missed is within the resolution of the highest met. It returns
// the highest rate met (0: none). The search is recorded in the
// manifest; a probe that fails its error policy proves nothing (it is
// probed again), and is not a failed experiment.
func (tr *targetRun) search(ctx context.Context, st *spec.Step) (float64, error) {
	s := tr.s
	slo := sloOf(s.plan.Spec.SLO)
	row, rec, srch, err := tr.searchStart(ctx, st, slo)
	if err != nil {
		return 0, err
	}
	var tf *trialFailure
	procs := 1
	if lp := tr.loaders(); lp.runs(spec.Run) {
		procs = lp.n
	}
	least := max(tr.stepThreads(st), 2)
	// The time an operation holds a worker, from Little's law on the
	// closed loop (its workers were always busy): an overestimate at
	// lower rates, which only adds workers.
	hold := float64(max(row.Threads, 1)) / row.Throughput
	boost := map[float64]int{} // a rate's probes short of workers
	tries := map[float64]int{}
	for {
		rate, ok := srch.Next()
		if !ok {
			break
		}
		// Whole operations per second: the rate the trial runs, its
		// matrix value and the search's record agree.
		rate = max(math.Round(rate), 1)
		threads := capacity.Threads(rate/float64(procs), hold, least, maxProbeThreads)
		threads = min(threads<<boost[rate], maxProbeThreads)
		tries[rate]++
		probe := tr.probeStep(st, rate, threads, tries[rate])
		row, err := tr.trial(ctx, probe)
		if err != nil && !errors.As(err, &tf) {
			// Interrupted, or a results file not written: what the
			// probes so far proved is kept.
			tr.addSearch(searchRecord(rec, srch.Result(), fmt.Sprintf("stopped at probe %s: %v", probe.ID, err)))
			return 0, err
		}
		if row.Status == results.StatusFailed && row.Operations == 0 {
			// Not a miss: the probe could not run at all. What the
			// probes before it proved is kept.
			stop := fmt.Sprintf("probe %s could not run: %s", probe.ID, row.StatusReason)
			rec = searchRecord(rec, srch.Result(), stop)
			tr.addSearch(rec)
			return 0, &trialFailure{id: st.ID, reason: stop}
		}
		p := judgeProbe(row, rate, threads, slo, boost[rate] > 0)
		if p.Outcome == capacity.Unfair && strings.HasPrefix(p.Why, "workers") {
			boost[rate]++
		}
		if p.Outcome == capacity.Met && row.Latency.Mean > 0 {
			hold = row.Latency.Mean / 1e6
		}
		srch.Record(p)
		rec.Probes = append(rec.Probes, results.SearchProbe{Trial: probe.ID, Rate: rate, Achieved: p.Achieved, Threads: threads,
			Outcome: p.Outcome.String(), Why: p.Why})
		res := srch.Result()
		fmt.Fprintf(s.opts.Stderr, "dbarena: %s: probe %d: %s ops/s offered, %s served, %d threads: %s%s; %s\n", st.ID, len(res.Probes),
			results.FormatOps(rate), results.FormatOps(p.Achieved), threads, p.Outcome, whyText(p.Why), bracketText(res))
	}
	res := srch.Result()
	rec = searchRecord(rec, res, res.Stop)
	tr.addSearch(rec)
	fmt.Fprintf(s.opts.Stderr, "dbarena: %s: %s\n", st.ID, rec.Describe())
	if !res.Found && res.Probes != nil && res.Probes[len(res.Probes)-1].Outcome == capacity.Unfair {
		return 0, &trialFailure{id: st.ID, reason: "the search could not judge the database: " + res.Stop}
	}
	return res.Rate, nil
}

// searchRecord is rec with what the probes proved, ended for stop.
func searchRecord(rec results.Search, res capacity.Result, stop string) results.Search {
	rec.Rate, rec.Ceiling, rec.Resolved, rec.Stop = res.Rate, res.Ceiling, res.Resolved, stop
	rec.Notes = append(rec.Notes, res.Notes...)
	return rec
}

// predict is the rate this size of the target should sustain at the
// objective, from the searches of its other sizes so far (same workload
// and matrix point), with its relative spread and what it came from, by
// sizing.Predict. 0 when there is nothing to predict from: the search
// starts from the closed loop alone.
func (tr *targetRun) predict(st *spec.Step) (expect, spread float64, from string) {
	if tr.t.Base == "" || tr.t.Deploy.CPUs <= 0 {
		return 0, 0, ""
	}
	cores := tr.t.Deploy.CPUs * float64(max(tr.t.Deploy.Nodes, 1))
	s := tr.s
	s.mu.Lock()
	defer s.mu.Unlock()
	infos := map[string]results.TargetInfo{}
	for _, ti := range s.manifest.Targets {
		infos[ti.Name] = ti
	}
	params := stepOf(st).Params
	var ms []sizing.Measured
	var names []string
	for _, r := range s.manifest.Searches {
		ti, ok := infos[r.Target]
		if !ok || ti.Base != tr.t.Base || r.Workload != st.Workload.Name || !slices.Equal(r.Params, params) || r.Rate <= 0 || ti.CPUs <= 0 {
			continue
		}
		ms = append(ms, sizing.Measured{Label: ti.Size, Cores: ti.CPUs * float64(max(ti.Nodes, 1)), Rate: r.Rate})
		names = append(names, ti.Size)
	}
	e, spread, model := sizing.Predict(ms, cores)
	if e == 0 {
		return 0, 0, ""
	}
	return e, spread, strings.Join(names, ", ") + " (" + model + " over cores)"
}

// searchStart runs a search's closed-loop probe, the most the target
// serves at all, and starts the search from it (or from a prediction
// from the sizes already searched). The error is a trialFailure when
// the closed loop measured nothing.
func (tr *targetRun) searchStart(ctx context.Context, st *spec.Step, slo *results.SLO) (results.Trial, results.Search, *capacity.Search, error) {
	s := tr.s
	closed := *st
	closed.Search, closed.Probe, closed.ID = false, true, st.ID+".closed"
	closed.Params = append(append([]spec.KV(nil), st.Params...), spec.KV{Key: "probe", Value: "closed"})
	fmt.Fprintf(s.opts.Stderr, "dbarena: %s: searching the highest rate at %s: a closed loop first, then rates to within %.0f%%\n",
		st.ID, slo, 100*s.plan.Spec.Run.Resolution)
	row, err := tr.trial(ctx, &closed)
	var tf *trialFailure
	if err != nil && !errors.As(err, &tf) {
		return row, results.Search{}, nil, err
	}
	rec := results.Search{ID: st.ID, Target: tr.t.Name, Workload: st.Workload.Name, Params: stepOf(st).Params,
		Objective: slo.String(), Resolution: s.plan.Spec.Run.Resolution}
	if tf != nil || row.Throughput <= 0 {
		rec.Stop = "the closed-loop probe measured nothing: " + row.StatusReason
		tr.addSearch(rec)
		return row, rec, nil, &trialFailure{id: st.ID, reason: rec.Stop}
	}
	rec.Closed = row.Throughput
	opts := capacity.Options{Hint: row.Throughput, Resolution: s.plan.Spec.Run.Resolution, MaxProbes: s.plan.Spec.Run.MaxProbes}
	if e, spread, from := tr.predict(st); e > 0 {
		opts.Expect, opts.Spread = e, spread
		note := fmt.Sprintf("started from %s ops/s ±%.0f%%, predicted from %s", results.FormatOps(e), 100*spread, from)
		rec.Notes = append(rec.Notes, note)
		fmt.Fprintf(s.opts.Stderr, "dbarena: %s: %s\n", st.ID, note)
	}
	srch, err := capacity.New(opts)
	return row, rec, srch, err
}

// probeStep is the trial of a search step at rate with threads workers:
// its ID and matrix point name the rate (a repetition of the rate, the
// try), so that the probes read as the rate sweep they are.
func (tr *targetRun) probeStep(st *spec.Step, rate float64, threads, try int) *spec.Step {
	p := *st
	r := strconv.FormatFloat(math.Round(rate), 'f', -1, 64)
	p.Search, p.Probe, p.ThreadsAuto, p.Threads, p.Rate = false, true, false, threads, rate
	p.ID = st.ID + ".target=" + r
	if try > 1 {
		p.ID += ".try" + strconv.Itoa(try)
	}
	p.Params = append(append([]spec.KV(nil), st.Params...), spec.KV{Key: "target", Value: r})
	return &p
}

// judgeProbe says what a probe's row shows of its rate: met when every
// bound held, it served at least the objective's share of the rate and
// its errors stayed within the policy; missed otherwise; borderline when
// a latency lay within 10% of its bound. A probe is unfair, proving
// nothing, when a loader was lost or the throughput was not steady; and
// a miss is unfair when the client or the machine may have made it: its
// machine was saturated, other processes (or the hypervisor's steal)
// took a share of the cores the loader and the database ran on, the
// harness's own lateness (pacing p99) would close the
// gap to a bound, or its workers were nearly all busy and the rate has
// not yet been tried with twice as many (after that the database, not
// the workers, held them: a saturated database keeps any number busy).
// A met probe stays met under the client's flags: what the client added
// only made its latency worse.
func judgeProbe(row results.Trial, rate float64, threads int, slo *results.SLO, boosted bool) capacity.Probe {
	p := capacity.Probe{Rate: rate, Achieved: row.Throughput, Threads: threads}
	if row.Status == results.StatusFailed {
		// The database failed (its errors passed the error policy, or
		// it died): that proves nothing of the rate it sustains at the
		// objective. The rate is probed again, and a database that
		// fails there every time ends the search with what the probes
		// before proved.
		p.Outcome, p.Why = capacity.Unfair, "the database failed: "+row.StatusReason
		return p
	}
	for _, f := range row.Flags {
		if k := f.Kind(); k == results.FlagLoaderLost || k == results.FlagNotSteady {
			p.Outcome, p.Why = capacity.Unfair, string(f)
			return p
		}
	}
	j := objective.Judge(slo, rate, row.Throughput, row.Latency, row.Pacing.P99)
	p.Borderline, p.Score = j.Borderline, j.Score
	if j.Met() {
		return p
	}
	p.Outcome, p.Why = capacity.Missed, j.Why()
	for _, f := range row.Flags {
		switch f.Kind() {
		case results.FlagHostSaturated, results.FlagInterfered:
			p.Outcome, p.Why = capacity.Unfair, string(f)
			return p
		case results.FlagPacing:
			if j.LatencyMissed && j.Slack >= 0 {
				p.Outcome, p.Why = capacity.Unfair, fmt.Sprintf("%s, and without the harness's lateness (p99 %.2f ms) the latency would have met the bound", p.Why, row.Pacing.P99/1e3)
				return p
			}
		}
	}
	// threads is each loader's; the row counts every loader's workers.
	workers := max(threads, row.Threads)
	if !boosted && threads < maxProbeThreads && row.Concurrency >= busyShare*float64(workers) {
		p.Outcome, p.Why = capacity.Unfair, fmt.Sprintf("workers nearly all busy (Little's law: %.1f of %d in use): operations waited for a free one", row.Concurrency, workers)
	}
	return p
}

// addSearch records a search in the manifest.
func (tr *targetRun) addSearch(rec results.Search) {
	s := tr.s
	s.mu.Lock()
	s.manifest.Searches = append(s.manifest.Searches, rec)
	s.mu.Unlock()
	if err := s.writeManifest(); err != nil {
		s.log.Warn("manifest not written", "err", err)
	}
}

// bracketText is the search's bracket so far: "met up to 4,212, missed
// from 4,400".
func bracketText(r capacity.Result) string {
	switch {
	case r.Found && r.Ceiling > 0:
		return fmt.Sprintf("met up to %s, missed from %s ops/s", results.FormatOps(r.Rate), results.FormatOps(r.Ceiling))
	case r.Found:
		return fmt.Sprintf("met up to %s ops/s", results.FormatOps(r.Rate))
	case r.Ceiling > 0:
		return fmt.Sprintf("missed from %s ops/s", results.FormatOps(r.Ceiling))
	}
	return "nothing judged yet"
}

// whyText is " (why)", or "" when there is nothing to say.
func whyText(why string) string {
	if why == "" {
		return ""
	}
	return " (" + why + ")"
}
