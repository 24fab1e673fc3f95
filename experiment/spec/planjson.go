package spec

import "time"

// PlanJSON is a Plan in the form `dbarena run --dry-run --format json`
// prints, for tools that check or schedule an experiment before running
// it. Its field names are an interface: fields may be added, never
// renamed or given a new meaning. Durations are in seconds.
type PlanJSON struct {
	Name string `json:"name"`
	File string `json:"file"`
	// Seed is the base seed; 0 when the run chooses it.
	Seed uint64 `json:"seed"`
	// Results is where the run writes: the directory named (--results,
	// ResultsNamed true), or else the parent directory in which it
	// creates NAME-DATE-TIME (the file's results: setting).
	Results      string     `json:"results"`
	ResultsNamed bool       `json:"results_named"`
	Steps        []StepJSON `json:"steps"`
	// Loads and Runs count the steps of each kind; Targets and
	// Workloads the experiment's.
	Loads     int `json:"loads"`
	Runs      int `json:"runs"`
	Targets   int `json:"targets"`
	Workloads int `json:"workloads"`
	// EstimatedSeconds is the time of the timed runs and their warm-ups;
	// UnknownLengthSteps counts the steps it leaves out because their
	// length is not known in advance (loads, operation-count runs).
	EstimatedSeconds   float64 `json:"estimated_seconds"`
	UnknownLengthSteps int     `json:"unknown_length_steps"`
	// Warnings are the properties no part of dbarena reads.
	Warnings []string `json:"warnings"`
	// Order is "rounds" or "sequential"; Rounds the rounds the steps
	// hold. With RepetitionsAuto, rounds are added at run time until
	// every comparison is decided, within BudgetSeconds from the start.
	Order           string  `json:"order"`
	Rounds          int     `json:"rounds"`
	RepetitionsAuto bool    `json:"repetitions_auto,omitempty"`
	BudgetSeconds   float64 `json:"budget_seconds,omitempty"`
}

// StepJSON is one load or measured trial of a PlanJSON.
type StepJSON struct {
	Index int `json:"index"`
	// ID names the step's results ("postgres.a.threads=8.rep2").
	ID string `json:"id"`
	// Kind is load or run.
	Kind     string `json:"kind"`
	Target   string `json:"target"`
	Database string `json:"database"`
	Driver   string `json:"driver"`
	Workload string `json:"workload"`
	// Params is the matrix point, in axis order.
	Params     []ParamJSON `json:"params"`
	Repetition int         `json:"repetition"`
	// Threads is the step's workers; 0 with ThreadsAuto, when each
	// target's calibration chooses them at run time.
	Threads     int  `json:"threads"`
	ThreadsAuto bool `json:"threads_auto,omitempty"`
	// Rate is the target rate in operations per second; 0 unthrottled.
	Rate float64 `json:"rate"`
	// A run is bounded by DurationSeconds or by Operations; a load's
	// Operations are the records it inserts.
	DurationSeconds float64 `json:"duration_seconds,omitempty"`
	Operations      int64   `json:"operations,omitempty"`
	WarmupSeconds   float64 `json:"warmup_seconds"`
	// Search says the step searches its highest rate at the objective
	// (run.until: slo): Rate is then 0 and each probe lasts
	// DurationSeconds.
	Search bool `json:"search,omitempty"`
	// Round is the step's round in a plan in rounds (0: each target's
	// first load, or a plan in sequential order).
	Round int `json:"round"`
}

// ParamJSON is one matrix value of a step.
type ParamJSON struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// JSON returns p in its JSON form.
//
// dir is the results directory the run was given (--results), "" for
// the file's setting.
func (p *Plan) JSON(dir string) PlanJSON {
	s := p.Spec
	timed, opRuns := p.estimate()
	j := PlanJSON{Name: s.Name, File: s.File, Seed: s.Seed, Results: s.Results, Steps: []StepJSON{},
		Loads: p.LoadCount(), Runs: p.RunCount(), Targets: len(s.Targets), Workloads: len(s.Workloads),
		EstimatedSeconds: timed.Seconds(), UnknownLengthSteps: opRuns + p.LoadCount(), Warnings: []string{},
		Order: OrderSequential, Rounds: p.Rounds(), RepetitionsAuto: s.Run.RepetitionsAuto, BudgetSeconds: s.Run.Budget.Seconds()}
	if s.Run.Rounds() {
		j.Order = OrderRounds
	}
	for i := range p.Steps {
		st := &p.Steps[i]
		params := make([]ParamJSON, 0, len(st.Params))
		for _, kv := range st.Params {
			params = append(params, ParamJSON{Key: kv.Key, Value: kv.Value})
		}
		j.Steps = append(j.Steps, StepJSON{Index: st.Index, ID: st.ID, Kind: st.Kind.String(),
			Target: st.Target.Name, Database: st.Target.Database, Driver: st.Target.Driver, Workload: st.Workload.Name,
			Params: params, Repetition: st.Repetition, Threads: st.Threads, ThreadsAuto: st.ThreadsAuto, Rate: st.Rate,
			DurationSeconds: st.Duration.Seconds(), Operations: st.Operations, WarmupSeconds: st.Warmup.Seconds(), Search: st.Search,
			Round: st.Round})
	}
	for _, w := range p.Warnings {
		j.Warnings = append(j.Warnings, w.String())
	}
	if dir != "" {
		j.Results, j.ResultsNamed = dir, true
	}
	return j
}

// estimate is the time of the timed runs with their warm-ups, and the
// number of operation-count runs, whose length is not known in advance
// (loads are not known either: LoadCount).
func (p *Plan) estimate() (timed time.Duration, opRuns int) {
	for i := range p.Steps {
		st := &p.Steps[i]
		switch {
		case st.Kind != Run:
		case st.Operations > 0:
			opRuns++
		default:
			timed += st.Expected()
		}
	}
	return timed, opRuns
}
