package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// goldenResults holds results directories written by past versions of
// dbarena (see its README.md): the report must keep rendering them.
const goldenResults = "../results/testdata/golden"

// TestGoldenDirectoriesRender renders every frozen results directory:
// each report has all its trials, a flag the run raised, the figures
// drawn from its files and the section its kind of experiment has.
func TestGoldenDirectoriesRender(t *testing.T) {
	for name, want := range map[string]struct {
		trials int
		has    []string
	}{
		"format2/sweep": {14, []string{`<section id="scalability">`, "fast.c.threads=4.rep2",
			"client-bound: the load generator used 191% CPU of 200% available", `id="fig-spectrum-c-threads-4"`}},
		"format2/spike": {5, []string{`<section id="spikes">`, "basic.c.stage2",
			"pacing: the load generator started operations late (p99 4133 µs", `id="fig-spectrum-c-stage-2"`}},
		"format2/loaders": {2, []string{"target missed: 533 of 800 ops/s", `id="fig-spectrum-c"`, `id="fig-overtime-c"`}},
		"format2/priced": {6, []string{`<section id="price-performance">`, "n2d-standard-4",
			"errors: 763 of 763 operations failed", "failed: stopped early: error rate 100.0%", "the run failed: every step ran, 1 of 6 failed"}},
	} {
		t.Run(name, func(t *testing.T) {
			d, err := results.Read(filepath.Join(goldenResults, name))
			require.NoError(t, err)
			var buf bytes.Buffer
			require.NoError(t, Render(&buf, d))
			html := buf.String()
			requireHas(t, html, fmt.Sprintf("All %d trials", want.trials))
			requireHas(t, html, `id="fig-throughput"`)
			for _, s := range append(want.has, "<svg") {
				requireHas(t, html, s)
			}
		})
	}
}
