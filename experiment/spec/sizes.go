package spec

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/results"
)

// axisSize is the matrix axis whose values are deployment sizes: each
// target runs once at each size, as a target of its own.
const axisSize = "size"

// Size is one value of the matrix axis size: what it changes of a
// target's deployment (zero fields change nothing) and its label.
type Size struct {
	// Label names the size in the sized target's name ("250m",
	// "2cpu-4gib", "3n", or the name the file gives).
	Label string
	// CPUs, MemoryBytes and Nodes replace the target's deploy.cpus,
	// memory and nodes; MachineType its deploy.options.machine_type (a
	// cloud VM's type, for Terraform).
	CPUs        float64
	MemoryBytes int64
	Nodes       int
	MachineType string
	// Line is where the size's entry starts.
	Line int
}

// sizeKeys are the keys a size may set.
var sizeKeys = []string{"name", "cpus", "memory", "nodes", "machine_type"}

// sizes decodes the matrix axis size: a list of mappings.
func (d *decoder) sizes(n *yaml.Node, path string) []Size {
	items, ok := d.sequence(n, path)
	if !ok {
		return nil
	}
	if len(items) == 0 {
		d.errorf(n, path, "empty list: want at least one size, such as {cpus: 0.5}")
		return nil
	}
	var out []Size
	seen := map[string]int{}
	for i, it := range items {
		ipath := fmt.Sprintf("%s[%d]", path, i)
		z, ok := d.size(it, ipath)
		if !ok {
			continue
		}
		if line, dup := seen[z.Label]; dup {
			d.errorf(it, ipath, "duplicate size %q (first at line %d)", z.Label, line)
			continue
		}
		seen[z.Label] = it.Line
		out = append(out, z)
	}
	return out
}

// size decodes one size.
func (d *decoder) size(n *yaml.Node, path string) (Size, bool) {
	z := Size{Line: n.Line}
	if resolve(n).Kind != yaml.MappingNode {
		d.errorf(n, path, "want a size: a mapping of %s, such as {cpus: 0.5, memory: 1GiB}", strings.Join(sizeKeys[1:], ", "))
		return z, false
	}
	before := len(d.errs) // an unknown key is this size's fault too
	f, ok := d.mapping(n, path, sizeKeys)
	if !ok {
		return z, false
	}
	z.CPUs = d.cores(f.get("cpus"), join(path, "cpus"))
	z.MemoryBytes = d.memory(f.get("memory"), join(path, "memory"))
	if v := f.get("nodes"); v != nil {
		z.Nodes, _ = d.boundedInt(v, join(path, "nodes"), maxNodes, "nodes")
	}
	if v := f.get("machine_type"); v != nil {
		z.MachineType, _ = d.str(v, join(path, "machine_type"))
	}
	if z.CPUs == 0 && z.MemoryBytes == 0 && z.Nodes == 0 && z.MachineType == "" && len(d.errs) == before {
		d.errorf(n, path, "a size changes the deployment: give at least one of %s", strings.Join(sizeKeys[1:], ", "))
	}
	z.Label = z.label()
	if v := f.get("name"); v != nil {
		if s, ok := d.str(v, join(path, "name")); ok {
			if !validName(s) {
				d.errorf(v, join(path, "name"), "want lower-case letters, digits, '-' and '_', starting with a letter or digit, got %q", s)
			}
			z.Label = s
		}
	}
	return z, len(d.errs) == before
}

// label names a size from what it sets, in a form safe in file names:
// cores as millicores below one ("250m") or whole ("2cpu"), memory in
// binary units ("512mib", "4gib"), nodes ("3n"), the machine type with
// what a name may not hold as '-' ("m6id-large").
func (z Size) label() string {
	var parts []string
	if z.CPUs > 0 {
		parts = append(parts, results.CoresLabel(z.CPUs))
	}
	if z.MemoryBytes > 0 {
		switch b := z.MemoryBytes; {
		case b%(1<<30) == 0:
			parts = append(parts, fmt.Sprintf("%dgib", b>>30))
		case b%(1<<20) == 0:
			parts = append(parts, fmt.Sprintf("%dmib", b>>20))
		default:
			parts = append(parts, fmt.Sprintf("%db", b))
		}
	}
	if z.Nodes > 0 {
		parts = append(parts, fmt.Sprintf("%dn", z.Nodes))
	}
	if z.MachineType != "" {
		// "m6id.large" as "m6id-large": a target's name holds no dot,
		// which separates the parts of a trial's ID.
		parts = append(parts, strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
				return r
			}
			return '-'
		}, strings.ToLower(z.MachineType)))
	}
	return strings.Join(parts, "-")
}

// sized expands targets over sizes: each target once at each size, named
// NAME-LABEL, its deployment changed as the size says. Without sizes the
// targets are as written.
func sized(targets []Target, sizes []Size) []Target {
	if len(sizes) == 0 {
		return targets
	}
	var out []Target
	for _, t := range targets {
		for _, z := range sizes {
			s := t
			s.Base, s.Size = t.Name, z.Label
			s.Name = t.Name + "-" + z.Label
			s.Deploy.Options = make(map[string]string, len(t.Deploy.Options)+1)
			for k, v := range t.Deploy.Options {
				s.Deploy.Options[k] = v
			}
			if z.CPUs > 0 {
				s.Deploy.CPUs = z.CPUs
			}
			if z.MemoryBytes > 0 {
				s.Deploy.MemoryBytes = z.MemoryBytes
			}
			if z.Nodes > 0 {
				s.Deploy.Nodes = z.Nodes
			}
			if z.MachineType != "" {
				s.Deploy.Options["machine_type"] = z.MachineType
			}
			s.Cost = sizedCost(t.Cost, z)
			out = append(out, s)
		}
	}
	return out
}

// sizedTargets expands the targets over the sizes, refusing a sized name
// that another target already has.
func (d *decoder) sizedTargets(targets []Target, sizes []Size, matrix *yaml.Node) []Target {
	out := sized(targets, sizes)
	if len(sizes) == 0 {
		return out
	}
	seen := map[string]bool{}
	for _, t := range targets {
		seen[t.Name] = true
	}
	for _, t := range out {
		if seen[t.Name] {
			d.errorf(matrix, "matrix."+axisSize, "size %q of target %q makes the name %q, which another target has: rename one", t.Size, t.Base, t.Name)
		}
		seen[t.Name] = true
	}
	return out
}

// sizedCost is a target's cost at size z: a machine type the size names
// replaces the first resource's instance, and its nodes that resource's
// count, so that each size is priced as what it runs on. A size of cores
// or memory keeps the target's cost as written.
func sizedCost(c *Cost, z Size) *Cost {
	if c == nil || len(c.Resources) == 0 || z.MachineType == "" && z.Nodes == 0 {
		return c
	}
	out := *c
	out.Resources = append([]CostResource(nil), c.Resources...)
	if z.MachineType != "" {
		out.Resources[0].Instance = z.MachineType
	}
	if z.Nodes > 0 {
		out.Resources[0].Count = z.Nodes
	}
	return &out
}
