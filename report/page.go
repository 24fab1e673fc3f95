package report

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/analysis/objective"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/workload"
)

// page is everything the HTML template shows, already formatted: the
// template only lays it out.
type page struct {
	Title       string
	Status      string
	Partial     bool
	Banner      string
	BannerTail  string
	Facts       []fact
	Targets     []targetView
	Reps        int
	Rows        []rowView
	Empty       string
	VerdictText string
	Warnings    []warning
	Fits        []fit
	Sweeps      []sweepView
	RateSweeps  []rateSweepView
	Cost        *costView
	Scaling     []scalingView
	Spikes      []spikeView
	SLO         string
	References  []referenceView
	RefNotes    []string
	Groups      []figureGroup
	FigureNote  string
	Trials      []trialView
	SpecFile    string
	Spec        string
	Footer      string
	Design      *designView
}

// sweepView is the scalability analysis of one client sweep.
type sweepView struct {
	Label    string
	Findings []sweepFinding
}

// fact is one labelled value.
type fact struct{ Label, Value string }

type targetView struct {
	Name, Color                             string
	Database, Driver, Provider, Version     string
	Nodes, CPUs, Memory, Data, ServerMemory string
	Hosts                                   string
	Native, Properties                      []fact
	// PropertiesLabel counts Properties: "1 property", "3 properties".
	PropertiesLabel string
}

type rowView struct {
	Label string
	Cells []cellView
}

type cellView struct {
	Target      string
	Empty       bool
	EmptyText   string
	Rate        string
	Spread      string
	SpreadTitle string
	P50, P99    string
	Share       string
	// ShareCI is the share's confidence interval, or why there is none;
	// on the row's top cell, why its lead is not established. Unfair
	// marks a share whose trials carry a fairness warning. Best marks
	// the top cell of a row whose lead is established.
	ShareCI string
	Unfair  bool
	Best    bool
	Flags   string
}

type trialView struct {
	ID, Kind, Target, Workload, Params, Rep, Threads string
	Duration, Ops, Errors, Rate                      string
	Lat                                              latView
	LoaderCPU, Concurrency, Status                   string
	// Bound is what bound the trial, BoundWhy its evidence.
	Bound, BoundWhy string
	Flags           []results.Flag
	PerOp           []opView
	// Note names a TPC-C run's figures as its mode allows (tpmC, or
	// transactions per second), with its p90 limits judged.
	Note string
}

type latView struct{ Mean, P50, P90, P95, P99, P999, Max string }

type opView struct {
	Name, Ops, Errors string
	Lat               latView
}

// buildPage computes the summary, the warnings and the figures of d.
func buildPage(d *results.Data) *page {
	m := &d.Manifest
	s := summarize(d)
	p := &page{Title: m.Experiment, Status: m.Status, Reps: s.reps, VerdictText: Verdict(d),
		Warnings: warnings(d), SpecFile: m.SpecFile, Spec: m.Spec}
	if p.Title == "" {
		p.Title = "(unnamed experiment)"
	}
	if p.Status == "" {
		p.Status = "unknown"
	}
	if msg := statusWarning(m); msg != "" {
		p.Partial = true
		msg = strings.TrimSuffix(msg, ": partial results")
		p.Banner = strings.ToUpper(msg[:1]) + msg[1:] + "."
		p.BannerTail = "Figures and tables below show what was recorded before that."
		if m.Status == results.StatusRunning {
			p.BannerTail = "Figures and tables below show what was recorded so far."
		}
	}
	p.Facts = facts(d)
	p.Design = designSection(m, d.Trials)
	for i, name := range s.targets {
		p.Targets = append(p.Targets, targetOf(d, name, i))
	}
	for i := range m.Targets {
		p.Fits = append(p.Fits, workingSet(&m.Targets[i]))
	}
	for _, r := range s.rows {
		p.Rows = append(p.Rows, rowOf(s, r))
	}
	switch {
	case len(d.Trials) == 0:
		p.Empty = "No trials yet: the run recorded no load or measured trial, so there is nothing to compare."
	case len(s.rows) == 0:
		p.Empty = "No measured runs yet: only the load phase finished (see the load figures and the trial table)."
	}
	for _, sw := range findSweeps(s) {
		p.Sweeps = append(p.Sweeps, sweepView{Label: sw.label, Findings: analyzeSweep(s, sw, m.SLO)})
	}
	for _, sw := range findSweepsOn(s, rateAxis) {
		p.RateSweeps = append(p.RateSweeps, analyzeRateSweep(s, sw, m.SLO))
	}
	if m.SLO != nil {
		p.SLO = fmt.Sprintf("%s, and at least %.0f%% of a step's target rate", m.SLO, 100*objective.Share(m.SLO))
	}
	p.References, p.RefNotes = referenceSection(d)
	p.Cost = costSection(d, s)
	p.Scaling = scalingSection(d, s)
	p.Spikes = spikeSection(d)
	p.Groups, p.FigureNote = buildFigures(d, s)
	for i := range d.Trials {
		p.Trials = append(p.Trials, trialOf(&d.Trials[i]))
	}
	p.Footer = fmt.Sprintf("%s %s: report of %s. Self-contained: no scripts, fonts or images are loaded from elsewhere.",
		orDash(m.Tool), orDash(m.Version), d.Dir)
	return p
}

// facts are the header's labelled values.
func facts(d *results.Data) []fact {
	m := &d.Manifest
	tool := strings.TrimSpace(m.Tool + " " + m.Version)
	if m.Commit != "" {
		tool += " (" + m.Commit + ")"
	}
	loader := m.Loader.Hostname
	if m.Loader.OS != "" || m.Loader.CPUs > 0 {
		loader += fmt.Sprintf(" (%s/%s, %d CPUs, %s)", m.Loader.OS, m.Loader.Arch, m.Loader.CPUs, fmtBytes(float64(m.Loader.MemoryBytes)))
	}
	steps := dash
	if m.PlannedSteps > 0 {
		steps = fmt.Sprintf("%d of %d", m.CompletedSteps, m.PlannedSteps)
	}
	return []fact{
		{"Started", fmtTime(m.Start)},
		{"Duration", runDuration(d)},
		{"Steps", steps},
		{"Loader host", orDash(loader)},
		{"Seed", strconv.FormatUint(m.Seed, 10)},
		{"Tool", orDash(tool)},
		{"Spec", orDash(m.SpecFile)},
	}
}

// runDuration is end - start, or up to the last record for a run that
// did not say when it ended.
func runDuration(d *results.Data) string {
	m := &d.Manifest
	if m.Start.IsZero() {
		return dash
	}
	if m.End != nil {
		return fmtDuration(m.End.Sub(m.Start))
	}
	var last time.Time
	for i := range d.Trials {
		if t := d.Trials[i].End; t.After(last) {
			last = t
		}
	}
	for i := range d.Sys {
		if t := d.Sys[i].Time; t.After(last) {
			last = t
		}
	}
	if last.IsZero() {
		return dash
	}
	return fmtDuration(last.Sub(m.Start)) + " (to the last record; no end time)"
}

func targetOf(d *results.Data, name string, i int) targetView {
	v := targetView{Name: name, Color: hexColor(colorAt(i)), Database: dash, Driver: dash, Provider: dash,
		Version: dash, Nodes: dash, CPUs: "no limit", Memory: "no limit", Data: "unknown", ServerMemory: "unknown", Hosts: dash}
	var t *results.TargetInfo
	for k := range d.Manifest.Targets {
		if d.Manifest.Targets[k].Name == name {
			t = &d.Manifest.Targets[k]
		}
	}
	if t == nil {
		return v // trials of a target the manifest does not describe
	}
	v.Database, v.Driver, v.Provider, v.Version = orDash(t.Database), orDash(t.Driver), orDash(t.Provider), orDash(t.Version)
	if t.Nodes > 0 {
		v.Nodes = strconv.Itoa(t.Nodes)
	}
	if t.CPUs > 0 {
		v.CPUs = strconv.FormatFloat(t.CPUs, 'f', -1, 64)
	}
	if t.MemoryBytes > 0 {
		v.Memory = fmtBytes(float64(t.MemoryBytes))
	}
	if t.DataBytes > 0 {
		v.Data = fmtBytes(float64(t.DataBytes))
	}
	if t.ServerMemoryBytes > 0 {
		v.ServerMemory = fmtBytes(float64(t.ServerMemoryBytes))
	}
	if len(t.Hosts) > 0 {
		v.Hosts = strings.Join(t.Hosts, ", ")
	}
	for _, k := range slices.Sorted(maps.Keys(t.Native)) {
		v.Native = append(v.Native, fact{k, fmtNumber(t.Native[k])})
	}
	for _, k := range slices.Sorted(maps.Keys(t.Properties)) {
		v.Properties = append(v.Properties, fact{k, t.Properties[k]})
	}
	v.PropertiesLabel = fmt.Sprintf("%d properties", len(v.Properties))
	if len(v.Properties) == 1 {
		v.PropertiesLabel = "1 property"
	}
	return v
}

func rowOf(s *summary, r *row) rowView {
	v := rowView{Label: r.label}
	for i := range r.cells {
		c := &r.cells[i]
		cv := cellView{Target: s.targets[i], Empty: c.n == 0, EmptyText: "not measured", Rate: fmtRate(c.mean), P50: fmtMs(c.lat.P50),
			P99: fmtMs(c.lat.P99), Share: fmtShare(c.share), Flags: strings.Join(c.flags, "\n")}
		if c.n == 0 && len(c.trials) > 0 {
			cv.EmptyText = "no throughput recorded"
		}
		if f := c.failedText(); f != "" {
			if c.n == 0 {
				cv.EmptyText = f
			} else {
				cv.Flags = strings.TrimPrefix(cv.Flags+"\n"+f, "\n")
			}
		}
		// best and share only mean something next to another target;
		// best is marked only where the lead is established (leadOf)
		if r.measured >= 2 {
			top := i == r.best
			lead := r.leadOf()
			cv.Best = top && lead == leadEstablished
			cv.Unfair = c.unfair() || r.cells[r.best].unfair()
			if top {
				cv.ShareCI = leadNote(lead)
			} else if c.n > 0 {
				if lo, hi, ok := ratioInterval(c, &r.cells[r.best]); ok {
					cv.ShareCI = fmt.Sprintf("[%s–%s]", fmtShare(lo), fmtShare(hi))
				} else {
					cv.ShareCI = "(1 repetition: no interval)"
				}
			}
		} else {
			cv.Share = dash
		}
		if c.n > 1 {
			cv.Spread = fmt.Sprintf("%s–%s", fmtRate(c.min), fmtRate(c.max))
			cv.SpreadTitle = fmt.Sprintf("%d repetitions: min %s, max %s, ± %s (sample standard deviation)",
				c.n, fmtRate(c.min), fmtRate(c.max), fmtRate(c.std))
		}
		v.Cells = append(v.Cells, cv)
	}
	return v
}

// leadNote says, on a row's top cell, why it is not marked best.
func leadNote(l lead) string {
	switch l {
	case leadEquivalent:
		return "(equivalent within the margin)"
	case leadIndistinct:
		return "(cannot tell: the interval holds 1x)"
	case leadUnconfirmed:
		return "(lead unconfirmed: 1 repetition)"
	}
	return ""
}

func trialOf(t *results.Trial) trialView {
	v := trialView{ID: t.ID, Kind: t.Kind, Target: t.Target, Workload: orDash(t.Workload), Params: orDash(fmtParams(t.Params)),
		Rep: strconv.Itoa(t.Repetition), Threads: strconv.Itoa(t.Threads), Duration: fmtDuration(t.Duration),
		Ops: groupThousands(t.Operations), Errors: groupThousands(t.Errors), Rate: fmtRate(t.Throughput),
		Lat: latOf(t.Latency), Concurrency: dash, Status: orDash(t.Status), Flags: trialFlags(t),
		Bound: orDash(t.Bottleneck), BoundWhy: t.BottleneckWhy}
	v.LoaderCPU = fmtCPU(t.LoaderCPU)
	if t.LoaderCPUs > 0 {
		v.LoaderCPU += fmt.Sprintf(" of %d%%", t.LoaderCPUs*100)
	}
	if finite(t.Concurrency) && t.Concurrency > 0 {
		v.Concurrency = strconv.FormatFloat(t.Concurrency, 'f', 1, 64)
	}
	var notes []string
	if f := results.TPCCFiguresOf(t.Counters, t.Duration, t.Threads, t.Ops); f != nil {
		v.Rate += " tx/s"
		notes = append(notes, f.String())
	}
	if n := results.AuditNote(t.Counters, transfers(t)); n != "" {
		notes = append(notes, n)
	}
	v.Note = strings.Join(notes, "; ")
	for _, o := range t.Ops {
		v.PerOp = append(v.PerOp, opView{Name: o.Name, Ops: groupThousands(o.Operations), Errors: groupThousands(o.Errors), Lat: latOf(o.Latency)})
	}
	return v
}

// transfers is how many ledger transfers a row's window completed.
func transfers(t *results.Trial) int64 {
	for _, o := range t.Ops {
		if o.Name == workload.Transfer.String() {
			return o.Operations - o.Errors
		}
	}
	return 0
}

func latOf(l results.Latency) latView {
	return latView{Mean: fmtMs(l.Mean), P50: fmtMs(l.P50), P90: fmtMs(l.P90), P95: fmtMs(l.P95),
		P99: fmtMs(l.P99), P999: fmtMs(l.P999), Max: fmtMs(l.Max)}
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return dash
	}
	return s
}
