package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/dbarena/dbarena/analysis/spike"
	"github.com/dbarena/dbarena/results"
)

// spikeView is one scheduled run: its stages and what the spike did.
type spikeView struct {
	Trial    string
	Stages   []spikeStageView
	Recovery string
}

// spikeStageView is one stage's row.
type spikeStageView struct {
	Stage, Threads, Target, Duration, Rate, P50, P99, Errors string
	Spike, Baseline                                          bool
}

// spikeSection lists every run with stages, with per-stage figures from
// the stage rows (merged histograms) and the recovery time from the
// run's per-interval series.
func spikeSection(d *results.Data) []spikeView {
	stagesOf := map[string][]*results.Trial{}
	for i := range d.Trials {
		t := &d.Trials[i]
		if t.Kind == results.KindStage {
			run, _, _ := strings.Cut(t.ID, ".stage")
			stagesOf[run] = append(stagesOf[run], t)
		}
	}
	// The recovery is judged on whole intervals, as the figures draw
	// them (timeline.drawn): the part of an interval after a stage
	// boundary can be microseconds long, its rate and p99 noise that
	// would break, or fake, a run of recovered intervals.
	tl := newTimeline(d)
	type pointKey struct {
		trial   string
		elapsed time.Duration
		warm    bool
	}
	whole := map[pointKey]bool{}
	for _, ps := range tl.points {
		kept, _ := tl.drawn(ps)
		for _, p := range kept {
			whole[pointKey{p.Trial, p.Elapsed, p.Warmup}] = true
		}
	}
	points := map[string][]spike.Interval{}
	last := map[string]time.Duration{}
	for _, p := range d.Points {
		if p.Op != results.AllOps || p.Stage == 0 {
			continue
		}
		start := last[p.Trial]
		if p.Length > 0 {
			start = p.Elapsed - p.Length
		}
		last[p.Trial] = p.Elapsed
		if p.Warmup || !whole[pointKey{p.Trial, p.Elapsed, p.Warmup}] {
			continue
		}
		points[p.Trial] = append(points[p.Trial], spike.Interval{Start: start, Stage: p.Stage - 1, Rate: p.Rate, P99Ms: p.Latency.P99 / 1e3})
	}
	var out []spikeView
	for i := range d.Trials {
		run := &d.Trials[i]
		rows := stagesOf[run.ID]
		if run.Kind != results.KindRun || len(rows) == 0 || run.Status == results.StatusFailed {
			continue
		}
		var stages []spike.Stage
		for _, r := range rows {
			stages = append(stages, spike.Stage{Threads: r.Threads, Target: r.TargetRate, Rate: r.Throughput, P99Ms: r.Latency.P99 / 1e3})
		}
		rec := spike.Analyze(stages, points[run.ID], 0, 0)
		v := spikeView{Trial: run.ID, Recovery: strings.ToUpper(rec.Text[:1]) + rec.Text[1:] + "."}
		for j, r := range rows {
			target := dash
			if r.TargetRate > 0 {
				target = fmtRate(r.TargetRate)
			}
			v.Stages = append(v.Stages, spikeStageView{Stage: fmt.Sprint(j + 1), Threads: fmt.Sprint(r.Threads), Target: target,
				Duration: r.Duration.Round(time.Second).String(), Rate: fmtRate(r.Throughput), P50: fmtMs(r.Latency.P50), P99: fmtMs(r.Latency.P99),
				Errors: fmt.Sprint(r.Errors), Spike: j == rec.Spike, Baseline: j == rec.Baseline})
		}
		out = append(out, v)
	}
	return out
}
