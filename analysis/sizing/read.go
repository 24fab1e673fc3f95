package sizing

import (
	"fmt"
	"math"
	"slices"

	"github.com/dbarena/dbarena/analysis/capacity"
	"github.com/dbarena/dbarena/analysis/cost"
	"github.com/dbarena/dbarena/analysis/objective"
	"github.com/dbarena/dbarena/results"
)

// Group is one database's sizes for one workload (and matrix point), as
// the rate searches of one or more results directories measured them.
type Group struct {
	// Database is the target's name in the experiment file (its base,
	// for sizes of the matrix axis size).
	Database string
	Workload string
	Params   []results.Param
	// Unit is what its rates count: a TPC-C search's are transactions.
	Unit results.Unit
	// Dir is the results directory the group's first size came from.
	Dir string
	// Objective is what the sizes were judged by.
	Objective string
	Sizes     []Measured
	// Memory is the largest GiB per core among the sizes that set a
	// memory limit (0: none did), to price a candidate size alike.
	Memory float64
	// Notes say what a reader should know of how they were read.
	Notes []string
}

// Pricing prices a size: machine types from the catalogue, a size of
// cores and memory at the catalogue's per-vCPU and per-GiB rates.
type Pricing struct {
	Catalogue *cost.Catalogue
	// PerCore and PerGiB name the catalogue entries whose hourly price
	// per vCPU and per GiB price a size of cores and memory
	// (DefaultPerCore, DefaultPerGiB).
	PerCore, PerGiB string
}

// The catalogue entries that price cores and memory by default: GCP's
// N2D rates, which its machine types' prices add up from.
const (
	DefaultPerCore = "n2d-vcpu"
	DefaultPerGiB  = "n2d-gib"
)

// refusedKinds are the flags that make a trial's figures the client's or
// the machine's, not the database's: a size decided by such a trial is
// refused.
var refusedKinds = []results.FlagKind{results.FlagClientBound, results.FlagHostSaturated, results.FlagNotSteady,
	results.FlagLoaderLost, results.FlagFailed}

// Read gathers the rate searches of dirs into groups, one per database,
// workload and matrix point. With slo set, every probe is judged anew by
// it (a probe the search found unfair stays unfair); otherwise each
// search's own verdicts stand.
func Read(dirs []*results.Data, slo *results.SLO, p Pricing) ([]Group, error) {
	var groups []Group
	index := map[string]int{}
	for _, d := range dirs {
		rows := map[string]results.Trial{}
		for _, r := range d.Trials {
			rows[r.ID] = r
		}
		targets := map[string]results.TargetInfo{}
		for _, t := range d.Manifest.Targets {
			targets[t.Name] = t
		}
		for _, s := range d.Manifest.Searches {
			ti, ok := targets[s.Target]
			if !ok {
				return nil, fmt.Errorf("sizing: %s: search %s names target %q, which the manifest does not list", d.Dir, s.ID, s.Target)
			}
			db := ti.Base
			if db == "" {
				db = ti.Name
			}
			key := db + "\x00" + s.Workload + "\x00" + results.FormatParams(s.Params)
			i, ok := index[key]
			if !ok {
				i = len(groups)
				index[key] = i
				groups = append(groups, Group{Database: db, Workload: s.Workload, Params: s.Params, Objective: s.Objective, Dir: d.Dir})
			}
			g := &groups[i]
			for _, pr := range s.Probes {
				if r, ok := rows[pr.Trial]; ok {
					g.Unit = results.UnitOf(&r)
					break
				}
			}
			m, note := measure(s, ti, rows, slo, d.Manifest.SLO, p)
			if note != "" {
				g.Notes = append(g.Notes, note)
			}
			if slo != nil {
				g.Objective = slo.String()
			} else if g.Objective != s.Objective {
				return nil, fmt.Errorf("sizing: %s at %s was searched at %s and at %s: give the objective to judge them all by (--p99)", db, s.Workload, g.Objective, s.Objective)
			}
			if ti.MemoryBytes > 0 && m.Cores > 0 {
				g.Memory = math.Max(g.Memory, float64(ti.MemoryBytes)/(1<<30)/m.Cores)
			}
			g.Sizes = append(g.Sizes, m)
		}
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("sizing: no rate searches in these results: run an experiment with run: {until: slo} (and sizes as matrix: {size: [...]})")
	}
	return groups, nil
}

// measure is what a search says of one size, with a note when the
// objective asked is stricter than the one the probes were placed for.
func measure(s results.Search, ti results.TargetInfo, rows map[string]results.Trial, slo, own *results.SLO, p Pricing) (Measured, string) {
	label := ti.Size
	if label == "" {
		label = ti.Name
	}
	m := Measured{Label: label, Cores: cores(ti, p.Catalogue), Rate: s.Rate, Ceiling: s.Ceiling}
	m.Monthly, _ = p.Monthly(ti)
	note := ""
	if slo != nil && !objective.Same(slo, own) {
		m.Rate, m.Ceiling = rejudge(s, rows, objective.Inherit(slo, own))
		note = fmt.Sprintf("%s: its probes were placed to find the rate at %s and are judged here by %s: the rate met is a lower bound, not resolved to %.0f%%",
			label, s.Objective, slo, 100*s.Resolution)
	}
	m.Refusal = refusal(s, m.Rate, rows)
	for _, p := range s.Probes {
		if p.Rate == m.Rate && !unfair(p) {
			m.Threads = max(m.Threads, p.Threads)
		}
	}
	return m, note
}

// Threads is how many workers a run at rate needs, from the sizes
// measured: the most workers any of them needed per operation per
// second at its rate met, times rate; at least least.
func (g *Group) Threads(rate float64, least int) int {
	per := 0.0
	for _, m := range g.Sizes {
		if m.Rate > 0 && m.Threads > 0 {
			per = math.Max(per, float64(m.Threads)/m.Rate)
		}
	}
	return max(least, int(math.Ceil(per*rate)))
}

// Confirmation is what a confirming run says of an answer.
type Confirmation int

const (
	// Confirmed: the run served the rate within the objective.
	Confirmed Confirmation = iota + 1
	// NotConfirmed: the database, measured fairly, did not.
	NotConfirmed
	// Unjudged: the run's figures are the client's or the machine's, so
	// they neither confirm the answer nor refute it.
	Unjudged
)

// String is the word the command prints for the outcome.
func (o Confirmation) String() string {
	switch o {
	case Confirmed:
		return "confirmed"
	case NotConfirmed:
		return "not confirmed"
	default:
		return "could not confirm"
	}
}

// Confirm judges a run at rate, made to confirm an answer, by slo: it
// confirms when it did not fail and met the objective (package
// objective: the share of the rate it names, and every bound), and no
// flag says the client or the machine made its figures. A run that met the objective although other processes took
// a share of its cores (interfered) confirms it: the database did so
// with less than it had. One that missed while interfered is unjudged,
// as one whose figures a flag gives to the client or the machine. why
// says what held or what did not.
func Confirm(row results.Trial, rate float64, slo *results.SLO) (Confirmation, string) {
	if row.Status == results.StatusFailed {
		return NotConfirmed, "the run failed: " + row.StatusReason
	}
	for _, f := range row.Flags {
		if slices.Contains(refusedKinds, f.Kind()) {
			return Unjudged, "the run proves nothing of the database: " + string(f)
		}
	}
	got := fmt.Sprintf("served %s of %s %s, p99 %.2f ms", results.FormatOps(row.Throughput), results.FormatOps(rate), results.UnitOf(&row).Rate(), row.Latency.P99/1e3)
	j := objective.Judge(slo, rate, row.Throughput, row.Latency, 0)
	if j.Met() {
		return Confirmed, got + ": " + slo.String() + " held"
	}
	missed := got + ": " + j.Why()
	for _, f := range row.Flags {
		if f.Kind() == results.FlagInterfered {
			return Unjudged, missed + ", while " + string(f)
		}
	}
	return NotConfirmed, missed
}

// rejudge finds the highest rate met by slo below the lowest missed.
func rejudge(s results.Search, rows map[string]results.Trial, slo *results.SLO) (rate, ceiling float64) {
	ceiling = math.Inf(1)
	var met []float64
	for _, p := range s.Probes {
		if unfair(p) {
			continue
		}
		row, ok := rows[p.Trial]
		ok = ok && row.Status != results.StatusFailed && objective.Judge(slo, p.Rate, row.Throughput, row.Latency, 0).Met()
		if ok {
			met = append(met, p.Rate)
		} else {
			ceiling = math.Min(ceiling, p.Rate)
		}
	}
	for _, r := range met {
		if r < ceiling {
			rate = math.Max(rate, r)
		}
	}
	if math.IsInf(ceiling, 1) {
		ceiling = 0
	}
	return rate, ceiling
}

// refusal says why a size's figures cannot be used: the search could
// not judge the database at all, or the probe its rate rests on was made
// by the client or the machine.
func refusal(s results.Search, rate float64, rows map[string]results.Trial) string {
	if rate == 0 {
		if n := len(s.Probes); n > 0 && unfair(s.Probes[n-1]) {
			return "the search could not judge the database: " + s.Stop
		}
		if n := len(s.Probes); n == 0 {
			return "the search ran no probe: " + s.Stop
		}
		return ""
	}
	for _, p := range s.Probes {
		if p.Rate != rate || unfair(p) {
			continue
		}
		row, ok := rows[p.Trial]
		if !ok {
			return fmt.Sprintf("the row of probe %s is missing", p.Trial)
		}
		if row.Status == results.StatusFailed {
			return fmt.Sprintf("probe %s failed: %s", p.Trial, row.StatusReason)
		}
		for _, f := range row.Flags {
			if slices.Contains(refusedKinds, f.Kind()) {
				return fmt.Sprintf("probe %s, whose rate is the answer, was %s", p.Trial, f)
			}
		}
	}
	return ""
}

// unfair says a probe proved nothing of the database (capacity.Unfair).
func unfair(p results.SearchProbe) bool { return p.Outcome == capacity.Unfair.String() }

// cores is a target's total CPU: its cap times its nodes, or its machine
// type's vCPUs times its nodes; 0 when neither is known.
func cores(ti results.TargetInfo, cat *cost.Catalogue) float64 {
	n := float64(max(ti.Nodes, 1))
	if ti.CPUs > 0 {
		return ti.CPUs * n
	}
	if cat != nil && ti.MachineType != "" {
		if in, err := cat.Instance(ti.MachineType); err == nil && in.VCPUs > 0 {
			return float64(in.VCPUs) * n
		}
	}
	return 0
}

// Monthly prices a target for a month: its machine type times its nodes;
// its cores (and memory, when capped) at the per-vCPU and per-GiB rates;
// or the cost its experiment gave it. It returns NaN and why when none
// applies.
func (p Pricing) Monthly(ti results.TargetInfo) (float64, string) {
	n := float64(max(ti.Nodes, 1))
	if p.Catalogue != nil && ti.MachineType != "" {
		in, err := p.Catalogue.Instance(ti.MachineType)
		if err != nil {
			return math.NaN(), err.Error()
		}
		return in.Monthly() * n, ""
	}
	if ti.CPUs > 0 {
		gib := float64(ti.MemoryBytes) / (1 << 30)
		return p.Cores(ti.CPUs*n, gib*n)
	}
	if ti.Cost != nil && ti.Cost.MonthlyUSD > 0 {
		return ti.Cost.MonthlyUSD, ""
	}
	return math.NaN(), "no machine type, cores or cost to price it by"
}

// Cores prices cores and GiB of memory for a month at the per-vCPU and
// per-GiB rates.
func (p Pricing) Cores(cores, gib float64) (float64, string) {
	if p.Catalogue == nil {
		return math.NaN(), "no price catalogue"
	}
	rate := func(name, what string, per func(cost.Instance) float64) (float64, error) {
		in, err := p.Catalogue.Instance(name)
		if err != nil {
			return 0, err
		}
		if per(in) <= 0 {
			return 0, fmt.Errorf("catalogue entry %s has no %s to price by", name, what)
		}
		return in.Monthly() / per(in), nil
	}
	c, err := rate(p.PerCore, "vCPUs", func(in cost.Instance) float64 { return float64(in.VCPUs) })
	if err != nil {
		return math.NaN(), err.Error()
	}
	total := cores * c
	if gib > 0 {
		g, err := rate(p.PerGiB, "memory", func(in cost.Instance) float64 { return in.MemoryGiB })
		if err != nil {
			return math.NaN(), err.Error()
		}
		total += gib * g
	}
	return total, ""
}

// Candidates are the sizes not measured to predict for g: of the cores
// asked for, or by default, when no size measured serves ask, 1.5, 2, 3
// and 4 times the largest measured. Each is priced like the measured
// sizes, with their memory per core, and labelled as the matrix axis
// size labels cores ("1500m", "2cpu").
func (g *Group) Candidates(cores []float64, p Pricing, ask Ask) []Candidate {
	if len(cores) == 0 {
		largest := 0.0
		for _, m := range g.Sizes {
			largest = math.Max(largest, m.Cores)
			if m.Refusal == "" && m.Rate >= ask.Throughput*(1+ask.Headroom) {
				return nil
			}
		}
		if largest == 0 {
			return nil
		}
		for _, k := range []float64{1.5, 2, 3, 4} {
			cores = append(cores, k*largest)
		}
	}
	var out []Candidate
	for _, c := range cores {
		m, _ := p.Cores(c, c*g.Memory)
		out = append(out, Candidate{Label: results.CoresLabel(c), Cores: c, Monthly: m})
	}
	return out
}
