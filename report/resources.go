package report

import (
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/dbarena/dbarena/results"
)

// hostSeries is one host's system metrics within a window.
type hostSeries struct {
	host, role string
	color      color.Color
	// owned: a target's own database host, drawn in its colour.
	owned    bool
	xs       []float64
	cpu, mem []float64
	diskR    []float64
	diskW    []float64
	dirtied  []float64
	netRx    []float64
	netTx    []float64
}

// resourceFigure draws the whole experiment on its own clock: every
// target's throughput and p99, then CPU, memory, disk and network of the
// database hosts, the load generator and the machine, stacked on one
// time axis with shared scales, so that targets that ran one after the
// other compare at a glance. Bands mark the warm-ups and where a
// database's own load tool ran as the reference of a trial. It returns
// nil when nothing left a trace in time.
func resourceFigure(d *results.Data, s *summary, tl *timeline, name string) *figure {
	lo, hi, ok := window(d, tl)
	if !ok {
		return nil
	}
	f := &figure{Name: name, Title: "Resources over time",
		Caption: "Warm-ups shaded grey; solid lines read/receive, dashed write/transmit. CPU: 100% is one core.",
		width:   wideWidth, panelHeight: stackHeight, interactive: true}
	for ti, target := range s.targets {
		f.legend = append(f.legend, legendEntry{label: target, color: colorAt(ti)})
	}
	panels, sh, mk, left := activityPanels(d, tl, s)
	f.Caption += partialNote(left)
	refs := referenceWindows(d, tl)
	hosts := hostsOf(d, s, tl, lo, hi)
	for _, h := range hosts {
		if h.owned {
			continue // keyed by its target's colour
		}
		label := h.host
		if h.role != "" && h.role != h.host {
			label += " (" + h.role + ")"
		}
		f.legend = append(f.legend, legendEntry{label: label, color: h.color})
	}
	sys := sysPanels(hosts)
	panels = append(panels, sys...)
	if len(panels) == 0 {
		f.Message = "No time series or system metrics recorded."
		return f
	}
	if len(hosts) > 0 {
		f.legend = append(f.legend, legendEntry{label: "read / rx", color: rgb(keyRGB)},
			legendEntry{label: "write / tx", color: rgb(keyRGB), dashes: dashed()})
		f.Caption += " Disk: bytes the block devices read and wrote, the machine's disks or a database's own cgroup's share; a process without a cgroup of its own has no disk-write line."
	}
	if slices.ContainsFunc(sys, func(p *panel) bool { return p.Y.Label.Text == pageCacheLabel }) {
		f.Caption += " Page cache dirtied: bytes processes wrote into the page cache (and with direct I/O), counted in whole pages or folios as they become dirty: not the disk's figure, and many times what reached it when small writes land in large folios."
	}
	if len(refs.spans) > 0 {
		f.legend = append(f.legend, legendEntry{label: "reference tool run", color: rgb(refRGB), box: true})
		f.Caption += " Yellow bands: the database's own load tool (" + strings.Join(uniq(refs.labels), ", ") +
			") ran there, right after the trial, as its reference (see Client ceiling); dbarena measured nothing then."
	}
	for i, p := range panels {
		p.Add(sh)
		if i == 0 {
			p.Add(refs, mk)
		} else {
			p.Add(&shade{spans: refs.spans, rgb: refRGB}, &marks{xs: mk.xs})
		}
	}
	stack(panels, lo, hi, tl.label())
	f.panels = panels
	return f
}

// activityPanels draw the throughput and p99 of every target's trials
// on the shared clock, with the warm-ups to shade and the trial starts
// to mark on every panel of the figure, and count the partial intervals
// they left out (timeline.drawn).
func activityPanels(d *results.Data, tl *timeline, s *summary) ([]*panel, *shade, *marks, int) {
	rate, p99 := newPlot(), newPlot()
	sh, mk := &shade{}, &marks{}
	var p99s []float64
	left := 0
	for i := range d.Trials {
		t := &d.Trials[i]
		ps := tl.points[t.ID]
		if len(ps) == 0 {
			continue
		}
		clr := colorAt(indexOf(s.targets, t.Target))
		kept, n := tl.drawn(ps)
		left += n
		xs, rs, qs := make([]float64, len(kept)), make([]float64, len(kept)), make([]float64, len(kept))
		for i, p := range kept {
			xs[i], rs[i], qs[i] = tl.x(p.Time), p.Rate, p.Latency.P99/1e3
		}
		start := ps[0].Time.Add(-ps[0].Elapsed)
		mk.xs = append(mk.xs, tl.x(start))
		mk.labels = append(mk.labels, trialTag(t))
		if wlo, whi, ok := warmup(ps); ok {
			sh.spans = append(sh.spans, [2]float64{tl.x(start.Add(seconds(wlo))), tl.x(start.Add(seconds(whi)))})
		}
		addLine(rate, xyLine(xs, rs, clr, nil, false))
		if addLine(p99, xyLine(xs, qs, clr, nil, true)) {
			p99s = append(p99s, qs...)
		}
	}
	if len(mk.xs) == 0 {
		return nil, sh, mk, left
	}
	rate.Y.Label.Text, rate.Y.Tick.Marker = "ops/s", siTicks{}
	fromZero(rate)
	if !useLog(p99, p99s...) {
		fromZero(p99)
	}
	p99.Y.Label.Text = "p99 (ms)"
	return []*panel{rate, p99}, sh, mk, left
}

// referenceWindows are where a database's own load tool ran after a
// trial (run.reference), labelled with the tool: from the trial's end,
// for the trial's measured duration (the tool runs as long), cut at the
// next trial's start.
func referenceWindows(d *results.Data, tl *timeline) *shade {
	w := &shade{rgb: refRGB}
	for i := range d.Trials {
		t := &d.Trials[i]
		if t.Reference.Tool == "" || t.End.IsZero() {
			continue
		}
		end := t.End.Add(t.Duration)
		for j := range d.Trials {
			if b := begin(&d.Trials[j], tl); b.After(t.End) && b.Before(end) {
				end = b
			}
		}
		w.spans = append(w.spans, [2]float64{tl.x(t.End), tl.x(end)})
		w.labels = append(w.labels, t.Reference.Tool)
	}
	return w
}

// begin is when a trial started, warm-up included: its first interval's
// start, else its row's start.
func begin(t *results.Trial, tl *timeline) time.Time {
	if ps := tl.points[t.ID]; len(ps) > 0 {
		return ps[0].Time.Add(-ps[0].Elapsed)
	}
	return t.Start
}

// uniq drops repeated strings, keeping the first of each.
func uniq(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// pageCacheLabel is the axis of the page-cache panel: bytes dirtied,
// apart from the disk's, which they can exceed many times over.
const pageCacheLabel = "page cache dirtied (bytes/s)"

// sysPanels are the CPU, memory, disk, page-cache and network panels,
// each left out when no host measured it (the page cache also when
// nothing was dirtied: its lines would all lie at zero).
func sysPanels(hosts []hostSeries) []*panel {
	type metric struct {
		label  string
		series func(h *hostSeries) [][]float64
		// writes: the only series is a write, dashed like the others.
		writes bool
	}
	metrics := []metric{
		{"CPU (%)", func(h *hostSeries) [][]float64 { return [][]float64{h.cpu} }, false},
		{"memory (bytes)", func(h *hostSeries) [][]float64 { return [][]float64{h.mem} }, false},
		{"disk (bytes/s)", func(h *hostSeries) [][]float64 { return [][]float64{h.diskR, h.diskW} }, false},
		{pageCacheLabel, func(h *hostSeries) [][]float64 { return [][]float64{h.dirtied} }, true},
		{"network (bytes/s)", func(h *hostSeries) [][]float64 { return [][]float64{h.netRx, h.netTx} }, false},
	}
	var out []*panel
	for _, m := range metrics {
		if m.label == pageCacheLabel && !slices.ContainsFunc(hosts, func(h hostSeries) bool {
			return slices.ContainsFunc(h.dirtied, func(v float64) bool { return v > 0 })
		}) {
			continue
		}
		p := newPlot()
		drawn := false
		for i := range hosts {
			h := &hosts[i]
			for k, ys := range m.series(h) {
				var dash []vg.Length
				if k == 1 || m.writes {
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

// window is the span of the shared axis the figure covers: every
// trial, from its first interval to its last, and the reference runs
// after them, padded a little. Without trials it falls back to when the
// targets were up.
func window(d *results.Data, tl *timeline) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	see := func(t time.Time) {
		if !t.IsZero() {
			lo, hi = math.Min(lo, tl.x(t)), math.Max(hi, tl.x(t))
		}
	}
	for i := range d.Trials {
		t := &d.Trials[i]
		see(begin(t, tl))
		see(t.End)
		if ps := tl.points[t.ID]; len(ps) > 0 {
			see(ps[len(ps)-1].Time)
		}
	}
	for _, sp := range referenceWindows(d, tl).spans {
		hi = math.Max(hi, sp[1])
	}
	if !finite(lo) {
		for i := range d.Manifest.Targets {
			ti := &d.Manifest.Targets[i]
			see(ti.Up)
			if ti.Down != nil {
				see(*ti.Down)
			}
		}
	}
	if !finite(lo) || hi <= lo {
		return 0, 0, false
	}
	pad := (hi - lo) * 0.02
	return lo - pad, hi + pad, true
}

// hostsOf collects the system metrics of every host within [lo, hi]: a
// target's own database hosts in its colour (owned), other hosts in
// colours after the targets', the load generator dark and the machine
// light.
func hostsOf(d *results.Data, s *summary, tl *timeline, lo, hi float64) []hostSeries {
	owner := hostOwners(d)
	byHost := map[string]int{}
	ownHosts := map[string]int{}
	var out []hostSeries
	for i := range d.Sys {
		r := &d.Sys[i]
		x := tl.x(r.Time)
		if x < lo || x > hi {
			continue
		}
		k, seen := byHost[r.Host]
		if !seen {
			k = len(out)
			byHost[r.Host] = k
			h := hostSeries{host: r.Host, role: r.Role}
			switch o, claimed := owner[r.Host]; {
			case r.Role == "loader":
				h.color = rgb(loaderRGB)
			case r.Role == "machine":
				h.color = rgb(machineRGB)
			case claimed:
				h.color, h.owned = colorAt(indexOf(s.targets, o)+ownHosts[o]*paletteSize/2), true
				ownHosts[o]++
			default:
				h.color = colorAt(len(s.targets) + k)
			}
			out = append(out, h)
		}
		h := &out[k]
		h.xs = append(h.xs, x)
		h.cpu, h.mem = append(h.cpu, r.CPUPercent), append(h.mem, r.MemoryBytes)
		h.diskR, h.diskW = append(h.diskR, r.DiskReadBps), append(h.diskW, r.DiskWriteBps)
		h.dirtied = append(h.dirtied, r.PageCacheWriteBps)
		h.netRx, h.netTx = append(h.netRx, r.NetRxBps), append(h.netTx, r.NetTxBps)
	}
	return out
}

// hostOwners maps each target's hosts to the target.
func hostOwners(d *results.Data) map[string]string {
	owner := map[string]string{}
	for _, t := range d.Manifest.Targets {
		for _, h := range t.Hosts {
			owner[h] = t.Name
		}
	}
	return owner
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
