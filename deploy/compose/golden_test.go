package compose

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

// TestRenderGolden keeps what every database renders to, in every shape
// a request takes, byte for byte: the compose file, the env file and the
// driver properties. DBARENA_UPDATE_GOLDEN=1 rewrites the file after a
// change meant to alter the output.
func TestRenderGolden(t *testing.T) {
	var b strings.Builder
	for _, db := range deploy.DatabaseNames() {
		for _, v := range goldenVariants(db) {
			fmt.Fprintf(&b, "=== %s %s\n", db, v.name)
			p, err := Render(v.req)
			if err != nil {
				fmt.Fprintf(&b, "error: %v\n", err)
				continue
			}
			y, err := p.YAML()
			require.NoError(t, err)
			b.Write(y)
			fmt.Fprintf(&b, "--- env file\n%s", p.EnvFile())
			addrs := make([]string, len(p.Exposed))
			for i := range addrs {
				addrs[i] = fmt.Sprintf("127.0.0.1:4000%d", i)
			}
			fmt.Fprintf(&b, "--- props\n%s", sortedProps(p.Props(addrs)))
		}
	}
	golden(t, "render.golden", b.String())
}

type goldenVariant struct {
	name string
	req  deploy.Request
}

func goldenVariants(db string) []goldenVariant {
	return []goldenVariant{
		{"plain", deploy.Request{Name: "t", Database: db}},
		{"nodes=3", deploy.Request{Name: "t", Database: db, Nodes: 3}},
		{"password", deploy.Request{Name: "t", Database: db, Options: map[string]string{"password": "pw"}}},
		{"limits+version", deploy.Request{Name: "t", Database: db, CPUs: 2.5, MemoryBytes: 3 << 30, Version: "9.9"}},
		{"nodes=3+limits", deploy.Request{Name: "t", Database: db, Nodes: 3, CPUs: 1, MemoryBytes: 1 << 30}},
	}
}

func sortedProps(p map[string]string) string {
	var lines []string
	for k, v := range p {
		lines = append(lines, k+"="+v+"\n")
	}
	sort.Strings(lines)
	return strings.Join(lines, "")
}

// golden compares got with testdata/name, or writes it there when
// DBARENA_UPDATE_GOLDEN is set.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("DBARENA_UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), got, "the rendered output changed; DBARENA_UPDATE_GOLDEN=1 rewrites %s", path)
}
