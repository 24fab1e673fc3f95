package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/analysis/objective"
	"github.com/dbarena/dbarena/analysis/sizing"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/results"
)

// confirmation is what dbarena size --confirm needs of one answer: the
// results it came from and the size chosen.
type confirmation struct {
	data   *results.Data
	group  *sizing.Group
	choice sizing.Option
	ask    sizing.Ask
	slo    *results.SLO
}

// confirm deploys the chosen size as its experiment file described the
// database, runs the group's workload at the asked throughput for the
// file's run duration, and judges the run by the objective. dir is the
// results directory of the run.
func confirm(ctx context.Context, st *State, c confirmation, dir string) (sizing.Confirmation, error) {
	m := c.data.Manifest
	if m.Spec == "" {
		return 0, fmt.Errorf("%s: the manifest holds no experiment file to deploy the size from", c.data.Dir)
	}
	name := m.SpecFile
	if name == "" {
		name = filepath.Join(c.data.Dir, "experiment.yaml")
	}
	orig, err := spec.Parse(name, []byte(m.Spec), specOptions())
	if err != nil {
		return 0, fmt.Errorf("the experiment file of %s no longer parses: %w", c.data.Dir, err)
	}
	threads := c.group.Threads(c.ask.Throughput, max(orig.Run.Threads, 2))
	text, err := confirmText([]byte(m.Spec), orig, c.group, c.choice, c.ask.Throughput, threads)
	if err != nil {
		return 0, err
	}
	s, err := spec.Parse(name, text, specOptions())
	if err != nil {
		return 0, fmt.Errorf("the confirming experiment does not parse (a bug; its file follows): %w\n%s", err, text)
	}
	fmt.Fprintf(st.Stderr, "dbarena: confirming %s at %s: %s ops/s of %s, %d threads\n", c.group.Database, c.choice.Label,
		results.FormatOps(c.ask.Throughput), c.group.Workload, threads)
	f := &experimentFlags{dir: dir, format: new(formatValue)}
	if err := runExperiment(ctx, st, f, s, string(text)); err != nil {
		return 0, err
	}
	d, err := results.Read(dir)
	if err != nil {
		return 0, err
	}
	slo := objective.Inherit(c.slo, c.data.Manifest.SLO)
	if slo == nil {
		slo = c.data.Manifest.SLO
	}
	for _, row := range d.Trials {
		if row.Kind != results.KindRun || row.Status == results.StatusSuperseded {
			continue // a superseded run was measured again: the next row
		}
		got, why := sizing.Confirm(row, c.ask.Throughput, slo)
		fmt.Fprintf(st.Stdout, "%s: %s at %s, trial %s: %s\n", got, c.group.Database, c.choice.Label, row.ID, why)
		return got, nil
	}
	return 0, errors.New("the confirming run measured no trial")
}

// confirmText is the experiment file that confirms choice: the original
// file with its target at choice's size alone, the group's workload at
// its matrix point, and one run at rate with threads workers instead of
// a search.
func confirmText(text []byte, orig *spec.Spec, g *sizing.Group, choice sizing.Option, rate float64, threads int) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("the experiment file is not a YAML mapping")
	}
	root := doc.Content[0]
	size, err := sizeOf(orig, choice)
	if err != nil {
		return nil, err
	}
	// The target and workload entries are found by the line each
	// decoded from, and their place on it (a flow list is one line):
	// their names may be defaults the file does not spell.
	var targets, workloads []entry
	for _, t := range orig.Targets {
		base := t.Base
		if base == "" {
			base = t.Name
		}
		if !slices.ContainsFunc(targets, func(e entry) bool { return e.name == base }) {
			targets = append(targets, entry{base, t.Line})
		}
	}
	for _, w := range orig.Workloads {
		workloads = append(workloads, entry{w.Name, w.Line})
	}
	if err := keepEntry(get(root, "targets"), targets, g.Database); err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	if err := keepEntry(get(root, "workloads"), workloads, g.Workload); err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	matrix := &yaml.Node{Kind: yaml.MappingNode}
	for _, p := range g.Params {
		put(matrix, p.Key, seq(scalar(p.Value)))
	}
	if size != nil {
		put(matrix, "size", seq(size))
	}
	if len(matrix.Content) > 0 {
		put(root, "matrix", matrix)
	} else {
		del(root, "matrix")
	}
	run := get(root, "run")
	if run == nil || run.Kind != yaml.MappingNode {
		run = &yaml.Node{Kind: yaml.MappingNode}
	}
	for _, k := range []string{"until", "resolution", "max_probes", "repetitions", "saturation_gain", "saturation_steps", "reference"} {
		del(run, k)
	}
	put(run, "target", scalar(strconv.FormatFloat(rate, 'f', -1, 64)))
	put(run, "threads", scalar(strconv.Itoa(threads)))
	put(root, "run", run)
	// One run answers no goal.
	del(root, "goal")
	put(root, "name", scalar(orig.Name+"-confirm"))
	return yaml.Marshal(&doc)
}

// sizeOf is the size entry of choice: the file's own for a size it
// measured, cores alone for one predicted from a fit over cores.
func sizeOf(orig *spec.Spec, choice sizing.Option) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, z := range orig.Sizes {
		if z.Label != choice.Label {
			continue
		}
		if z.CPUs > 0 {
			put(n, "cpus", scalar(strconv.FormatFloat(z.CPUs, 'f', -1, 64)))
		}
		if z.MemoryBytes > 0 {
			put(n, "memory", scalar(strconv.FormatInt(z.MemoryBytes, 10)+"B"))
		}
		if z.Nodes > 0 {
			put(n, "nodes", scalar(strconv.Itoa(z.Nodes)))
		}
		if z.MachineType != "" {
			put(n, "machine_type", scalar(z.MachineType))
		}
		put(n, "name", scalar(z.Label))
		return n, nil
	}
	if len(orig.Sizes) == 0 && choice.Source == sizing.SourceMeasured {
		// No size axis: the target as the file describes it is the
		// size measured, deployed as it was.
		return nil, nil
	}
	for _, z := range orig.Sizes {
		if z.Nodes > 0 || z.MachineType != "" {
			return nil, fmt.Errorf("size %s was predicted from cores, and this experiment's sizes are nodes or machine types: measure it instead", choice.Label)
		}
	}
	if !(choice.Cores > 0) {
		return nil, fmt.Errorf("size %s has no cores to deploy it at", choice.Label)
	}
	put(n, "cpus", scalar(strconv.FormatFloat(choice.Cores, 'f', -1, 64)))
	put(n, "name", scalar(choice.Label))
	return n, nil
}

// entry is one item of a list of the experiment file: its name and the
// line it starts on.
type entry struct {
	name string
	line int
}

// keepEntry leaves in the sequence s only the item of entries named
// name: the item on its line at its place among the entries there.
func keepEntry(s *yaml.Node, entries []entry, name string) error {
	at := slices.IndexFunc(entries, func(e entry) bool { return e.name == name })
	if s == nil || s.Kind != yaml.SequenceNode || at < 0 {
		return fmt.Errorf("the experiment file has no %q to confirm", name)
	}
	k := 0
	for _, e := range entries[:at] {
		if e.line == entries[at].line {
			k++
		}
	}
	for _, it := range s.Content {
		if it.Line != entries[at].line {
			continue
		}
		if k == 0 {
			s.Content = []*yaml.Node{it}
			return nil
		}
		k--
	}
	return fmt.Errorf("the experiment file's entry %q was not found at line %d", name, entries[at].line)
}

// get is the value of key in mapping m, nil when absent.
func get(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// put sets key in mapping m to v.
func put(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, scalar(key), v)
}

// del removes key from mapping m.
func del(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}

func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }

func seq(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Content: items}
}
