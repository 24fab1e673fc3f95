package report

import (
	"image/color"
	"math"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/dbarena/dbarena/results"
)

// hostSeries is one host's system metrics within a window.
type hostSeries struct {
	host, role string
	color      color.Color
	xs         []float64
	cpu, mem   []float64
	diskR      []float64
	diskW      []float64
	netRx      []float64
	netTx      []float64
}

// resourceFigure draws one target's span of the experiment: throughput
// and p99 of its trials, then CPU, memory, disk and network of the hosts
// involved, all on the experiment's clock. It returns nil when the
// target left no trace in time.
func resourceFigure(d *results.Data, s *summary, tl *timeline, target, name string) *figure {
	ti := indexOf(s.targets, target)
	var trials []*results.Trial
	for i := range d.Trials {
		if d.Trials[i].Target == target {
			trials = append(trials, &d.Trials[i])
		}
	}
	lo, hi, ok := window(d, tl, target, trials)
	if !ok {
		return nil
	}
	f := &figure{Name: name, Title: "Resources over time, " + target,
		Caption: "Warm-ups shaded; solid lines read/receive, dashed write/transmit. CPU: 100% is one core.",
		width:   wideWidth, panelHeight: stackHeight}
	f.legend = []legendEntry{{label: target + " ops/s, p99", color: colorAt(ti)}}
	panels, sh, mk := activityPanels(tl, trials, colorAt(ti))
	hosts := hostsOf(d, s, tl, target, lo, hi)
	for _, h := range hosts {
		label := h.host
		if h.role != "" && h.role != h.host {
			label += " (" + h.role + ")"
		}
		f.legend = append(f.legend, legendEntry{label: label, color: h.color})
	}
	panels = append(panels, sysPanels(hosts)...)
	if len(panels) == 0 {
		f.Message = "No time series or system metrics recorded for " + target + "."
		return f
	}
	if len(hosts) > 0 {
		f.legend = append(f.legend, legendEntry{label: "read / rx", color: rgb(keyRGB)},
			legendEntry{label: "write / tx", color: rgb(keyRGB), dashes: dashed()})
	}
	for i, p := range panels {
		p.Add(sh)
		if i == 0 {
			p.Add(mk)
		} else {
			p.Add(&marks{xs: mk.xs})
		}
	}
	stack(panels, lo, hi, tl.label())
	f.panels = panels
	return f
}

// activityPanels draw the throughput and p99 of a target's trials on
// the shared clock, with the warm-ups to shade and the trial starts to
// mark on every panel of the figure.
func activityPanels(tl *timeline, trials []*results.Trial, clr color.Color) ([]*plot.Plot, *shade, *marks) {
	rate, p99 := newPlot(), newPlot()
	sh, mk := &shade{}, &marks{}
	var p99s []float64
	for _, t := range trials {
		ps := tl.points[t.ID]
		if len(ps) == 0 {
			continue
		}
		xs, rs, qs := make([]float64, len(ps)), make([]float64, len(ps)), make([]float64, len(ps))
		for i, p := range ps {
			xs[i], rs[i], qs[i] = tl.x(p.Time), p.Rate, p.Latency.P99/1e3
		}
		start := ps[0].Time.Add(-ps[0].Elapsed)
		mk.xs = append(mk.xs, tl.x(start))
		mk.labels = append(mk.labels, trialTag(t))
		if wlo, whi, ok := warmup(ps); ok {
			sh.spans = append(sh.spans, [2]float64{tl.x(start.Add(seconds(wlo))), tl.x(start.Add(seconds(whi)))})
		}
		if l := xyLine(xs, rs, clr, nil, false); l != nil {
			rate.Add(l)
		}
		if l := xyLine(xs, qs, clr, nil, true); l != nil {
			p99.Add(l)
			p99s = append(p99s, qs...)
		}
	}
	if len(mk.xs) == 0 {
		return nil, sh, mk
	}
	rate.Y.Label.Text, rate.Y.Tick.Marker = "ops/s", siTicks{}
	fromZero(rate)
	if !useLog(p99, p99s...) {
		fromZero(p99)
	}
	p99.Y.Label.Text = "p99 (ms)"
	return []*plot.Plot{rate, p99}, sh, mk
}

// sysPanels are the CPU, memory, disk and network panels, each left out
// when no host measured it.
func sysPanels(hosts []hostSeries) []*plot.Plot {
	type metric struct {
		label  string
		series func(h *hostSeries) [][]float64
	}
	metrics := []metric{
		{"CPU (%)", func(h *hostSeries) [][]float64 { return [][]float64{h.cpu} }},
		{"memory (bytes)", func(h *hostSeries) [][]float64 { return [][]float64{h.mem} }},
		{"disk (bytes/s)", func(h *hostSeries) [][]float64 { return [][]float64{h.diskR, h.diskW} }},
		{"network (bytes/s)", func(h *hostSeries) [][]float64 { return [][]float64{h.netRx, h.netTx} }},
	}
	var out []*plot.Plot
	for _, m := range metrics {
		p := newPlot()
		drawn := false
		for i := range hosts {
			h := &hosts[i]
			for k, ys := range m.series(h) {
				var dash []vg.Length
				if k == 1 {
					dash = dashed()
				}
				if l := xyLine(h.xs, ys, h.color, dash, false); l != nil {
					p.Add(l)
					drawn = true
				}
			}
		}
		if drawn {
			p.Y.Label.Text, p.Y.Tick.Marker = m.label, siTicks{}
			fromZero(p)
			out = append(out, p)
		}
	}
	return out
}

// window is the span of the shared axis a target's figure covers: its
// trials, from the first interval to the last, padded a little. A target
// without trials falls back to when it was up.
func window(d *results.Data, tl *timeline, target string, trials []*results.Trial) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	see := func(t time.Time) {
		if !t.IsZero() {
			lo, hi = math.Min(lo, tl.x(t)), math.Max(hi, tl.x(t))
		}
	}
	for _, t := range trials {
		see(t.Start)
		see(t.End)
		if ps := tl.points[t.ID]; len(ps) > 0 {
			see(ps[0].Time.Add(-ps[0].Elapsed))
			see(ps[len(ps)-1].Time)
		}
	}
	if !finite(lo) {
		for i := range d.Manifest.Targets {
			if ti := &d.Manifest.Targets[i]; ti.Name == target {
				see(ti.Up)
				if ti.Down != nil {
					see(*ti.Down)
				}
			}
		}
	}
	if !finite(lo) || hi <= lo {
		return 0, 0, false
	}
	pad := (hi - lo) * 0.02
	return lo - pad, hi + pad, true
}

// hostsOf collects the system metrics of the hosts that matter to a
// target within [lo, hi]: its own database hosts, database hosts no
// target claims, the load generator and the machine.
func hostsOf(d *results.Data, s *summary, tl *timeline, target string, lo, hi float64) []hostSeries {
	owner := map[string]string{}
	for _, t := range d.Manifest.Targets {
		for _, h := range t.Hosts {
			owner[h] = t.Name
		}
	}
	ti := indexOf(s.targets, target)
	byHost := map[string]int{}
	var out []hostSeries
	ownHosts := 0
	for i := range d.Sys {
		r := &d.Sys[i]
		x := tl.x(r.Time)
		if x < lo || x > hi {
			continue
		}
		if o, claimed := owner[r.Host]; claimed && o != target {
			continue
		}
		k, seen := byHost[r.Host]
		if !seen {
			k = len(out)
			byHost[r.Host] = k
			h := hostSeries{host: r.Host, role: r.Role}
			switch {
			case r.Role == "loader":
				h.color = rgb(loaderRGB)
			case r.Role == "machine":
				h.color = rgb(machineRGB)
			case owner[r.Host] == target:
				h.color = colorAt(ti + ownHosts*paletteSize/2)
				ownHosts++
			default:
				h.color = colorAt(len(s.targets) + k)
			}
			out = append(out, h)
		}
		h := &out[k]
		h.xs = append(h.xs, x)
		h.cpu, h.mem = append(h.cpu, r.CPUPercent), append(h.mem, r.MemoryBytes)
		h.diskR, h.diskW = append(h.diskR, r.DiskReadBps), append(h.diskW, r.DiskWriteBps)
		h.netRx, h.netTx = append(h.netRx, r.NetRxBps), append(h.netTx, r.NetTxBps)
	}
	return out
}

// trialTag is a trial's short label on a timeline: "load", "a" or "a#2".
func trialTag(t *results.Trial) string {
	if t.Kind == results.KindLoad {
		return "load"
	}
	if t.Repetition > 1 {
		return t.Workload + "#" + strconv.Itoa(t.Repetition)
	}
	return t.Workload
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return 0
}
