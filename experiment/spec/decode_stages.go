package spec

import (
	"fmt"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
)

// Stage is one step of a run's schedule: a spike raises the threads or
// the target rate for a while and drops them again.
type Stage struct {
	Duration time.Duration
	Threads  int
	// Target is the stage's rate in operations per second; 0 is a closed
	// loop.
	Target float64
	Line   int
}

// stages decodes run.stages, or run.ramp expanded into stages, with
// threads and target defaulting to the run's.
func (d *decoder) stages(f fields, r *RunSettings) {
	sn, rn := f.get("stages"), f.get("ramp")
	switch {
	case sn != nil && rn != nil:
		d.errorf(rn, "run", "give stages or ramp, not both (stages at line %d)", f.key("stages").Line)
		return
	case sn == nil && rn == nil:
		return
	}
	if r.Duration > 0 || r.Operations > 0 {
		key := f.key("stages")
		if sn == nil {
			key = f.key("ramp")
		}
		d.errorf(key, "run", "a schedule sets the run's length: drop duration and operations")
	}
	if sn != nil {
		items, ok := d.sequence(sn, "run.stages")
		if !ok {
			return
		}
		if len(items) == 0 {
			d.errorf(sn, "run.stages", "empty list: want at least one stage such as {duration: 30s, threads: 8}")
		}
		for i, item := range items {
			path := fmt.Sprintf("run.stages[%d]", i)
			sf, ok := d.mapping(item, path, sectionKeys("run.stages[]"))
			if !ok {
				continue
			}
			st := Stage{Threads: r.Threads, Target: r.Target, Line: item.Line}
			if v := sf.get("duration"); v == nil {
				d.errorf(item, path, `missing required key "duration": how long the stage lasts, such as 30s`)
			} else {
				st.Duration = d.positiveDuration(v, join(path, "duration"))
			}
			if v := sf.get("threads"); v != nil {
				st.Threads, _ = d.threads(v, join(path, "threads"))
			}
			if v := sf.get("target"); v != nil {
				st.Target, _ = d.rate(v, join(path, "target"))
			}
			r.Stages = append(r.Stages, st)
		}
	} else {
		d.ramp(rn, r)
	}
	if len(r.Stages) == 0 {
		return
	}
	if r.WarmupSteady {
		// The stages' boundaries are fixed from the start.
		d.errorf(f.key("warmup"), "run.warmup", "until: steady does not go with stages or a ramp: give a fixed warm-up")
	}
	// The run's threads are the largest stage's: that many workers are
	// made, and the ones a stage does not need wait.
	r.Threads = 0
	for _, st := range r.Stages {
		r.Duration += st.Duration
		r.Threads = max(r.Threads, st.Threads)
	}
}

// ramp expands run.ramp, {from, to, step, every}, into stages of from,
// from+step, ... to threads, each lasting every.
func (d *decoder) ramp(n *yaml.Node, r *RunSettings) {
	f, ok := d.mapping(n, "run.ramp", sectionKeys("run.ramp"))
	if !ok {
		return
	}
	get := func(key string) int {
		v := f.get(key)
		if v == nil {
			d.errorf(n, "run.ramp", "missing required key %q (ramp: {from: 4, to: 404, step: 100, every: 30s})", key)
			return 0
		}
		x, _ := d.threads(v, "run.ramp."+key)
		return x
	}
	from, to, step := get("from"), get("to"), get("step")
	var every time.Duration
	if v := f.get("every"); v == nil {
		d.errorf(n, "run.ramp", `missing required key "every": how long each step lasts, such as 30s`)
	} else {
		every = d.positiveDuration(v, "run.ramp.every")
	}
	if from == 0 || to == 0 || step == 0 || every <= 0 {
		return
	}
	if to < from {
		d.errorf(f.get("to"), "run.ramp.to", "want at least from (%d), got %d", from, to)
		return
	}
	if steps := (to-from)/step + 1; steps > maxStages {
		d.errorf(f.get("step"), "run.ramp.step", "%d stages from %d to %d: at most %d; take a larger step", steps, from, to, maxStages)
		return
	}
	for t := from; t <= to; t += step {
		r.Stages = append(r.Stages, Stage{Duration: every, Threads: t, Target: r.Target, Line: n.Line})
	}
}

// maxStages bounds a schedule, as maxTrials bounds a matrix.
const maxStages = 1000

// maxLoaders bounds run.loaders: each is a process started (over ssh or
// kubectl when remote) and one HdrHistogram log merged per trial; 1,000
// loaders of limits.MaxThreads workers each is 100 million workers.
const maxLoaders = 1000

// maxNodes bounds a deployment's nodes: each is a container, pod or
// virtual machine to start and a metrics source to scrape every second.
const maxNodes = 1000

// DescribeStages writes a schedule for a step's description:
// "4 -> 104 -> 4 threads", with "@rate" on paced stages.
func DescribeStages(stages []Stage) string {
	s := ""
	for i, st := range stages {
		if i > 0 {
			s += " -> "
		}
		s += strconv.Itoa(st.Threads)
		if st.Target > 0 {
			s += "@" + formatRate(st.Target)
		}
	}
	return s + " threads"
}
