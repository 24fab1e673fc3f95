package sysmetrics

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

// FuzzParseExposition checks the Prometheus text parser on any input: it
// never panics, errors name the line, and what it reads, printed back in
// the exposition format, reads back the same.
func FuzzParseExposition(f *testing.F) {
	files, err := filepath.Glob("testdata/*.txt")
	require.NoError(f, err)
	for _, path := range files {
		b, err := os.ReadFile(path)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte("# HELP x a metric\nx{a=\"1\",b=\"with \\\"quotes\\\" and \\\\ and \\n\"} 1.5e3 1700000000000\ny NaN\nz +Inf\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ms, err := parseExposition(strings.NewReader(string(data)))
		if err != nil {
			require.NotEmpty(t, err.Error())
			return
		}
		text := formatExposition(ms)
		again, err := parseExposition(strings.NewReader(text))
		require.NoError(t, err, "printed:\n%s", text)
		require.Len(t, again, len(ms))
		for i := range ms {
			require.Equal(t, ms[i].name, again[i].name)
			require.Equal(t, ms[i].labels, again[i].labels)
			require.True(t, ms[i].value == again[i].value || math.IsNaN(ms[i].value) && math.IsNaN(again[i].value),
				"%v became %v", ms[i].value, again[i].value)
		}
	})
}

// formatExposition prints metrics in the text format, labels sorted.
func formatExposition(ms []metric) string {
	var b strings.Builder
	for _, m := range ms {
		b.WriteString(m.name)
		if len(m.labels) > 0 {
			b.WriteByte('{')
			keys := make([]string, 0, len(m.labels))
			for k := range m.labels {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				v := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(m.labels[k])
				b.WriteString(k + `="` + v + `"`)
			}
			b.WriteByte('}')
		}
		b.WriteString(" " + strconv.FormatFloat(m.value, 'g', -1, 64) + "\n")
	}
	return b.String()
}
