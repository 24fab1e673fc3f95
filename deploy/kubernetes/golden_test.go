package kubernetes

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/deploy"
)

// TestRenderGolden keeps what every database renders to, in every shape
// a request takes, byte for byte: the manifests, the Secret and the
// driver properties from this machine and from the loader pods.
// DBARENA_UPDATE_GOLDEN=1 rewrites the file after a change meant to
// alter the output.
func TestRenderGolden(t *testing.T) {
	var b strings.Builder
	for _, db := range deploy.DatabaseNames() {
		for _, v := range []struct {
			name string
			req  deploy.Request
		}{
			{"plain", deploy.Request{Name: "t", Database: db}},
			{"nodes=3", deploy.Request{Name: "t", Database: db, Nodes: 3}},
			{"password", deploy.Request{Name: "t", Database: db, Options: map[string]string{"password": "pw"}}},
			{"limits+version", deploy.Request{Name: "t", Database: db, CPUs: 2.5, MemoryBytes: 3 << 30, Version: "9.9"}},
			{"nodes=3+limits", deploy.Request{Name: "t", Database: db, Nodes: 3, CPUs: 1, MemoryBytes: 1 << 30}},
		} {
			fmt.Fprintf(&b, "=== %s %s\n", db, v.name)
			m, err := Render(v.req)
			if err != nil {
				fmt.Fprintf(&b, "error: %v\n", err)
				continue
			}
			y, err := m.YAML()
			require.NoError(t, err)
			b.Write(y)
			if m.Secret != nil {
				s, err := yaml.Marshal(m.Secret)
				require.NoError(t, err)
				fmt.Fprintf(&b, "--- secret\n%s", s)
			}
			nodes := max(v.req.Nodes, 1)
			fmt.Fprintf(&b, "--- port %d service %s\n--- props\n%s--- loader props\n%s", m.Port, m.Service,
				sortedProps(props(db, "127.0.0.1", 40000, nodes)), sortedProps(props(db, "db.ns.svc.cluster.local", m.Port, nodes)))
		}
	}
	path := filepath.Join("testdata", "render.golden")
	if os.Getenv("DBARENA_UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), b.String(), "the rendered output changed; DBARENA_UPDATE_GOLDEN=1 rewrites %s", path)
}

func sortedProps(p map[string]string) string {
	var lines []string
	for k, v := range p {
		lines = append(lines, k+"="+v+"\n")
	}
	sort.Strings(lines)
	return strings.Join(lines, "")
}
