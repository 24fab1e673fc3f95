package exposition

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParse checks the Prometheus text parser on any input: it
// never panics, errors name the line, and what it reads, printed back in
// the exposition format, reads back the same.
func FuzzParse(f *testing.F) {
	// The pages the tests of its readers hold, node_exporter's and a
	// kubelet's, seed it too.
	files, err := filepath.Glob("../../sysmetrics/testdata/*.txt")
	require.NoError(f, err)
	for _, path := range files {
		b, err := os.ReadFile(path)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte("scylla_cache_row_hits{shard=\"0\",type=\"derive\"} 1234\n"))
	f.Add([]byte("# HELP x a metric\nx{a=\"1\",b=\"with \\\"quotes\\\" and \\\\ and \\n\"} 1.5e3 1700000000000\ny NaN\nz +Inf\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ms, err := Parse(strings.NewReader(string(data)))
		if err != nil {
			require.NotEmpty(t, err.Error())
			return
		}
		text := formatExposition(ms)
		again, err := Parse(strings.NewReader(text))
		require.NoError(t, err, "printed:\n%s", text)
		require.Len(t, again, len(ms))
		for i := range ms {
			require.Equal(t, ms[i].Name, again[i].Name)
			require.Equal(t, ms[i].Labels, again[i].Labels)
			require.True(t, ms[i].Value == again[i].Value || math.IsNaN(ms[i].Value) && math.IsNaN(again[i].Value),
				"%v became %v", ms[i].Value, again[i].Value)
		}
	})
}

// formatExposition prints metrics in the text format, labels sorted.
func formatExposition(ms []Metric) string {
	var b strings.Builder
	for _, m := range ms {
		b.WriteString(m.Name)
		if len(m.Labels) > 0 {
			b.WriteByte('{')
			keys := make([]string, 0, len(m.Labels))
			for k := range m.Labels {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				v := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(m.Labels[k])
				b.WriteString(k + `="` + v + `"`)
			}
			b.WriteByte('}')
		}
		b.WriteString(" " + strconv.FormatFloat(m.Value, 'g', -1, 64) + "\n")
	}
	return b.String()
}
