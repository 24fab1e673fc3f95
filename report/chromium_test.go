package report

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
)

// chromium finds a headless browser: $DBARENA_CHROMIUM, else chromium in
// PATH. It skips the test on a laptop without one, but fails it under CI
// (CI=true), where a skipped browser check would hide a broken install.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("DBARENA_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testenv.Missing(t, "no chromium: set DBARENA_CHROMIUM or put chromium in PATH (apt-get install -y chromium)")
	return ""
}

// runChromium runs the browser headless on a page with a throw-away
// home and profile, and returns stdout and the stderr log. It runs as
// root in containers, hence --no-sandbox.
func runChromium(t *testing.T, bin string, args ...string) (string, string) {
	t.Helper()
	home := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless=new", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
		"--no-first-run", "--disable-extensions", "--user-data-dir=" + filepath.Join(home, "profile")}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "chromium: %s", stderr.String())
	return stdout.String(), stderr.String()
}

// consoleErrors returns the log lines that carry a message of the page's
// console. Chromium logs them all at INFO ("INFO:CONSOLE:1] "Uncaught
// ReferenceError: ..."), console.error included, and the report has no
// script of its own, so any console line is a fault: an uncaught error,
// a resource that failed to load.
func consoleErrors(log string) []string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, ":CONSOLE") || strings.Contains(line, "Uncaught") {
			out = append(out, line)
		}
	}
	return out
}

func TestConsoleErrors(t *testing.T) {
	tests := map[string]struct {
		log  string
		want int
	}{
		"clean":         {`[1:1:1122/231144.6:ERROR:bus.cc(407)] Failed to connect to the bus: no such file`, 0},
		"console.error": {`[1:1:1122/231144.6:INFO:CONSOLE:1] "boom", source: file:///r.html (1)`, 1},
		"uncaught": {`[1:1:1122/231144.6:INFO:CONSOLE:1] "Uncaught ReferenceError: f is not defined", source: file:///r.html (1)
[1:1:1122/231144.6:ERROR:bus.cc(407)] Failed to connect to the bus`, 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) { require.Len(t, consoleErrors(tc.log), tc.want) })
	}
}

// TestChromium opens the report in a real browser: the DOM must hold the
// verdict table and the inline figures, the console must stay clean, and
// a screenshot must come out. DBARENA_SCREENSHOT=PATH keeps a copy of the
// screenshot for a person to look at.
func TestChromium(t *testing.T) {
	bin := chromium(t)
	d := fullFixture().write(t)
	path, err := Write(d)
	require.NoError(t, err)
	url := "file://" + path

	dom, log := runChromium(t, bin, "--virtual-time-budget=5000", "--dump-dom", url)
	requireHas(t, dom, `<table class="verdict" id="verdict-table">`)
	require.Equal(t, 12, strings.Count(dom, "<svg "), "every figure inline")
	requireHas(t, dom, `data-target="cassandra">1.00×`)
	require.Empty(t, consoleErrors(log))

	// The figures over time are interactive too: 3 workloads x 2 panels,
	// the load, 6 resource panels. "#probe" makes charts.js point at the
	// first chart and note its legend: the second and a value of each
	// target, as a reader's hover shows them.
	dom, log = runChromium(t, bin, "--virtual-time-budget=5000", "--dump-dom", url+"#probe")
	require.Empty(t, consoleErrors(log))
	requireHas(t, dom, `data-charts="13"`)
	require.Equal(t, 13, strings.Count(dom, `<div class="uplot`), "a uPlot chart per panel")
	require.Equal(t, 13, strings.Count(dom, "<canvas"), "each drawn on its canvas")
	probe := regexp.MustCompile(`data-probe="([^"]*)"`).FindStringSubmatch(dom)
	require.NotNil(t, probe, "the hover was recorded")
	require.Regexp(t, `^\d+(\.\d+)? s \| \d+(\.\d+)?k? \| \d+(\.\d+)?k?$`, probe[1], "x in seconds, then each target's ops/s")

	shot := filepath.Join(t.TempDir(), "report.png")
	_, log = runChromium(t, bin, "--screenshot="+shot, "--window-size=1400,3000", "--hide-scrollbars", url)
	require.Empty(t, consoleErrors(log))
	f, err := os.Open(shot)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	require.Equal(t, 1400, img.Bounds().Dx())
	if keep := os.Getenv("DBARENA_SCREENSHOT"); keep != "" {
		b, err := os.ReadFile(shot)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(keep, b, 0o644))
	}
}

// TestChromiumDBMetricPanels: the database metrics' interactive panels
// carry their titles in the page, and draw without a console error.
func TestChromiumDBMetricPanels(t *testing.T) {
	bin := chromium(t)
	d := fullFixture().write(t)
	addMetric(d, runTrial(t, d, "postgres"), "pg-1", "pg_cache_hit_ratio", func(i int) float64 { return 0.9 + 0.01*float64(i) })
	addMetric(d, runTrial(t, d, "cassandra"), "cass-1", "cassandra_pool_read_stage_pending", func(i int) float64 { return float64(i) })
	path, err := Write(d)
	require.NoError(t, err)
	dom, log := runChromium(t, bin, "--virtual-time-budget=5000", "--dump-dom", "file://"+path)
	require.Empty(t, consoleErrors(log))
	requireHas(t, dom, `<div class="u-title">PostgreSQL cache hit ratio (5-s moving mean)</div>`)
	requireHas(t, dom, `<div class="u-title">Cassandra pool read stage pending</div>`)
}
