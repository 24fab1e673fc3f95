package cost

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/internal/suggest"
)

// KeyError is a key a catalogue file may not have: unknown (a typo, or a
// field of another version) or given twice.
type KeyError struct {
	Line int
	// Path is where the key sits, "instances.i3.large" ("" at the top).
	Path string
	Key  string
	// Duplicate is set for a key given twice in one mapping: yaml.v3
	// keeps the last silently, and an override that names an instance
	// twice is ambiguous.
	Duplicate bool
	// Suggestion is the closest valid key, if one is close.
	Suggestion string
}

func (e *KeyError) Error() string {
	where := fmt.Sprintf("line %d", e.Line)
	if e.Path != "" {
		where += ": " + e.Path
	}
	if e.Duplicate {
		return fmt.Sprintf("%s: key %q given twice", where, e.Key)
	}
	msg := fmt.Sprintf("%s: unknown key %q", where, e.Key)
	if e.Suggestion != "" {
		msg += fmt.Sprintf("; did you mean %q?", e.Suggestion)
	}
	return msg
}

// checkKeys walks the YAML tree alongside the Go type it will decode
// into and reports every mapping key no field is tagged with. Walking the
// tree rather than decoding with KnownFields gives every problem in one
// pass, with its line and a suggestion.
func checkKeys(n *yaml.Node, t reflect.Type, path string) error {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n == nil {
		return nil
	}
	if n.Kind == yaml.DocumentNode {
		var errs []error
		for _, c := range n.Content {
			errs = append(errs, checkKeys(c, t, path))
		}
		return errors.Join(errs...)
	}
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		return checkStruct(n, t, path)
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		var errs []error
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if seen[k.Value] {
				errs = append(errs, &KeyError{Line: k.Line, Path: path, Key: k.Value, Duplicate: true})
			}
			seen[k.Value] = true
			errs = append(errs, checkKeys(n.Content[i+1], t.Elem(), join(path, k.Value)))
		}
		return errors.Join(errs...)
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
		var errs []error
		for i, c := range n.Content {
			errs = append(errs, checkKeys(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i)))
		}
		return errors.Join(errs...)
	}
	// A kind mismatch (a list where a mapping belongs) is left to the
	// decoder, whose message names the line and both types.
	return nil
}

func checkStruct(n *yaml.Node, t reflect.Type, path string) error {
	fields := map[string]reflect.Type{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name != "" && name != "-" && f.IsExported() {
			fields[name] = f.Type
		}
	}
	keys := slices.Sorted(maps.Keys(fields))
	var errs []error
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		ft, ok := fields[k.Value]
		switch {
		case !ok:
			errs = append(errs, &KeyError{Line: k.Line, Path: path, Key: k.Value, Suggestion: suggest.Nearest(k.Value, keys)})
		case seen[k.Value]:
			errs = append(errs, &KeyError{Line: k.Line, Path: path, Key: k.Value, Duplicate: true})
		default:
			errs = append(errs, checkKeys(n.Content[i+1], ft, join(path, k.Value)))
		}
		seen[k.Value] = true
	}
	return errors.Join(errs...)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// closeNames returns up to five of names near name: within 2 edits, or of
// the same family (the part before "." for AWS, before the last "-" for
// GCP), nearest first.
func closeNames(name string, names []string) []string {
	type scored struct {
		name string
		d    int
	}
	var out []scored
	lower := strings.ToLower(name)
	for _, n := range names {
		d := suggest.Distance(lower, strings.ToLower(n))
		if d <= 2 || (family(n) != "" && family(n) == family(lower)) {
			out = append(out, scored{n, d})
		}
	}
	slices.SortFunc(out, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.name, b.name))
	})
	names = names[:0:0]
	for _, s := range out[:min(5, len(out))] {
		names = append(names, s.name)
	}
	return names
}

// family is the machine family of an instance name: "i3" of
// "i3.2xlarge", "n2d-standard" of "n2d-standard-8".
func family(name string) string {
	name = strings.ToLower(name)
	if f, _, ok := strings.Cut(name, "."); ok {
		return f
	}
	if i := strings.LastIndex(name, "-"); i > 0 {
		return name[:i]
	}
	return ""
}
