package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/internal/plural"
	"github.com/dbarena/dbarena/internal/suggest"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/workload"
)

// Defaults of the load and run settings. A 60 s run keeps a comparison of
// two targets on workloads A to F to 12 minutes of measurement; a study of
// steady state (compactions, checkpoints) should set a longer duration
// and a warm-up explicitly.
const (
	defaultResults     = "dbarena-results"
	defaultLoadThreads = 4
	defaultRunThreads  = 8
	// A sweep run until saturated stops after two steps in a row that
	// each added under 5% throughput: one flat step can be noise.
	defaultSaturationGain  = 0.05
	defaultSaturationSteps = 2
	// A rate search stops once the lowest rate missed is within 5% of
	// the highest met, after 12 probes at most (about 7 from a closed
	// loop's saturation throughput).
	defaultResolution = 0.05
	defaultMaxProbes  = 12
	// maxProbes bounds run.max_probes: each probe is a trial.
	maxProbes       = 100
	defaultDuration = 60 * time.Second
	defaultProvider = "local"
)

// spec decodes the whole document. Problems are collected in d.errs.
func (d *decoder) spec(doc *yaml.Node) *Spec {
	s := &Spec{File: d.file, Results: defaultResults, DriverPrefixes: d.opts.DriverPrefixes, lines: map[string]int{}}
	root := doc
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		root = doc.Content[0]
	}
	f, ok := d.mapping(root, "", sectionKeys(""))
	if !ok {
		return s
	}
	d.header(f, s)
	if n := f.get("properties"); n != nil {
		s.Properties = d.properties(n, "properties", false)
	}
	s.Targets = d.targets(f, root)
	s.Workloads = d.workloads(f, root)
	s.Load = d.load(f.get("load"), s.lines)
	s.Run = d.run(f.get("run"), s.lines)
	if n := f.get("matrix"); n != nil {
		s.Matrix, s.Sizes = d.matrix(n)
		s.Targets = d.sizedTargets(s.Targets, s.Sizes, n)
	}
	s.SLO = d.slo(f.get("slo"))
	s.Goal = d.goal(f.get("goal"))
	if s.Goal != nil && s.Run.Until != UntilSLO {
		d.errorf(f.get("goal"), "goal", "a goal is answered from rate searches: set run: {until: slo} (with sizes as matrix: {size: [...]})")
	}
	d.catalogue(s, f.get("prices"))
	if len(s.Run.Stages) > 0 {
		for _, ax := range []string{axisThreads, axisTarget} {
			if hasAxis(s.Matrix, ax) {
				d.errorf(f.get("matrix"), "matrix."+ax, "run.stages (or ramp) set each stage's threads and target: drop the matrix axis %q", ax)
			}
		}
	}
	if s.Run.ThreadsAuto {
		d.checkThreadsAuto(s, f)
	}
	if s.Run.Until == UntilSaturated && !hasAxis(s.Matrix, axisThreads) {
		d.errorf(f.get("run"), "run.until", "until: saturated stops a client sweep: it needs a matrix axis %q with the thread counts to try, e.g. threads: [1, 2, 4, 8, 16, 32]", axisThreads)
	}
	if s.Run.Until == UntilSLO {
		d.checkSearch(s, f)
	}
	d.checkSize(s, f.key("matrix"))
	return s
}

// checkSearch refuses what run.until: slo cannot serve: the search sets
// each probe's rate, so nothing else may, and it judges probes by the
// objective and over a time each.
func (d *decoder) checkSearch(s *Spec, f fields) {
	r := s.Run
	where := f.get("run")
	switch {
	case s.SLO == nil || len(s.SLO.Bounds) == 0:
		d.errorf(where, "run.until", "until: slo searches the highest rate that meets the objective: give one, e.g. slo: {p99: 5ms}")
	case hasAxis(s.Matrix, axisTarget):
		d.errorf(f.get("matrix"), "matrix."+axisTarget, "until: slo searches the rate: drop the matrix axis %q (the search chooses the rates)", axisTarget)
	case r.Target > 0:
		d.errorf(where, "run.target", "until: slo searches the rate: drop run.target (the search chooses the rates)")
	case len(r.Stages) > 0:
		d.errorf(where, "run.until", "until: slo runs each probe at one rate: drop run.stages (or ramp)")
	case r.Operations > 0:
		d.errorf(where, "run.operations", "until: slo judges each probe over a time: give run.duration, not run.operations")
	case hasAxis(s.Matrix, axisThreads):
		d.errorf(f.get("matrix"), "matrix."+axisThreads, "until: slo sizes each probe's threads from Little's law: drop the matrix axis %q (run.threads is the fewest it uses)", axisThreads)
	}
}

// header decodes name, description, seed and results.
func (d *decoder) header(f fields, s *Spec) {
	if n := f.get("name"); n == nil {
		d.errorf(f.node, "", `missing required key "name": want a name such as pg-vs-cassandra`)
	} else if v, ok := d.str(n, "name"); ok {
		if validName(v) {
			s.Name = v
		} else {
			d.errorf(n, "name", "want lower-case letters, digits, '-' and '_', starting with a letter or digit, got %q", v)
		}
	}
	if n := f.get("description"); n != nil {
		s.Description, _ = d.str(n, "description")
	}
	if n := f.get("seed"); n != nil {
		if v, ok := d.scalar(n, "seed", "an integer >= 0"); ok {
			seed, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				d.errorf(n, "seed", "want an integer >= 0 (0: chosen at run time), got %q", v)
			}
			s.Seed = seed
		}
	}
	if n := f.get("results"); n != nil {
		if v, ok := d.str(n, "results"); ok && strings.TrimSpace(v) == "" {
			d.errorf(n, "results", "want a directory, got nothing (omit the key for %q)", defaultResults)
		} else if ok {
			s.Results = v
		}
	}
}

// properties decodes a property mapping, refusing the properties the
// experiment's own settings decide and the ones no part of dbarena reads.
// A typo such as requestdistribtion was a warning printed after the plan,
// and the run measured the default distribution; in a file written for
// dbarena an unknown key is a mistake. (YCSB's own pass-through of
// unknown keys stays for -p on the ycsb command and for property files.)
//
// A workload's kind is its own: set anywhere but on a workload (own is
// false) it is refused, as it would turn every workload into that kind.
func (d *decoder) properties(n *yaml.Node, path string, own bool) []KV {
	kvs := d.stringMap(n, path)
	out := kvs[:0]
	for _, kv := range kvs {
		if kv.Key == core.WorkloadKind && !own {
			d.errorf(d.keyNode(n, kv.Key), join(path, kv.Key), "a workload's kind is its own: set it in the workload's properties or its property file (one of %s)", workload.KindChoices())
			continue
		}
		if instead, owned := ownedProperties()[kv.Key]; owned {
			d.errorf(d.keyNode(n, kv.Key), join(path, kv.Key), "set by the experiment: use %s instead", instead)
			continue
		}
		if !knownAxis(kv.Key, d.opts.DriverPrefixes) {
			d.errorf(d.keyNode(n, kv.Key), join(path, kv.Key), "%s", unknownProperty(kv.Key, d.opts.DriverPrefixes))
			continue
		}
		out = append(out, kv)
	}
	return out
}

// keyNode finds the key node of key in mapping n, for its position.
func (d *decoder) keyNode(n *yaml.Node, key string) *yaml.Node {
	n = resolve(n)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := resolve(n.Content[i]); k.Value == key {
			return k
		}
	}
	return n
}

// targets decodes the list of targets; names must be unique.
func (d *decoder) targets(f fields, root *yaml.Node) []Target {
	n := f.get("targets")
	if n == nil {
		d.errorf(root, "", `missing required key "targets": want at least one database to measure`)
		return nil
	}
	items, ok := d.sequence(n, "targets")
	if ok && len(items) == 0 {
		d.errorf(n, "targets", "want at least one target, got none")
	}
	var out []Target
	first := map[string]int{}
	for i, item := range items {
		path := fmt.Sprintf("targets[%d]", i)
		t, nameNode, ok := d.target(item, path)
		if !ok {
			continue
		}
		if line, dup := first[t.Name]; dup {
			hint := ""
			if nameNode == nil {
				hint = "; a target's name defaults to its database: give targets of one database distinct names"
			}
			d.errorf(item, path, "duplicate target name %q (first at line %d)%s", t.Name, line, hint)
			continue
		}
		first[t.Name] = item.Line
		out = append(out, t)
	}
	return out
}

// target decodes one target. nameNode is nil when the name defaulted.
func (d *decoder) target(n *yaml.Node, path string) (Target, *yaml.Node, bool) {
	t := Target{Line: n.Line, Properties: map[string]string{}, PropertyLines: map[string]int{}}
	f, ok := d.mapping(n, path, sectionKeys(path))
	if !ok {
		return t, nil, false
	}
	nerr := len(d.errs)
	db := f.get("database")
	if db == nil {
		d.errorf(n, path, `missing required key "database"; valid: %s`, listOrAny(d.opts.Databases))
	} else if v, ok := d.str(db, join(path, "database")); ok {
		t.Database = v
		if len(d.opts.Databases) > 0 && !slices.Contains(d.opts.Databases, v) {
			d.errorf(db, join(path, "database"), "unknown database %q; valid: %s%s", v,
				strings.Join(d.opts.Databases, ", "), didYouMean(v, d.opts.Databases))
		}
	}
	t.Name = t.Database
	nameNode := f.get("name")
	if nameNode != nil {
		if v, ok := d.str(nameNode, join(path, "name")); ok {
			t.Name = v
		}
	}
	if t.Name != "" && !validName(t.Name) {
		d.errorf(firstNonNil(nameNode, db), join(path, "name"),
			"want lower-case letters, digits, '-' and '_', starting with a letter or digit, got %q", t.Name)
	}
	t.Driver = d.driver(f.get("driver"), path, t.Database)
	if p := f.get("properties"); p != nil {
		for _, kv := range d.properties(p, join(path, "properties"), false) {
			t.Properties[kv.Key] = kv.Value
			t.PropertyLines[kv.Key] = kv.Line
		}
	}
	t.Deploy = d.deploy(f.get("deploy"), join(path, "deploy"))
	t.Cost = d.cost(f.get("cost"), join(path, "cost"))
	return t, nameNode, len(d.errs) == nerr
}

// driver decodes a target's driver, defaulting to the database's.
func (d *decoder) driver(n *yaml.Node, path, database string) string {
	if n == nil {
		if d.opts.DriverFor != nil {
			if drv := d.opts.DriverFor(database); drv != "" {
				return drv
			}
		}
		return database
	}
	v, ok := d.str(n, join(path, "driver"))
	if ok && len(d.opts.Drivers) > 0 && !slices.Contains(d.opts.Drivers, v) {
		d.errorf(n, join(path, "driver"), "unknown driver %q; valid: %s%s", v,
			strings.Join(d.opts.Drivers, ", "), didYouMean(v, d.opts.Drivers))
	}
	return v
}

// deploy decodes a target's deploy section.
func (d *decoder) deploy(n *yaml.Node, path string) Deploy {
	dep := Deploy{Provider: defaultProvider, Nodes: 1, Options: map[string]string{}}
	if n == nil {
		return dep
	}
	f, ok := d.mapping(n, path, sectionKeys(path))
	if !ok {
		return dep
	}
	if p := f.get("provider"); p != nil {
		dep.Provider, _ = d.str(p, join(path, "provider"))
	}
	d.checkProvider(f.get("provider"), path, dep.Provider)
	if v := f.get("nodes"); v != nil {
		dep.Nodes, _ = d.boundedInt(v, join(path, "nodes"), maxNodes, "nodes")
	}
	dep.CPUs = d.cores(f.get("cpus"), join(path, "cpus"))
	dep.MemoryBytes = d.memory(f.get("memory"), join(path, "memory"))
	if v := f.get("pin"); v != nil {
		dep.Pin, _ = d.boolean(v, join(path, "pin"))
		if dep.Pin && dep.CPUs == 0 {
			d.errorf(v, join(path, "pin"), "pin: true needs cpus, the number of whole cores to pin the database to (such as cpus: 1)")
		}
		if dep.Pin && dep.Provider != defaultProvider {
			d.errorf(v, join(path, "pin"), "pin: true pins local processes to cores of this machine; provider %q runs elsewhere (its cpus is a limit of its own)", dep.Provider)
		}
	}
	if v := f.get("version"); v != nil {
		dep.Version, _ = d.str(v, join(path, "version"))
	}
	if o := f.get("options"); o != nil {
		for _, kv := range d.stringMap(o, join(path, "options")) {
			dep.Options[kv.Key] = kv.Value
		}
	}
	return dep
}

// checkProvider checks a provider the file names (n is nil when it
// defaulted: offering the default is the caller's business).
func (d *decoder) checkProvider(n *yaml.Node, path, provider string) {
	if n == nil || len(d.opts.Providers) == 0 || slices.Contains(d.opts.Providers, provider) {
		return
	}
	d.errorf(n, join(path, "provider"), "unknown provider %q; valid: %s%s", provider,
		strings.Join(d.opts.Providers, ", "), didYouMean(provider, d.opts.Providers))
}

// didYouMean returns " (did you mean "x"?)" or "".
func didYouMean(got string, valid []string) string {
	if best := suggest.Nearest(got, valid); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

func listOrAny(valid []string) string {
	if len(valid) == 0 {
		return "any database name"
	}
	return strings.Join(valid, ", ")
}

func firstNonNil(ns ...*yaml.Node) *yaml.Node {
	for _, n := range ns {
		if n != nil {
			return n
		}
	}
	return nil
}

// checkSize refuses plans beyond maxTrials before anything expands them.
func (d *decoder) checkSize(s *Spec, at *yaml.Node) {
	points := 1
	for _, a := range s.Matrix {
		points = min(points*max(len(a.Values), 1), maxTrials+1)
	}
	reps := max(s.Run.Repetitions, 1)
	total := len(s.Targets) * len(s.Workloads) * points * reps
	if total <= maxTrials {
		return
	}
	what := fmt.Sprintf("%s x %s x %s x %s", plural.Count(len(s.Targets), "target"), plural.Count(len(s.Workloads), "workload"),
		plural.Count(points, "matrix point"), plural.Count(reps, "repetition"))
	if points > maxTrials {
		what = fmt.Sprintf("a matrix of more than %d points", maxTrials)
	}
	d.errorf(at, "matrix", "the experiment expands to %d trials (%s); the limit is %d: shorten the axes or split the experiment",
		max(total, points), what, maxTrials)
}

// unknownAxis explains a matrix key that is neither a run setting nor a
// known property.
func unknownAxis(key string, driverPrefixes []string) string {
	msg := fmt.Sprintf("unknown matrix axis %q: want threads, target, a workload property or a driver property (%s)",
		key, prefixList(driverPrefixes))
	if best := suggest.Nearest(key, axisSuggestions()); best != "" {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	return msg
}

func prefixList(prefixes []string) string {
	if len(prefixes) == 0 {
		return "prefix.key"
	}
	return strings.Join(prefixes, ".*, ") + ".*"
}

// unknownProperty explains a property key that no part of dbarena reads.
func unknownProperty(key string, driverPrefixes []string) string {
	msg := fmt.Sprintf("unknown property %q: want a YCSB workload or client property, a dbarena one, or a driver property (%s)",
		key, prefixList(driverPrefixes))
	if best := workload.SuggestProperty(key); best != "" {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	return msg
}

// knownAxis reports whether a matrix key is a property a trial can vary.
func knownAxis(key string, driverPrefixes []string) bool {
	if workload.KnownProperty(key) {
		return true
	}
	prefix, rest, ok := strings.Cut(key, ".")
	return ok && rest != "" && slices.Contains(driverPrefixes, prefix)
}

// hasAxis reports whether the matrix sweeps property.
func hasAxis(m []Axis, property string) bool {
	for _, a := range m {
		if a.Property == property {
			return true
		}
	}
	return false
}

// checkThreadsAuto refuses what run.threads: auto cannot serve: the
// calibration runs in this process, with one thread count per target.
func (d *decoder) checkThreadsAuto(s *Spec, f fields) {
	r := s.Run
	where := f.get("run")
	switch {
	case hasAxis(s.Matrix, axisThreads):
		d.errorf(f.get("matrix"), "matrix."+axisThreads, "run.threads: auto calibrates the threads; a matrix axis %q gives them: choose one", axisThreads)
	case len(r.Stages) > 0:
		d.errorf(where, "run.threads", "run.threads: auto and run.stages: the stages give each one's threads")
	case r.Loaders > 1 || len(r.LoaderCommands) > 0:
		d.errorf(where, "run.threads", "run.threads: auto calibrates in this process; with run.loaders give the threads of each loader")
	case r.Target > 0:
		d.errorf(where, "run.threads", "run.threads: auto finds where the database saturates; a run.target paces it below that: give the threads the rate needs (dbarena analyze littles-law)")
	}
}

// cores decodes an optional number of cores (deploy.cpus, a size's
// cpus); absent is 0.
func (d *decoder) cores(n *yaml.Node, path string) float64 {
	if n == nil {
		return 0
	}
	s, ok := d.scalar(n, path, "a number of cores > 0")
	if !ok {
		return 0
	}
	c, err := strconv.ParseFloat(s, 64)
	if err != nil || !(c > 0) || c > 1e6 {
		d.errorf(n, path, "want a number of cores > 0 such as 1.5, got %q", s)
	}
	return c
}

// memory decodes an optional memory size (deploy.memory, a size's
// memory); absent is 0.
func (d *decoder) memory(n *yaml.Node, path string) int64 {
	if n == nil {
		return 0
	}
	s, ok := d.scalar(n, path, "a size such as 2GiB")
	if !ok {
		return 0
	}
	b, err := parseMemory(s)
	if err != nil {
		d.errorf(n, path, "%v, got %q", err, s)
	}
	return b
}
