package properties_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/properties"
)

// FuzzParse checks the property parser on any input: it never panics, an
// error names the file, and what it reads survives Write and a second
// Parse unchanged. The typed accessors never panic on any value.
func FuzzParse(f *testing.F) {
	seeds, err := filepath.Glob("../workloads/workload*")
	require.NoError(f, err)
	more, err := filepath.Glob("../workload/testdata/*.properties")
	require.NoError(f, err)
	for _, path := range append(seeds, more...) {
		b, err := os.ReadFile(path)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte("a=1\nb = 2\nc: 3\nd 4\n   e=  spaced\nf=line\\\n    continued\ng=tab\\there\nh=\\u0041BC\ni\\=j=k\nempty=\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := properties.Parse(bytes.NewReader(data), "fuzz.properties")
		if err != nil {
			require.True(t, strings.HasPrefix(err.Error(), "fuzz.properties:"), "error without the file: %v", err)
			return
		}
		for _, k := range s.Keys() {
			_, _ = s.Float(k, 0)
			_, _ = s.Int(k, 0)
			_, _ = s.Int64(k, 0)
			_, _ = s.Bool(k, false)
			_, _ = s.Duration(k, 0)
		}
		var out bytes.Buffer
		require.NoError(t, s.Write(&out))
		again, err := properties.Parse(&out, "written.properties")
		require.NoError(t, err, "Write wrote what Parse refuses:\n%s", out.String())
		require.Equal(t, s.Map(), again.Map(), "round trip through:\n%s", out.String())
	})
}
