package spec

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/internal/bounds"
	"github.com/dbarena/dbarena/internal/secret"
	"github.com/dbarena/dbarena/internal/suggest"
)

// decoder walks the YAML tree by hand rather than with KnownFields: only
// the tree knows the line of every key and value, and walking it lets one
// pass report every problem instead of the first.
type decoder struct {
	file string
	opts Options
	errs []*Error
	// flow marks nodes inside flow collections ({a: 1, b: 2}), where
	// several keys share a line and the column tells them apart.
	flow map[*yaml.Node]bool
}

func newDecoder(file string, opts Options, doc *yaml.Node) *decoder {
	d := &decoder{file: file, opts: opts, flow: map[*yaml.Node]bool{}}
	d.markFlow(doc, false)
	return d
}

func (d *decoder) markFlow(n *yaml.Node, inFlow bool) {
	if n == nil {
		return
	}
	if inFlow {
		d.flow[n] = true
	}
	inFlow = inFlow || n.Style&yaml.FlowStyle != 0
	for _, c := range n.Content {
		d.markFlow(c, inFlow)
	}
}

// errorf records a problem at node n under path.
func (d *decoder) errorf(n *yaml.Node, path, format string, args ...any) {
	e := &Error{File: d.file, Path: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line = n.Line
		if d.flow[n] {
			e.Column = n.Column
		}
	}
	d.errs = append(d.errs, e)
}

// resolve follows aliases (*anchor) to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// describe names what a node holds, for "got ..." in messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return "nothing"
		}
		return strconv.Quote(n.Value)
	}
	return "an unsupported YAML node"
}

// pair is one key and its value in a mapping.
type pair struct {
	key, val *yaml.Node
}

// pairs returns the entries of a mapping in file order. It reports a
// value that is not a mapping, duplicate keys (which yaml.v3 accepts into
// a Node silently) and keys that are not plain strings, and skips them.
func (d *decoder) pairs(n *yaml.Node, path string) ([]pair, bool) {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, true // "key:" with nothing: an empty mapping
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want a mapping, got %s", describe(n))
		return nil, false
	}
	seen := map[string]*yaml.Node{}
	var out []pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			d.errorf(k, path, "want a non-empty string key, got %s", describe(k))
			continue
		}
		if k.Value == "<<" && k.ShortTag() == "!!merge" {
			d.errorf(k, path, "merge keys (<<) are not supported: write the keys out")
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.errorf(k, path, "duplicate key %q (first at line %d)", k.Value, first.Line)
			continue
		}
		seen[k.Value] = k
		out = append(out, pair{k, v})
	}
	return out, true
}

// fields is a mapping whose keys were checked against a section's keys.
type fields struct {
	node       *yaml.Node
	keys, vals map[string]*yaml.Node
}

// get returns the value of key, or nil when absent.
func (f fields) get(key string) *yaml.Node { return f.vals[key] }

// key returns the key node of key, or the mapping when absent.
func (f fields) key(key string) *yaml.Node {
	if k, ok := f.keys[key]; ok {
		return k
	}
	return f.node
}

// mapping decodes a section: a mapping whose keys must be in allowed.
// An unknown key is reported with the nearest valid one.
func (d *decoder) mapping(n *yaml.Node, path string, allowed []string) (fields, bool) {
	f := fields{node: resolve(n), keys: map[string]*yaml.Node{}, vals: map[string]*yaml.Node{}}
	ps, ok := d.pairs(n, path)
	if !ok {
		return f, false
	}
	for _, p := range ps {
		if !slices.Contains(allowed, p.key.Value) {
			d.errorf(p.key, path, "unknown key %q; %s", p.key.Value, hintOrList(p.key.Value, allowed))
			continue
		}
		f.keys[p.key.Value], f.vals[p.key.Value] = p.key, p.val
	}
	return f, true
}

// join appends key to a document path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// scalar returns a scalar's text; null is "". Lists and mappings are
// reported as errors with what was wanted.
func (d *decoder) scalar(n *yaml.Node, path, want string) (string, bool) {
	n = resolve(n)
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, path, "want %s, got %s", want, describe(n))
		return "", false
	}
	if n.ShortTag() == "!!null" {
		return "", true
	}
	return n.Value, true
}

// str decodes a string value; numbers and booleans are taken as written
// (version: 15 is "15").
func (d *decoder) str(n *yaml.Node, path string) (string, bool) {
	return d.scalar(n, path, "a string")
}

// positiveInt decodes an integer >= 1.
func (d *decoder) positiveInt(n *yaml.Node, path string) (int, bool) {
	const want = "a positive integer"
	s, ok := d.scalar(n, path, want)
	if !ok {
		return 0, false
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		d.errorf(n, path, "want %s, got %q", want, s)
		return 0, false
	}
	return v, true
}

// boundedInt decodes an integer from 1 to most; what names the unit for
// the error ("nodes").
func (d *decoder) boundedInt(n *yaml.Node, path string, most int, what string) (int, bool) {
	v, ok := d.positiveInt(n, path)
	if ok && v > most {
		d.errorf(n, path, "%d: at most %d %s", v, most, what)
		return 0, false
	}
	return v, ok
}

// threads decodes a worker count: 1 to bounds.MaxThreads, the most one
// loader process runs (run.loaders splits more over several).
func (d *decoder) threads(n *yaml.Node, path string) (int, bool) {
	return d.boundedInt(n, path, bounds.MaxThreads, "workers per loader process; use run.loaders for more")
}

// count decodes an integer >= 0.
func (d *decoder) count(n *yaml.Node, path string) (int64, bool) {
	const want = "an integer >= 0"
	s, ok := d.scalar(n, path, want)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		d.errorf(n, path, "want %s, got %q", want, s)
		return 0, false
	}
	return v, true
}

// positiveCount decodes an integer >= 1: a count of zero would do
// nothing, so it is refused rather than read as "none".
func (d *decoder) positiveCount(n *yaml.Node, path string) (int64, bool) {
	v, ok := d.count(n, path)
	if ok && v == 0 {
		d.errorf(n, path, "want an integer >= 1, got 0: leave the key out to run for a duration")
		return 0, false
	}
	return v, ok
}

// rate decodes a number >= 0 (operations per second).
func (d *decoder) rate(n *yaml.Node, path string) (float64, bool) {
	const want = "a rate in operations per second >= 0 (0: unthrottled)"
	s, ok := d.scalar(n, path, want)
	if !ok {
		return 0, false
	}
	v, err := parseRate(s)
	if err != nil {
		d.errorf(n, path, "want %s, got %q", want, s)
		return 0, false
	}
	return v, true
}

// boolean decodes true or false; YAML 1.1's yes/no/on/off are refused,
// as yaml.v3 reads them as strings and a typo should not pass as false.
func (d *decoder) boolean(n *yaml.Node, path string) (bool, bool) {
	const want = "true or false"
	s, ok := d.scalar(n, path, want)
	if !ok {
		return false, false
	}
	switch s {
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	}
	d.errorf(n, path, "want %s, got %q", want, s)
	return false, false
}

// sequence returns a list's items; a null value is an empty list.
func (d *decoder) sequence(n *yaml.Node, path string) ([]*yaml.Node, bool) {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, true
	}
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "want a list, got %s", describe(n))
		return nil, false
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = resolve(c)
	}
	return out, true
}

// stringMap decodes a mapping of scalars, such as properties or deploy
// options, keeping the order and lines.
func (d *decoder) stringMap(n *yaml.Node, path string) []KV {
	ps, _ := d.pairs(n, path)
	var out []KV
	for _, p := range ps {
		v, ok := d.scalar(p.val, join(path, p.key.Value), "a string, number or boolean")
		if ok && secret.InClear(p.key.Value, v) {
			// The manifest keeps the file's text: a password here would
			// land in every results directory.
			d.errorf(p.val, join(path, p.key.Value), "a credential written in clear in the experiment file: %s", secret.Hint)
			continue
		}
		if ok {
			out = append(out, KV{Key: p.key.Value, Value: v, Line: p.key.Line})
		}
	}
	return out
}

// hintOrList returns "did you mean "x"?" for the nearest of valid, or the
// list of valid values when none is near.
func hintOrList(got string, valid []string) string {
	if best := suggest.Nearest(got, valid); best != "" {
		return fmt.Sprintf("did you mean %q?", best)
	}
	sorted := append([]string(nil), valid...)
	sort.Strings(sorted)
	return "valid: " + strings.Join(sorted, ", ")
}
