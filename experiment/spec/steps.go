package spec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/workload"
)

// clone copies a property set with its sources.
func clone(p *properties.Set) *properties.Set {
	c := properties.New()
	c.Merge(p)
	return c
}

// loadStep makes the n-th load of target t, with the data that workload
// w at matrix point pt needs. Its Params leave out the threads and target
// axes, which apply to runs only. The load section's settings stay in
// the spec, typed: the experiment lays them over the trial's.
func (b *builder) loadStep(t *Target, w *Workload, pt []KV, trial *properties.Set, cfg workload.Config, n int) Step {
	l := b.s.Load
	p := clone(trial)
	p.Set(core.DoTransactions, "false", properties.Source{File: b.s.File + " (load step)"})
	var params []KV
	for _, kv := range pt {
		if kv.Key != axisThreads && kv.Key != axisTarget {
			params = append(params, kv)
		}
	}
	return Step{Kind: Load, ID: fmt.Sprintf("%s.load.%d", t.Name, n), Target: t, Workload: w,
		Params: params, Repetition: 1, Properties: p, Threads: l.Threads, Rate: l.Target,
		Operations: cfg.EffectiveInsertCount(), Data: b.signature(cfg, trial)}
}

// runStep makes repetition rep of workload w on target t at point pt.
// The matrix's threads and target override the run section's. The run's
// settings (threads, rate, duration, warm-up, stages) are the step's
// typed fields, not properties: one value from the file to the worker.
func (b *builder) runStep(t *Target, w *Workload, pt []KV, trial *properties.Set, rep int) Step {
	r := b.s.Run
	st := Step{Kind: Run, ID: runID(t, w, pt, rep, r.Repetitions), Target: t, Workload: w, Params: pt,
		Repetition: rep, Threads: r.Threads, ThreadsAuto: r.ThreadsAuto, Rate: r.Target, Duration: r.Duration,
		Operations: r.Operations, Warmup: r.Warmup, WarmupSteady: r.WarmupSteady, Stages: r.Stages, Search: r.Until == UntilSLO}
	if st.ThreadsAuto {
		st.Threads = 0
	}
	for _, kv := range pt {
		switch kv.Key {
		case axisThreads:
			st.Threads, _ = strconv.Atoi(kv.Value) // checked when decoded
		case axisTarget:
			st.Rate, _ = parseRate(kv.Value) // checked when decoded
		}
	}
	p := clone(trial)
	p.Set(core.DoTransactions, "true", properties.Source{File: b.s.File + " (run step)"})
	// operationcount is also the workload's (its checks read it): a
	// duration-bound run must not stop at a property file's (the
	// built-ins say 1000).
	src := b.settingSrc("run.duration")
	if st.Operations > 0 {
		src = b.settingSrc("run.operations")
	}
	p.Set(core.OperationCount, itoa(st.Operations), src)
	st.Properties = p
	return st
}

func formatRate(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }

// runID names a run step: target.workload[.key=value...][.repN].
func runID(t *Target, w *Workload, pt []KV, rep, reps int) string {
	var b strings.Builder
	b.WriteString(t.Name + "." + w.Name)
	for _, kv := range pt {
		b.WriteString("." + fileSafe(kv.Key) + "=" + fileSafe(kv.Value))
	}
	if reps > 1 {
		fmt.Fprintf(&b, ".rep%d", rep)
	}
	return b.String()
}

// fileSafe replaces every character that is awkward in a file name on
// any common system with '_'.
func fileSafe(s string) string {
	if s == "" {
		return "_"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("._-+", r):
			return r
		}
		return '_'
	}, s)
}

// checkIDs reports matrix values that differ only in characters
// fileSafe replaced, which would make two steps share an ID.
func (b *builder) checkIDs() {
	seen := map[string]*Step{}
	for i := range b.plan.Steps {
		st := &b.plan.Steps[i]
		first, dup := seen[st.ID]
		if !dup {
			seen[st.ID] = st
			continue
		}
		line := 0
		if len(b.s.Matrix) > 0 {
			line = b.s.Matrix[0].Line
		}
		b.errs = append(b.errs, &Error{File: b.s.File, Line: line, Path: "matrix",
			Msg: fmt.Sprintf("steps %d and %d would share the ID %q: matrix values must differ in more than characters unsafe in file names", first.Index, st.Index, st.ID)})
		return
	}
}
