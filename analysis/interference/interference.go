// Package interference tells how much of the cores a trial's database
// and load generator ran on was taken by anything else over its
// measured window: processes outside the benchmark, the hypervisor
// running other machines (steal), and the experiment's other targets
// while they idled. A repetition that lost a share of its cores is not a
// measurement of the database: the experiment flags it and measures it
// again.
//
// The cores are grouped so that every part of the benchmark lies inside
// one group: a database pinned to core 1 and a load generator confined to
// core 0 make two groups, and what ran on core 1 beside the database is
// known exactly; a database that may run anywhere makes one group of
// every core with the load generator. In each group,
//
//	others = busy - the parts' CPU
//
// where busy counts every mode but idle and iowait, steal included (the
// core was not there for us). A group that holds the database or the
// load generator lost its cores when steal reached MaxShare of its
// capacity (the hypervisor counts steal only while a core wanted to
// run), or others did while it had less than MaxShare idle: the parts
// could have used what others took.
package interference

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Thresholds of the judgement, documented in
// docs/guide/repeatability.md and pinned by tests on both sides.
const (
	// MaxShare is the share of a group's capacity that others may take
	// before its trial is called interfered: a tenth of a core for a
	// database on one core of its own. On a quiet 2-core machine the
	// kernel's threads and the experiment's own sampling took 1-4% of a
	// pinned database's core; a busy loop on that core for half of a
	// 6-second window took 25%.
	MaxShare = 0.10
)

// Kind says what a part of the benchmark is.
type Kind int

// Kinds of parts.
const (
	// Database is the database under test.
	Database Kind = iota + 1
	// Client is the load generator: this process and the loader
	// processes it started here.
	Client
	// Idle is another target of the experiment, deployed beside the one
	// measured and idle meanwhile: its background work (a JVM's
	// collector, compaction, a checkpoint) takes its cores' time too.
	Idle
)

// Part is one process tree of the benchmark on this machine.
type Part struct {
	// Name is how a sentence names it: "postgres", "the load generator".
	Name string
	Kind Kind
	// Cores are the cores it may run on; nil: any core of the machine.
	Cores []int
	// CPU is its mean CPU over the window, 100 = one core (NaN: not
	// measured).
	CPU float64
}

// Usage is the machine's cores over the window: each core's mean busy
// and steal percent (100 = the whole core), by core number.
type Usage struct {
	Busy, Steal map[int]float64
}

// Group is a set of cores and the parts that ran on them.
type Group struct {
	Cores []int
	// Busy and Steal sum the cores' (100 = one core); Parts' CPU is
	// inside Busy.
	Busy, Steal float64
	Parts       []Part
	// Others is what the group's cores spent outside its parts, steal
	// included, never below 0; Idle is the part of the parts' CPU that
	// idle targets took.
	Others, Idle float64
}

// Capacity is the group's cores, 100 each.
func (g *Group) Capacity() float64 { return 100 * float64(len(g.Cores)) }

// Lost is what the group's database or load generator could not use:
// what others and the idle targets took.
func (g *Group) Lost() float64 { return g.Others + g.Idle }

// Interfered reports whether the group holds the database or the load
// generator and lost MaxShare of its capacity: to steal alone, which is
// time its processes wanted a core and the hypervisor gave it to
// another machine, or to others and idle targets while less than
// MaxShare of it was idle (time they took that the parts would have
// used).
func (g *Group) Interfered() bool {
	if !g.holds(Database) && !g.holds(Client) {
		return false
	}
	c := g.Capacity()
	if c <= 0 {
		return false
	}
	return g.Steal >= MaxShare*c || (g.Lost() >= MaxShare*c && c-g.Busy < MaxShare*c)
}

func (g *Group) holds(k Kind) bool {
	return slices.ContainsFunc(g.Parts, func(p Part) bool { return p.Kind == k })
}

// Groups splits the machine's cores into groups that each hold whole
// parts: cores shared by a part are one group. Cores no part runs on are
// left out. A part whose CPU was not measured makes its group's others
// unknown (NaN). Groups come in the order of their lowest core.
func Groups(u Usage, parts []Part) []Group {
	all := make([]int, 0, len(u.Busy))
	for c := range u.Busy {
		all = append(all, c)
	}
	slices.Sort(all)
	// union-find over cores: each part joins the cores it may use
	parent := map[int]int{}
	var find func(int) int
	find = func(c int) int {
		if p, ok := parent[c]; ok && p != c {
			parent[c] = find(p)
			return parent[c]
		}
		parent[c] = c
		return c
	}
	coresOf := func(p Part) []int {
		if len(p.Cores) == 0 {
			return all
		}
		var out []int
		for _, c := range p.Cores {
			if _, ok := u.Busy[c]; ok {
				out = append(out, c)
			}
		}
		return out
	}
	for _, p := range parts {
		cs := coresOf(p)
		if len(cs) == 0 {
			continue
		}
		root := find(cs[0])
		for _, c := range cs[1:] {
			parent[find(c)] = root
		}
	}
	byRoot := map[int]*Group{}
	var order []int
	for _, c := range all {
		if _, used := parent[c]; !used {
			continue
		}
		r := find(c)
		g := byRoot[r]
		if g == nil {
			g = &Group{}
			byRoot[r] = g
			order = append(order, r)
		}
		g.Cores = append(g.Cores, c)
		g.Busy += u.Busy[c]
		g.Steal += u.Steal[c]
	}
	for _, p := range parts {
		cs := coresOf(p)
		if len(cs) == 0 {
			continue
		}
		g := byRoot[find(cs[0])]
		g.Parts = append(g.Parts, p)
	}
	out := make([]Group, 0, len(order))
	for _, r := range order {
		g := byRoot[r]
		g.share()
		out = append(out, *g)
	}
	return out
}

// share splits the group's busy time: what its idle targets took, and
// what was left to others (NaN when a part was not measured).
func (g *Group) share() {
	used := 0.0
	for _, p := range g.Parts {
		if p.Kind == Idle {
			g.Idle += p.CPU
		}
		used += p.CPU // NaN when a part was not measured
	}
	g.Others = math.Max(g.Busy-used, 0)
	if math.IsNaN(used) {
		g.Others = math.NaN()
	}
}

// Describe says what took a group's cores: "other processes took 42% of
// core 1 (the hypervisor 30%, processes 12%), the idle target cassandra
// 3%, where postgres ran".
func (g *Group) Describe() string {
	var took []string
	if g.Others > 0 {
		s := fmt.Sprintf("other processes %.0f%%", g.Others)
		if g.Steal >= 1 {
			s = fmt.Sprintf("other processes %.0f%% (the hypervisor's steal %.0f%% of it)", g.Others, math.Min(g.Steal, g.Others))
		}
		took = append(took, s)
	}
	for _, p := range g.Parts {
		if p.Kind == Idle && p.CPU >= 1 {
			took = append(took, fmt.Sprintf("the idle target %s %.0f%%", p.Name, p.CPU))
		}
	}
	var who []string
	for _, p := range g.Parts {
		if p.Kind != Idle {
			who = append(who, p.Name)
		}
	}
	if len(took) == 0 {
		took = append(took, "nothing else")
	}
	return fmt.Sprintf("%s took %s of %s, where %s ran (%.0f%% busy)", strings.Join(took, " and "), pctOfCores(g.Lost(), len(g.Cores)),
		coreNames(g.Cores), strings.Join(who, " and "), g.Busy)
}

// pctOfCores writes a share of n cores: "42%" of one core, "35% of 2
// cores' 200%".
func pctOfCores(v float64, n int) string {
	if n == 1 {
		return fmt.Sprintf("%.0f%%", v)
	}
	return fmt.Sprintf("%.0f%% of %d%%", v, 100*n)
}

// coreNames writes "core 1" or "cores 0, 1".
func coreNames(cores []int) string {
	if len(cores) == 1 {
		return fmt.Sprintf("core %d", cores[0])
	}
	names := make([]string, len(cores))
	for i, c := range cores {
		names[i] = fmt.Sprint(c)
	}
	return "cores " + strings.Join(names, ", ")
}
