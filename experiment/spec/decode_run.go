package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/internal/bounds"
	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workloads"
)

// workloads decodes the list of workloads; names must be unique.
func (d *decoder) workloads(f fields, root *yaml.Node) []Workload {
	n := f.get("workloads")
	if n == nil {
		d.errorf(root, "", `missing required key "workloads": want a list such as [a, b, c]`)
		return nil
	}
	items, ok := d.sequence(n, "workloads")
	if ok && len(items) == 0 {
		d.errorf(n, "workloads", "want at least one workload, got none")
	}
	var out []Workload
	first := map[string]int{}
	for i, item := range items {
		path := fmt.Sprintf("workloads[%d]", i)
		w, ok := d.workload(item, path)
		if !ok {
			continue
		}
		if line, dup := first[w.Name]; dup {
			d.errorf(item, path, "duplicate workload name %q (first at line %d): give each workload a distinct name", w.Name, line)
			continue
		}
		first[w.Name] = item.Line
		out = append(out, w)
	}
	return out
}

// builtinHint ends the error for an unknown built-in workload.
const builtinHint = "; for a workload of your own write a mapping with name and file or properties"

// workload decodes one item: a built-in's name, or a mapping.
func (d *decoder) workload(n *yaml.Node, path string) (Workload, bool) {
	w := Workload{Line: n.Line}
	nerr := len(d.errs)
	if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
		w.Name = n.Value
		w.Builtin, w.base = d.builtin(n, path, n.Value)
		return w, len(d.errs) == nerr
	}
	f, ok := d.mapping(n, path, sectionKeys(path))
	if !ok {
		return w, false
	}
	b, file := f.get("builtin"), f.get("file")
	if b != nil && file != nil {
		d.errorf(file, path, "give builtin or file, not both (builtin at line %d)", b.Line)
	}
	if b != nil {
		if v, ok := d.str(b, join(path, "builtin")); ok {
			w.Name = v
			w.Builtin, w.base = d.builtin(b, join(path, "builtin"), v)
		}
	}
	if file != nil {
		if v, ok := d.str(file, join(path, "file")); ok {
			w.File, w.base = d.propertyFile(file, join(path, "file"), v)
		}
	}
	if nn := f.get("name"); nn != nil {
		w.Name, _ = d.str(nn, join(path, "name"))
	} else if b == nil {
		d.errorf(n, path, `missing required key "name" (only a workload with builtin may omit it)`)
	}
	if w.Name != "" && !validName(w.Name) {
		d.errorf(firstNonNil(f.get("name"), b), join(path, "name"),
			"want lower-case letters, digits, '-' and '_', starting with a letter or digit, got %q", w.Name)
	}
	if p := f.get("properties"); p != nil {
		w.Properties = d.properties(p, join(path, "properties"), true)
	}
	return w, len(d.errs) == nerr
}

// builtin resolves a built-in workload's name and reads it.
func (d *decoder) builtin(n *yaml.Node, path, name string) (string, *properties.Set) {
	short, ok := workloads.Canonical(name)
	if !ok {
		d.errorf(n, path, "unknown built-in workload %q; valid: %s (or workloada to workloadf, workloadledger, workloadtpcc)%s",
			name, strings.Join(workloads.Names(), ", "), builtinHint)
		return "", nil
	}
	props, err := workloads.Properties(short)
	if err != nil {
		d.errorf(n, path, "%v", err)
		return "", nil
	}
	return short, props
}

// propertyFile reads a YCSB property file named relative to the
// experiment file and returns its resolved path.
func (d *decoder) propertyFile(n *yaml.Node, path, name string) (string, *properties.Set) {
	if strings.TrimSpace(name) == "" {
		d.errorf(n, path, "want a property file path, got nothing")
		return "", nil
	}
	resolved := name
	if !filepath.IsAbs(name) {
		resolved = filepath.Join(filepath.Dir(d.file), name)
	}
	data, err := bounds.ReadFile(resolved, bounds.MaxFileBytes)
	var tl *bounds.TooLargeError
	if errors.As(err, &tl) {
		d.errorf(n, path, "%v", err)
		return resolved, nil
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		d.errorf(n, path, "cannot read property file %s: %v", resolved, err)
		return resolved, nil
	}
	props, err := properties.Parse(bytes.NewReader(data), resolved)
	if err != nil {
		d.errorf(n, path, "%v", err)
		return resolved, nil
	}
	return resolved, props
}

// load decodes the load section and records the lines of its keys.
func (d *decoder) load(n *yaml.Node, lines map[string]int) LoadSettings {
	l := LoadSettings{Enabled: true, Threads: defaultLoadThreads, BatchSize: 1, Drop: true}
	if n == nil {
		return l
	}
	f, ok := d.mapping(n, "load", sectionKeys("load"))
	if !ok {
		return l
	}
	for k := range f.vals {
		lines["load."+k] = f.keys[k].Line
	}
	bools := []struct {
		key string
		dst *bool
	}{{"enabled", &l.Enabled}, {"verify", &l.Verify}, {"drop", &l.Drop}}
	for _, b := range bools {
		if v := f.get(b.key); v != nil {
			*b.dst, _ = d.boolean(v, "load."+b.key)
		}
	}
	if v := f.get("threads"); v != nil {
		l.Threads, _ = d.threads(v, "load.threads")
	}
	if v := f.get("batch_size"); v != nil {
		l.BatchSize, _ = d.boundedInt(v, "load.batch_size", bounds.MaxBatchSize, "records per batch")
	}
	if v := f.get("target"); v != nil {
		l.Target, _ = d.rate(v, "load.target")
	}
	return l
}

// run decodes the run section and records the lines of its keys.
// duration and operations exclude each other, and neither may be zero:
// zero would run nothing, and reading it as "not given" would run
// something else than written.
func (d *decoder) run(n *yaml.Node, lines map[string]int) RunSettings {
	r := RunSettings{Threads: defaultRunThreads, Repetitions: 1, SaturationGain: defaultSaturationGain, SaturationSteps: defaultSaturationSteps,
		Resolution: defaultResolution, MaxProbes: defaultMaxProbes}
	if n != nil {
		d.runFields(n, lines, &r)
	}
	if r.Duration == 0 && r.Operations == 0 {
		r.Duration = defaultDuration
	}
	return r
}

func (d *decoder) runFields(n *yaml.Node, lines map[string]int, r *RunSettings) {
	f, ok := d.mapping(n, "run", sectionKeys("run"))
	if !ok {
		return
	}
	for k := range f.vals {
		lines["run."+k] = f.keys[k].Line
	}
	r.Duration = d.positiveDuration(f.get("duration"), "run.duration")
	r.Warmup, r.WarmupSteady = d.warmup(f.get("warmup"))
	if v := f.get("prewarm"); v != nil {
		r.Prewarm = d.positiveDuration(v, "run.prewarm")
	}
	if v := f.get("operations"); v != nil {
		r.Operations, _ = d.positiveCount(v, "run.operations")
	}
	if r.Duration > 0 && r.Operations > 0 {
		d.errorf(f.get("operations"), "run", "give duration or operations, not both (duration at line %d)", f.key("duration").Line)
	}
	if v := f.get("threads"); v != nil {
		switch val := resolve(v); {
		case val.Kind == yaml.ScalarNode && val.Value == ThreadsAuto:
			r.ThreadsAuto = true
		case val.Kind == yaml.ScalarNode && strings.Trim(val.Value, "0123456789") != "":
			d.errorf(v, "run.threads", "want a positive integer or %q (a calibration chooses them), got %q", ThreadsAuto, val.Value)
		default:
			r.Threads, _ = d.threads(v, "run.threads")
		}
	}
	if v := f.get("target"); v != nil {
		r.Target, _ = d.rate(v, "run.target")
	}
	d.untilFields(f, r)
	d.repetitions(f, r)
	if v := f.get("reference"); v != nil {
		r.Reference, _ = d.boolean(v, "run.reference")
	}
	r.MaxErrorRate = d.optionalFraction(f.get("max_error_rate"), "run.max_error_rate")
	r.StopOnErrorRate = d.optionalFraction(f.get("stop_on_error_rate"), "run.stop_on_error_rate")
	d.stages(f, r)
	d.loaders(f, r)
}

// repetitions decodes run.repetitions (a count, or auto with run.budget),
// run.order and run.equivalence.
func (d *decoder) repetitions(f fields, r *RunSettings) {
	if v := f.get("repetitions"); v != nil {
		if val := resolve(v); val.Kind == yaml.ScalarNode && val.Value == RepetitionsAutoValue {
			r.RepetitionsAuto, r.Repetitions = true, MinRounds
		} else if val.Kind == yaml.ScalarNode && strings.Trim(val.Value, "0123456789") != "" {
			d.errorf(v, "run.repetitions", "want a positive integer or %q (rounds until every comparison is decided, within run.budget), got %q", RepetitionsAutoValue, val.Value)
		} else if n, ok := d.positiveInt(v, "run.repetitions"); ok {
			if n > MaxRounds {
				d.errorf(v, "run.repetitions", "want at most %d repetitions, got %d", MaxRounds, n)
			}
			r.Repetitions = n
		}
	}
	if v := f.get("budget"); v != nil {
		r.Budget = d.positiveDuration(v, "run.budget")
		if !r.RepetitionsAuto {
			d.errorf(v, "run.budget", "a budget bounds run.repetitions: %s (rounds until decided); with a fixed count it bounds nothing", RepetitionsAutoValue)
		}
	}
	if r.RepetitionsAuto && r.Budget == 0 {
		r.Budget = DefaultBudget
	}
	if v := f.get("order"); v != nil {
		if o, ok := d.str(v, "run.order"); ok {
			switch {
			case o != OrderRounds && o != OrderSequential:
				d.errorf(v, "run.order", "want %q (each round visits every target and workload once, in an order drawn from the seed) or %q (each target's repetitions back to back), got %q", OrderRounds, OrderSequential, o)
			case o == OrderRounds && r.Until != "":
				d.errorf(v, "run.order", "run.until: %s runs its steps in order: rounds cannot interleave them", r.Until)
			}
			r.Order = o
		}
	}
	if v := f.get("equivalence"); v != nil {
		if str, ok := d.scalar(v, "run.equivalence", "a share"); ok {
			m, err := ParseShare(str)
			if err != nil || !(m > 0 && m <= 0.5) {
				d.errorf(v, "run.equivalence", "want the equivalence margin as a share above 0 and at most 50%%, such as 5%% or 0.05, got %q", str)
			}
			r.Equivalence = m
		}
	}
}

// untilFields decodes when a run stops growing: a sweep until saturated
// (its gain and steps) or a rate search until the objective (its
// resolution and probes).
func (d *decoder) untilFields(f fields, r *RunSettings) {
	if v := f.get("until"); v != nil {
		if u, ok := d.str(v, "run.until"); ok {
			if u != UntilSaturated && u != UntilSLO {
				d.errorf(v, "run.until", "want %q (stop a threads sweep once throughput stops growing) or %q (search the highest rate that meets slo), got %q", UntilSaturated, UntilSLO, u)
			}
			r.Until = u
		}
	}
	if v := f.get("resolution"); v != nil {
		if g, ok := d.scalar(v, "run.resolution", "a fraction"); ok {
			x, err := strconv.ParseFloat(g, 64)
			if err != nil || !(x >= 0.005 && x <= 0.5) {
				d.errorf(v, "run.resolution", "want a fraction from 0.005 to 0.5 (0.05: the search stops once the lowest rate missed is within 5%% of the highest met), got %q", g)
			} else {
				r.Resolution = x
			}
		}
	}
	if v := f.get("max_probes"); v != nil {
		if n, ok := d.boundedInt(v, "run.max_probes", maxProbes, "probes"); ok {
			if n < 2 {
				d.errorf(v, "run.max_probes", "want at least 2 probes (one met, one missed), got %d", n)
			}
			r.MaxProbes = n
		}
	}
	if v := f.get("saturation_gain"); v != nil {
		if g, ok := d.scalar(v, "run.saturation_gain", "a fraction"); ok {
			x, err := strconv.ParseFloat(g, 64)
			if err != nil || !(x > 0 && x < 1) {
				d.errorf(v, "run.saturation_gain", "want a fraction between 0 and 1 (0.05: a step that adds under 5%% is flat), got %q", g)
			} else {
				r.SaturationGain = x
			}
		}
	}
	if v := f.get("saturation_steps"); v != nil {
		r.SaturationSteps, _ = d.positiveInt(v, "run.saturation_steps")
	}
}

// loaders decodes run.loaders and run.loader_commands.
func (d *decoder) loaders(f fields, r *RunSettings) {
	if v := f.get("loader_commands"); v != nil {
		items, _ := d.sequence(v, "run.loader_commands")
		for i, item := range items {
			if s, ok := d.str(item, fmt.Sprintf("run.loader_commands[%d]", i)); ok {
				// An empty prefix runs that loader on this machine.
				r.LoaderCommands = append(r.LoaderCommands, strings.Fields(s))
			}
		}
		r.Loaders = len(items)
		if r.Loaders > maxLoaders {
			d.errorf(v, "run.loader_commands", "%d loader commands: at most %d loader processes", r.Loaders, maxLoaders)
		}
	}
	if v := f.get("loaders"); v != nil {
		if n, ok := d.boundedInt(v, "run.loaders", maxLoaders, "loader processes"); ok {
			if r.LoaderCommands != nil && n != len(r.LoaderCommands) {
				d.errorf(v, "run.loaders", "%d loaders but %d loader_commands: give one command per loader", n, len(r.LoaderCommands))
			}
			r.Loaders = n
		}
	}
}

// optionalFraction decodes an optional number between 0 and 1; nil when
// absent.
func (d *decoder) optionalFraction(n *yaml.Node, path string) *float64 {
	if n == nil {
		return nil
	}
	const want = "a fraction between 0 and 1"
	s, ok := d.scalar(n, path, want)
	if !ok {
		return nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || !(x >= 0 && x <= 1) {
		d.errorf(n, path, "want %s (0.01: one operation in a hundred), got %q", want, s)
		return nil
	}
	return &x
}

// positiveDuration decodes an optional duration that, when given, must
// be positive: a zero length would measure nothing, and taking it for
// "not given" would run something else than written.
func (d *decoder) positiveDuration(n *yaml.Node, path string) time.Duration {
	before := len(d.errs)
	v := d.duration(n, path)
	if n != nil && v == 0 && len(d.errs) == before {
		d.errorf(n, path, "want a positive duration such as 30s, got %q: zero would measure nothing", n.Value)
	}
	return v
}

// duration decodes an optional duration; absent is 0.
// warmup decodes run.warmup: a duration, or {until: steady, max: D}, a
// warm-up that ends once the throughput is steady, after D at the
// latest.
func (d *decoder) warmup(n *yaml.Node) (time.Duration, bool) {
	const path = "run.warmup"
	if n == nil || resolve(n).Kind != yaml.MappingNode {
		return d.duration(n, path), false
	}
	f, ok := d.mapping(n, path, sectionKeys(path))
	if !ok {
		return 0, false
	}
	if u := f.get("until"); u == nil || u.Value != "steady" {
		d.errorf(f.key("until"), join(path, "until"), `want "until: steady" (a warm-up that ends once the throughput is steady)`)
	}
	if f.get("max") == nil {
		d.errorf(f.node, path, "want max: the longest warm-up, such as 60s, for a target that never steadies")
		return 0, true
	}
	return d.positiveDuration(f.get("max"), join(path, "max")), true
}

func (d *decoder) duration(n *yaml.Node, path string) (v time.Duration) {
	if n == nil {
		return 0
	}
	const want = `a duration such as 90s or 1m30s, or a number of seconds`
	s, ok := d.scalar(n, path, want)
	if !ok {
		return 0
	}
	v, err := ParseDuration(s)
	if err != nil {
		d.errorf(n, path, "want %s, got %q", want, s)
	}
	return v
}

// matrix decodes the axes in file order.
func (d *decoder) matrix(n *yaml.Node) ([]Axis, []Size) {
	ps, _ := d.pairs(n, "matrix")
	var out []Axis
	var sizes []Size
	for _, p := range ps {
		key, path := p.key.Value, join("matrix", p.key.Value)
		if key == axisSize {
			sizes = d.sizes(p.val, path)
			continue
		}
		if key == core.WorkloadKind {
			d.errorf(p.key, path, "a workload's kind is its own, not an axis: list one workload of each kind in workloads (one of %s)", workload.KindChoices())
			continue
		}
		if instead, owned := ownedProperties()[key]; owned && key != axisTarget {
			d.errorf(p.key, path, "set by the experiment: use %s instead", instead)
			continue
		}
		if key != axisThreads && key != axisTarget && !knownAxis(key, d.opts.DriverPrefixes) {
			d.errorf(p.key, path, "%s", unknownAxis(key, d.opts.DriverPrefixes))
			continue
		}
		items, ok := d.sequence(p.val, path)
		if !ok {
			continue
		}
		if len(items) == 0 {
			d.errorf(p.val, path, "empty list: want at least one value")
			continue
		}
		if a, ok := d.axis(key, path, items); ok {
			a.Line = p.key.Line
			out = append(out, a)
		}
	}
	return out, sizes
}

// axis decodes one axis's values: scalars, distinct, and for threads and
// target valid settings.
func (d *decoder) axis(key, path string, items []*yaml.Node) (Axis, bool) {
	a := Axis{Property: key}
	seen := map[string]int{}
	ok := true
	for i, it := range items {
		ipath := fmt.Sprintf("%s[%d]", path, i)
		v, good := d.scalar(it, ipath, "a value")
		switch {
		case !good:
		case key == axisThreads:
			_, good = d.threads(it, ipath)
		case key == axisTarget:
			_, good = d.rate(it, ipath)
		}
		if good {
			if line, dup := seen[v]; dup {
				d.errorf(it, ipath, "duplicate value %q (first at line %d)", v, line)
				good = false
			}
			seen[v] = it.Line
		}
		ok = ok && good
		a.Values = append(a.Values, v)
		a.ValueLines = append(a.ValueLines, it.Line)
	}
	return a, ok
}
