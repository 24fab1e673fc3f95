package cost

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// FuzzParseCatalogue checks the price catalogue decoder on any input: it
// never panics, every price it accepts is finite and >= 0, and the
// catalogue written back as YAML reads back the same.
func FuzzParseCatalogue(f *testing.F) {
	files, err := filepath.Glob("testdata/*.yaml")
	require.NoError(f, err)
	for _, path := range append(files, "prices.yaml") {
		b, err := os.ReadFile(path)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCatalogue(bytes.NewReader(data))
		if err != nil {
			require.NotEmpty(t, err.Error())
			return
		}
		for name, in := range c.Instances {
			require.Equal(t, name, in.Name)
			m := in.Monthly()
			require.True(t, m >= 0 && !math.IsInf(m, 0), "%s: monthly %v", name, m)
			_, err := MonthlyCost(c, []Resource{{Instance: name, Count: 3}})
			require.NoError(t, err)
		}
		out, err := yaml.Marshal(c)
		require.NoError(t, err)
		again, err := ParseCatalogue(bytes.NewReader(out))
		require.NoError(t, err, "written:\n%s", out)
		require.Equal(t, normal(c), normal(again), "written:\n%s", out)
	})
}

// normal makes an empty map or list nil: YAML writes both as {} or [].
func normal(c *Catalogue) *Catalogue {
	n := *c
	if len(n.Instances) == 0 {
		n.Instances = nil
	}
	if len(n.Sources) == 0 {
		n.Sources = nil
	}
	return &n
}
