package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

func TestClientCeiling(t *testing.T) {
	d := fullFixture().write(t)
	var withRef, noRef int
	for i := range d.Trials {
		tr := &d.Trials[i]
		switch tr.ID {
		case "postgres.c.1": // 20,000 ops/s against 21,000: fine
			tr.Reference = results.Reference{Tool: "pgbench", Command: "pgbench -n -M prepared -c 8", Throughput: 21_000, MeanLatency: 380,
				Note: "keys uniform, where the workload chose them zipfian"}
			withRef = i
		case "postgres.c.2": // 20,200 against 40,400: the client was the limit
			tr.Reference = results.Reference{Tool: "pgbench", Throughput: 40_400, MeanLatency: 190}
		case "cassandra.c.1":
			tr.Reference.Note = "no reference: no native load tool is known for the cql driver"
			noRef = i
		case "cassandra.c.2":
			tr.Reference.Note = "no reference: no native load tool is known for the cql driver"
		}
	}
	require.InDelta(t, 20_000.0/21_000, d.Trials[withRef].Ratio(), 1e-9)
	require.Zero(t, d.Trials[noRef].Ratio())

	var buf bytes.Buffer
	require.NoError(t, Render(&buf, d))
	html := buf.String()
	sec := html[strings.Index(html, `<section id="client-ceiling">`):strings.Index(html, `<section id="figures">`)]
	requireHas(t, sec, `<tr><td>postgres.c.1</td><td class="num">16</td><td class="num">20,000</td><td><span title="pgbench -n -M prepared -c 8">pgbench</span></td><td class="num">21,000</td><td class="num">95%</td>`)
	requireHas(t, sec, `<tr class="low"><td>postgres.c.2</td>`)
	requireHas(t, sec, `<td class="num">50%</td>`)
	require.Equal(t, 1, strings.Count(sec, "no native load tool is known for the cql driver"), "one note per target and reason")

	warn := html[strings.Index(html, `<section id="warnings">`):strings.Index(html, `<section id="targets">`)]
	requireHas(t, warn, "<b>postgres.c.2</b>: client ceiling: dbarena reached 50% of pgbench&#39;s throughput on the same reads (20,200 vs 40,400 ops/s)")
	require.NotContains(t, warn, "<b>postgres.c.1</b>: client ceiling")

	require.Contains(t, Verdict(d), "\n  client ceiling: postgres.c.1 reached 95% of pgbench; postgres.c.2 reached 50% of pgbench; cassandra none (no reference: no native load tool is known for the cql driver)\n")

	// Without references the section is not there at all.
	buf.Reset()
	require.NoError(t, Render(&buf, fullFixture().write(t)))
	require.NotContains(t, buf.String(), `id="client-ceiling"`)
}

// TestMissingReferenceIsSaid: a target whose reference was asked for and
// could not run has no client ceiling, and the verdict's line says why,
// once; a later repetition's note (the first measures it) says nothing.
func TestMissingReferenceIsSaid(t *testing.T) {
	d := &results.Data{Manifest: results.Manifest{Status: results.StatusCompleted}}
	for i, note := range []string{
		"no reference: redis-benchmark reads keys as it numbers them, and these are hashed",
		"no reference: redis-benchmark reads keys as it numbers them, and these are hashed",
	} {
		d.Trials = append(d.Trials, results.Trial{ID: fmt.Sprintf("redis.c.rep%d", i+1), Kind: results.KindRun, Target: "redis", Workload: "c",
			Repetition: i + 1, Throughput: 1000, Status: results.StatusCompleted, Reference: results.Reference{Note: note}})
	}
	d.Trials = append(d.Trials, results.Trial{ID: "pg.c.rep2", Kind: results.KindRun, Target: "pg", Workload: "c", Repetition: 2,
		Throughput: 1000, Status: results.StatusCompleted, Reference: results.Reference{Note: "no reference: measured on the first repetition"}})
	require.Equal(t, "redis none (no reference: redis-benchmark reads keys as it numbers them, and these are hashed)", ceilingSentence(d))
}
