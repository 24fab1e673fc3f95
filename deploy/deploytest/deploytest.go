// Package deploytest holds what the providers' tests share: golden files
// of what a provider renders, so that a refactor that changes a byte of
// a compose file, a manifest or a module's variables fails.
package deploytest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy"
)

// UpdateEnv is the environment variable that, set, rewrites the golden
// files instead of comparing with them: after a change meant to alter
// the output.
const UpdateEnv = "DBARENA_UPDATE_GOLDEN"

// Golden compares got with testdata/name, or writes it there when
// UpdateEnv is set.
func Golden(t testing.TB, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv(UpdateEnv) != "" {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "%s=1 go test creates it", UpdateEnv)
	require.Equal(t, string(want), got, "the rendered output changed; %s=1 rewrites %s", UpdateEnv, path)
}

// Props writes driver properties as key=value lines, sorted.
func Props(p map[string]string) string {
	lines := make([]string, 0, len(p))
	for k, v := range p {
		lines = append(lines, k+"="+v+"\n")
	}
	sort.Strings(lines)
	return strings.Join(lines, "")
}

// Variant is one shape of a request a golden file keeps.
type Variant struct {
	Name string
	Req  deploy.Request
}

// Variants are the shapes of a request for db that the container
// providers' golden files keep: one node, three, a password, limits and
// a version.
func Variants(db string) []Variant {
	return []Variant{
		{"plain", deploy.Request{Name: "t", Database: db}},
		{"nodes=3", deploy.Request{Name: "t", Database: db, Nodes: 3}},
		{"password", deploy.Request{Name: "t", Database: db, Options: map[string]string{"password": "pw"}}},
		{"limits+version", deploy.Request{Name: "t", Database: db, CPUs: 2.5, MemoryBytes: 3 << 30, Version: "9.9"}},
		{"nodes=3+limits", deploy.Request{Name: "t", Database: db, Nodes: 3, CPUs: 1, MemoryBytes: 1 << 30}},
	}
}

// Render writes what render makes of every catalogue database in every
// Variant, each under a header line, an error as its text.
func Render(render func(v Variant) (string, error)) string {
	var b strings.Builder
	for _, db := range deploy.DatabaseNames() {
		for _, v := range Variants(db) {
			fmt.Fprintf(&b, "=== %s %s\n", db, v.Name)
			out, err := render(v)
			if err != nil {
				out = fmt.Sprintf("error: %v\n", err)
			}
			b.WriteString(out)
		}
	}
	return b.String()
}

// Shape is one database of the catalogue at one size.
type Shape struct {
	Database string
	Nodes    int
}

// Name is "DATABASE-NODES", a subtest's name.
func (s Shape) Name() string { return fmt.Sprintf("%s-%d", s.Database, s.Nodes) }

// Shapes are the ways a container provider runs the catalogue: every
// database with an image that the catalogue does not rule out for
// provider, as one node and, where it clusters, as three.
func Shapes(provider string) []Shape {
	var out []Shape
	for _, db := range deploy.Databases() {
		if _, no := db.Unsupported[provider]; no || db.Image == nil {
			continue
		}
		out = append(out, Shape{db.Name, 1})
		if db.Cluster != nil {
			out = append(out, Shape{db.Name, 3})
		}
	}
	return out
}
