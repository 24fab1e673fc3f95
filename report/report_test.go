package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/NAME.golden, or rewrites it under
// -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./report/ -update to create it")
	require.Equal(t, string(want), got)
}

// requireHas checks that html contains s without printing the whole
// page (megabytes of SVG) when it does not.
func requireHas(t *testing.T, html, s string, msg ...any) {
	t.Helper()
	if !strings.Contains(html, s) {
		t.Fatalf("the report lacks %q %v", s, msg)
	}
}

// partialFixture is an interrupted run: cassandra loaded, ran workload a
// once with no time series recorded, and stopped.
func partialFixture() fixture {
	fx := fullFixture()
	fx.status = results.StatusInterrupted
	fx.noPoints = map[string]bool{"cassandra.a.1": true}
	fx.skip = map[string]bool{}
	for _, wl := range []string{"a", "b", "c"} {
		for rep := 1; rep <= 2; rep++ {
			if id := fmt.Sprintf("cassandra.%s.%d", wl, rep); id != "cassandra.a.1" {
				fx.skip[id] = true
			}
		}
	}
	return fx
}

func TestVerdictGolden(t *testing.T) {
	oneTarget := fullFixture()
	oneTarget.targets = oneTarget.targets[:1]
	loadOnly := fullFixture()
	loadOnly.status = results.StatusRunning
	loadOnly.workload = nil
	tests := map[string]fixture{
		"verdict":            fullFixture(),
		"verdict-partial":    partialFixture(),
		"verdict-one-target": oneTarget,
		"verdict-load-only":  loadOnly,
	}
	for name, fx := range tests {
		t.Run(name, func(t *testing.T) {
			golden(t, name, Verdict(fx.write(t))+"\n")
		})
	}
}

// expectedShares computes, apart from the package's own code, the best
// target and each target's share of it per workload: mean throughput
// over repetitions.
func expectedShares(fx fixture) (best map[string]string, shares map[string]map[string]string) {
	best, shares = map[string]string{}, map[string]map[string]string{}
	for _, wl := range fx.workload {
		means := map[string]float64{}
		top := ""
		for _, tg := range fx.targets {
			xs := fx.rates[tg.Name][wl]
			sum := 0.0
			for _, x := range xs {
				sum += x
			}
			means[tg.Name] = sum / float64(len(xs))
			if top == "" || means[tg.Name] > means[top] {
				top = tg.Name
			}
		}
		best[wl] = top
		shares[wl] = map[string]string{}
		for name, m := range means {
			shares[wl][name] = fmt.Sprintf("%.2f×", m/means[top])
		}
	}
	return best, shares
}

// ratioCell matches a "vs top" cell: best class, row, target and the
// text up to the first tag.
var ratioCell = regexp.MustCompile(`<td class="ratio( best)?" data-row="([^"]+)" data-target="([^"]+)">([^<]+)`)

func TestRenderVerdictTable(t *testing.T) {
	fx := fullFixture()
	d := fx.write(t)
	var buf bytes.Buffer
	require.NoError(t, Render(&buf, d))
	html := buf.String()

	top, shares := expectedShares(fx)
	require.Equal(t, map[string]string{"a": "postgres", "b": "cassandra", "c": "postgres"}, top, "the fixture's own sanity")
	// cassandra's lead on b, 1.1x, is not established: no best mark
	// there.
	best := map[string]string{"a": "postgres", "c": "postgres"}
	cells := ratioCell.FindAllStringSubmatch(html, -1)
	require.Len(t, cells, len(fx.workload)*len(fx.targets))
	for _, c := range cells {
		isBest, wl, target, text := c[1] != "", c[2], c[3], strings.TrimSpace(c[4])
		require.Equal(t, best[wl] == target, isBest, "best mark of %s on %s", target, wl)
		require.Equal(t, shares[wl][target], text, "share of %s on %s", target, wl)
	}
	require.Equal(t, 2, strings.Count(html, `<span class="tag">best</span>`))
	requireHas(t, html, "(cannot tell: the interval holds 1x)", "on cassandra's b")
	requireHas(t, html, `id="verdict-table"`)
	requireHas(t, html, "12,300", "postgres' mean on a")
	requireHas(t, html, "12,000–12,600", "the spread over repetitions")
	require.False(t, strings.Contains(html, "Partial results"))
}

func TestRenderWarnings(t *testing.T) {
	d := fullFixture().write(t)
	var buf bytes.Buffer
	require.NoError(t, Render(&buf, d))
	html := buf.String()
	warn := html[strings.Index(html, `<section id="warnings">`):strings.Index(html, `<section id="targets">`)]
	requireHas(t, warn, "<b>cassandra.b.2</b>: client-bound: the load generator used 190% CPU")
	requireHas(t, warn, "<b>postgres.c.1</b>: errors: 12 of 200000 operations failed")
	requireHas(t, warn, "compaction still running")
	requireHas(t, warn, `<li class="fit-fits"><b>postgres</b>: fits: 2.0 GiB of data on disk, server peak memory 4.0 GiB`)
	requireHas(t, warn, `<li class="fit-exceeds"><b>cassandra</b>: does not fit: 3.0 GiB of data on disk, memory limit 2.0 GiB`)
}

// resourceRef finds references a browser would fetch: src, href, CSS
// url() and @import pointing at another host.
var resourceRef = regexp.MustCompile(`(?i)(src|href|xlink:href|action|srcset)\s*=\s*["']?\s*(https?:)?//|url\(\s*["']?\s*(https?:)?//|@import`)

func TestWriteFiguresAndOffline(t *testing.T) {
	d := fullFixture().write(t)
	path, err := Write(d)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(d.Dir, results.ReportFile), path)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	html := string(b)

	require.Empty(t, resourceRef.FindAllString(html, -1), "the report must not load anything from the network")
	lib, err := assets.ReadFile("uplot/uPlot.iife.min.js")
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(html, string(lib)), "uPlot is embedded, once")
	requireHas(t, html, "Permission is hereby granted", "with its licence")
	requireHas(t, html, "uPlot "+uplotVersion)
	own := strings.Replace(html, string(lib), "", 1) // its header names its home page
	require.False(t, strings.Contains(own, "http://"), "inline SVG carries no namespace URLs either")
	require.False(t, strings.Contains(own, "https://"))
	require.Equal(t, 2, strings.Count(html, "<script>"), "uPlot and charts.js, inline")
	require.Equal(t, 5, strings.Count(html, `<script type="application/json" class="chart-data">`), "one chart per figure over time")
	require.Equal(t, len(regexp.MustCompile(`<script[^>]*\ssrc=`).FindAllString(html, -1)), 0)

	linked := regexp.MustCompile(`href="figures/([^"]+)\.svg"`).FindAllStringSubmatch(html, -1)
	var names []string
	for _, m := range linked {
		names = append(names, m[1])
	}
	require.ElementsMatch(t, []string{"throughput", "load-throughput",
		"latency-a", "spectrum-a", "overtime-a", "latency-b", "spectrum-b", "overtime-b",
		"latency-c", "spectrum-c", "overtime-c", "resources"}, names)
	require.Equal(t, len(names), strings.Count(html, "<svg "), "every figure is inline too")
	for _, name := range names {
		requireSVG(t, filepath.Join(d.Dir, results.FiguresDir, name+".svg"))
		f, err := os.Open(filepath.Join(d.Dir, results.FiguresDir, name+".png"))
		require.NoError(t, err)
		img, err := png.Decode(f)
		f.Close()
		require.NoError(t, err, name)
		require.Greater(t, img.Bounds().Dx(), 500, name)
	}
}

// requireSVG parses a file as XML with an <svg> root.
func requireSVG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	dec := xml.NewDecoder(f)
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, path)
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	require.Equal(t, "svg", root, path)
}

// TestRenderTargets: raw counters read as numbers, a single property is
// singular, and a note says what "data on disk" measures.
func TestRenderTargets(t *testing.T) {
	d := fullFixture().write(t)
	var buf bytes.Buffer
	require.NoError(t, Render(&buf, d))
	html := buf.String()
	sec := html[strings.Index(html, `<section id="targets">`):]
	sec = sec[:strings.Index(sec, "</section>")]
	requireHas(t, sec, "<code>pg_blocks_hit</code> 12,530,500")
	requireHas(t, sec, "<code>pg_buffer_hit_ratio</code> 0.993")
	require.NotContains(t, sec, "e+0")
	requireHas(t, sec, "<summary>1 property</summary>")
	requireHas(t, sec, `<p class="note" id="data-note">`)
	requireHas(t, sec, "right after the last load")
	requireHas(t, sec, "memtables not yet flushed")
}

func TestRenderPartial(t *testing.T) {
	d := partialFixture().write(t)
	var buf bytes.Buffer
	require.NoError(t, Render(&buf, d))
	html := buf.String()
	requireHas(t, html, `<div class="banner" role="alert"><strong>Partial results.</strong> The run was interrupted after 9 of 14 steps.`)
	requireHas(t, html, "<b>cassandra.a.1</b>: interrupted: partial trial")
	requireHas(t, html, `<td class="na first" colspan="4">not measured</td>`, "cassandra never ran b and c")
	requireHas(t, html, `id="fig-overtime-a"`, "postgres' series still draws")
}

// edgeCases are results a killed or young run leaves behind.
func edgeCases(t *testing.T) map[string]*results.Data {
	t.Helper()
	nan := fullFixture()
	nan.rates["cassandra"]["a"] = []float64{math.NaN(), math.NaN()}
	nan.base["cassandra"] = math.NaN()
	noPoints := fullFixture()
	noPoints.noPoints = map[string]bool{}
	for _, id := range []string{"postgres.load.1", "cassandra.load.1", "postgres.a.1", "postgres.a.2", "cassandra.a.1", "cassandra.a.2"} {
		noPoints.noPoints[id] = true
	}
	empty := t.TempDir()
	w, err := results.Create(empty)
	require.NoError(t, err)
	require.NoError(t, w.WriteManifest(&results.Manifest{Experiment: "fresh", Status: results.StatusRunning}))
	require.NoError(t, w.Close())
	emptyData, err := results.Read(empty)
	require.NoError(t, err)
	return map[string]*results.Data{
		"empty":     emptyData,
		"nan":       nan.write(t),
		"no points": noPoints.write(t),
		"bare":      {Dir: t.TempDir()},
	}
}

func TestEdgeCasesRender(t *testing.T) {
	want := map[string][]string{
		"empty":     {"No trials yet", "No figures: nothing has been measured yet.", "The run is still going"},
		"nan":       {`<td class="na first" colspan="4">no throughput recorded</td>`},
		"no points": {"No time series recorded for this workload", "No time series recorded for the load phase"},
		"bare":      {"(unnamed experiment)", "No target described yet."},
	}
	for name, d := range edgeCases(t) {
		t.Run(name, func(t *testing.T) {
			path, err := Write(d)
			require.NoError(t, err)
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			for _, s := range want[name] {
				requireHas(t, string(b), s)
			}
			require.NotEmpty(t, Verdict(d))
			require.False(t, strings.Contains(string(b), "NaN"))
		})
	}
}

func TestFigureBudget(t *testing.T) {
	fx := fullFixture()
	fx.noLoad = true
	fx.workload = nil
	for i := range 30 {
		wl := fmt.Sprintf("w%02d", i)
		fx.workload = append(fx.workload, wl)
		fx.rates["postgres"][wl] = []float64{1000 + float64(i)}
		fx.rates["cassandra"][wl] = []float64{900}
	}
	d := fx.write(t)
	s := summarize(d)
	groups, note := buildFigures(d, s)
	n := 0
	for _, g := range groups {
		n += len(g.Figures)
	}
	require.LessOrEqual(t, n, maxFigures)
	require.Contains(t, note, "first 19 of 30 workload rows")
}

func TestSlugify(t *testing.T) {
	tests := map[string]string{
		"latency-a":                    "latency-a",
		"latency-a · threads=8":        "latency-a-threads-8",
		"resources-My DB/1":            "resources-my-db-1",
		"  ":                           "figure",
		"spectrum-read_only.v2 (x<y)!": "spectrum-read_only.v2-x-y",
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) { require.Equal(t, want, slugify(in)) })
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"rate thousands", fmtRate(12345.6), "12,346"},
		{"rate small", fmtRate(42.25), "42.2"},
		{"rate NaN", fmtRate(math.NaN()), "–"},
		{"ms sub", fmtMs(850), "0.85 ms"},
		{"ms one", fmtMs(2100), "2.1 ms"},
		{"ms big", fmtMs(1234567), "1,235 ms"},
		{"ratio", fmtRatio(1.7956), "1.80x"},
		{"ratio from 2x", fmtRatio(2.345), "2.3x"},
		{"ratio past 100x", fmtRatio(1e9), ">100x"},
		{"ratio under 0.01x", fmtRatio(1e-9), "<0.01x"},
		{"ratio big", fmtRatio(12.4), "12x"},
		{"bytes", fmtBytes(3 << 30), "3.0 GiB"},
		{"si", fmtSI(15000), "15k"},
		{"si fraction", fmtSI(0.25), "0.25"},
		{"number count", fmtNumber(1.25305e+07), "12,530,500"},
		{"number ratio", fmtNumber(0.993), "0.993"},
		{"number small", fmtNumber(42), "42"},
		{"number fraction", fmtNumber(3.14159), "3.142"},
		{"number NaN", fmtNumber(math.NaN()), "–"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, tc.got) })
	}
}
