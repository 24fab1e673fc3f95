package spec

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/suggest"
	"github.com/dbarena/dbarena/workload"
)

// schemaWalk collects, by document path, the keys of every fixed-key
// object of the schema and the paths of its free-form maps.
type schemaWalk struct {
	t     *testing.T
	defs  map[string]any
	fixed map[string][]string
	free  []string
}

func (w *schemaWalk) deref(node map[string]any) map[string]any {
	ref, ok := node["$ref"].(string)
	if !ok {
		return node
	}
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	require.True(w.t, ok, "only local $defs references: %s", ref)
	def, ok := w.defs[name].(map[string]any)
	require.True(w.t, ok, "undefined $ref %s", ref)
	return w.deref(def)
}

func (w *schemaWalk) walk(node map[string]any, path string) {
	node = w.deref(node)
	if props, ok := node["properties"].(map[string]any); ok {
		require.Equal(w.t, false, node["additionalProperties"], "%q: additionalProperties must be false", path)
		var keys []string
		for k, v := range props {
			keys = append(keys, k)
			w.walk(v.(map[string]any), join(path, k))
		}
		sort.Strings(keys)
		w.fixed[path] = keys
		return
	}
	if _, ok := node["additionalProperties"].(map[string]any); ok && node["type"] == "object" {
		w.free = append(w.free, path)
		return
	}
	if items, ok := node["items"].(map[string]any); ok {
		w.walk(items, path+"[]")
	}
	for _, alt := range []string{"oneOf", "anyOf"} {
		if list, ok := node[alt].([]any); ok {
			for _, a := range list {
				w.walk(a.(map[string]any), path)
			}
		}
	}
}

// TestSchemaMatchesDecoder walks schema.json and the decoder's key tables
// and requires them equal at every level, so that neither can gain or
// lose a key alone.
func TestSchemaMatchesDecoder(t *testing.T) {
	var root map[string]any
	require.NoError(t, json.Unmarshal(JSONSchema(), &root), "schema.json is valid JSON")
	require.Equal(t, "https://json-schema.org/draft/2020-12/schema", root["$schema"])
	defs, _ := root["$defs"].(map[string]any)
	w := &schemaWalk{t: t, defs: defs, fixed: map[string][]string{}}
	w.walk(root, "")

	want := map[string][]string{}
	for path, keys := range sections() {
		sorted := append([]string(nil), keys...)
		sort.Strings(sorted)
		want[path] = sorted
	}
	require.Equal(t, want, w.fixed)
	wantFree := append([]string(nil), freeMaps()...)
	sort.Strings(wantFree)
	sort.Strings(w.free)
	require.Equal(t, wantFree, w.free)
}

// TestSchemaRefusesOwnedProperties checks the schema refuses, in property
// maps and as matrix axes, exactly the properties the decoder refuses.
func TestSchemaRefusesOwnedProperties(t *testing.T) {
	var root struct {
		Properties struct {
			Matrix struct {
				PropertyNames struct {
					Not struct{ Enum []string }
				}
			}
		}
		Defs struct {
			YCSBProperties struct {
				PropertyNames struct {
					Not struct{ Enum []string }
				}
			} `json:"ycsbProperties"`
		} `json:"$defs"`
	}
	require.NoError(t, json.Unmarshal(JSONSchema(), &root))
	var owned, axes []string
	for k := range ownedProperties() {
		owned = append(owned, k)
		if k != axisTarget { // "target" is the run-rate axis
			axes = append(axes, k)
		}
	}
	sort.Strings(owned)
	sort.Strings(axes)
	require.Equal(t, owned, root.Defs.YCSBProperties.PropertyNames.Not.Enum)
	require.Equal(t, axes, root.Properties.Matrix.PropertyNames.Not.Enum)
}

func TestJSONSchemaIsACopy(t *testing.T) {
	a := JSONSchema()
	a[0] = 'x'
	require.Equal(t, byte('{'), JSONSchema()[0])
}

// TestPropertyTablesAreKnown checks the property names this package
// writes about are ones package workload knows.
func TestPropertyTablesAreKnown(t *testing.T) {
	for _, k := range axisSuggestions() {
		if k != axisThreads && k != axisTarget {
			require.True(t, workload.KnownProperty(k), k)
		}
	}
	for k := range ownedProperties() {
		require.True(t, workload.KnownProperty(k), k)
	}
}

func TestGenericPath(t *testing.T) {
	require.Equal(t, "targets[].deploy", genericPath("targets[12].deploy"))
	require.Equal(t, "", genericPath(""))
	require.Equal(t, "workloads[]", genericPath("workloads[0]"))
}

func TestNearest(t *testing.T) {
	tests := map[string]struct {
		in   string
		want string
	}{
		"one edit":      {in: "cpu", want: "cpus"},
		"transposition": {in: "nodse", want: "nodes"},
		"case":          {in: "Memory", want: "memory"},
		"abbreviation":  {in: "opti", want: "options"},
		"too far":       {in: "zzz", want: ""},
		"too short":     {in: "op", want: ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, suggest.Nearest(tc.in, sections()["targets[].deploy"]))
		})
	}
}
