package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// run executes the CLI in-process and returns the exit code and outputs.
func run(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	st := &State{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	st.Logger = newLogger(&errb)
	code := Main(ctx, st, args)
	return code, out.String(), errb.String()
}

const (
	workloadA = "../../../workloads/workloada"
	workloadC = "../../../workloads/workloadc"
)

func TestYCSBRunEndToEnd(t *testing.T) {
	dir := t.TempDir()
	jsonPath, hlogPath := filepath.Join(dir, "s.json"), filepath.Join(dir, "run.hlog")
	code, out, errs := run(t, context.Background(), "ycsb", "run", "memory", "-P", workloadA, "--preload",
		"-p", "recordcount=1000", "-p", "operationcount=5000", "-threads", "2", "-seed", "11",
		"--json", jsonPath, "--hdr-log", hlogPath)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "[OVERALL], RunTime(ms), ")
	require.Contains(t, out, "[READ], 99thPercentileLatency(us), ")
	require.Contains(t, out, "[UPDATE], Return=OK, ")
	require.NotContains(t, out, "NOT_FOUND", "preload inserted every record")
	require.Contains(t, errs, "preload: 1000 records")

	var s results.Summary
	b, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s))
	require.Equal(t, int64(5000), s.Measured.Operations)
	require.Equal(t, uint64(11), s.Seed)
	require.Equal(t, 2, s.Threads)
	require.Equal(t, "2", s.Properties["threadcount"])
	require.False(t, s.Interrupted)
	require.NotNil(t, s.Loader)
	require.Positive(t, s.Loader.MaxRSSBytes)

	h, err := os.ReadFile(hlogPath)
	require.NoError(t, err)
	require.Contains(t, string(h), "#[Histogram log format version 1.3]")
	require.Contains(t, string(h), "Tag=READ,")
}

func TestYCSBTargetRecordsIntended(t *testing.T) {
	code, out, errs := run(t, context.Background(), "ycsb", "run", "memory", "-P", workloadA, "--preload",
		"-p", "recordcount=100", "-p", "operationcount=200", "-target", "2000", "-threads", "2")
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "[Intended-READ], 99thPercentileLatency(us), ")
	require.Contains(t, out, "[Intended-READ], LateOperations, ")
}

func TestYCSBLoadThenVersion(t *testing.T) {
	code, out, errs := run(t, context.Background(), "ycsb", "load", "basic", "-P", workloadA, "-p", "recordcount=500", "-s")
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "[INSERT], Operations, 500")

	code, out, _ = run(t, context.Background(), "version")
	require.Equal(t, ExitOK, code)
	require.Contains(t, out, "dbarena "+Version)
}

func TestInterruptedRunExits130AndKeepsResults(t *testing.T) {
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "s.json")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	code, out, _ := run(t, ctx, "ycsb", "run", "basic", "-P", workloadA, "-p", "operationcount=1000000000000",
		"-p", "basic.delay=1ms", "-threads", "2", "--json", jsonPath)
	require.Equal(t, ExitInterrupted, code)
	require.Contains(t, out, "[OVERALL], Interrupted, true")
	var s results.Summary
	b, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s))
	require.True(t, s.Interrupted)
	require.Positive(t, s.Measured.Operations)
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	unreadable := filepath.Join(dir, "nope.properties")
	for name, c := range map[string]struct {
		args []string
		want []string
	}{
		"unknown driver":        {[]string{"ycsb", "run", "oracle", "-P", workloadA}, []string{`unknown driver "oracle"`, "valid drivers are aerospike, basic, cql, dynamodb, memory"}},
		"missing driver":        {[]string{"ycsb", "run", "-P", workloadA}, []string{"exactly one DRIVER"}},
		"missing file":          {[]string{"ycsb", "run", "memory", "-P", unreadable}, []string{unreadable}},
		"unknown distribution":  {[]string{"ycsb", "run", "memory", "-P", workloadA, "-p", "requestdistribution=pareto"}, []string{"requestdistribution", "pareto", "zipfian"}},
		"proportions":           {[]string{"ycsb", "run", "memory", "-P", workloadA, "-p", "readproportion=0.9"}, []string{"proportion", "1.4"}},
		"negative count":        {[]string{"ycsb", "run", "memory", "-P", workloadA, "-p", "recordcount=-5"}, []string{"recordcount"}},
		"not a number":          {[]string{"ycsb", "run", "memory", "-P", workloadA, "-p", "fieldcount=ten"}, []string{"fieldcount", "ten"}},
		"bad -p":                {[]string{"ycsb", "run", "memory", "-P", workloadA, "-p", "recordcount"}, []string{"recordcount"}},
		"threads":               {[]string{"ycsb", "run", "memory", "-P", workloadA, "-threads", "0"}, []string{"threadcount"}},
		"bad duration":          {[]string{"ycsb", "run", "memory", "-P", workloadA, "-p", "maxexecutiontime=soon"}, []string{"maxexecutiontime", "soon"}},
		"unknown flag":          {[]string{"ycsb", "run", "memory", "--frobnicate"}, []string{"frobnicate"}},
		"unknown command":       {[]string{"benchmark-everything"}, []string{"unknown command"}},
		"keys bad distribution": {[]string{"keys", "--distribution", "gaussian"}, []string{"requestdistribution", "gaussian"}},
	} {
		t.Run(name, func(t *testing.T) {
			code, _, errs := run(t, context.Background(), c.args...)
			require.Equal(t, ExitUsage, code, errs)
			for _, w := range c.want {
				require.Contains(t, errs, w)
			}
			require.NotContains(t, errs, "panic")
		})
	}
}

func TestUnknownPropertyWarns(t *testing.T) {
	code, _, errs := run(t, context.Background(), "ycsb", "load", "basic", "-P", workloadA, "-p", "recordcont=10")
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, errs, "recordcont")
	require.Contains(t, errs, "recordcount")
}

func TestKeys(t *testing.T) {
	csvPath := filepath.Join(t.TempDir(), "ranks.csv")
	code, out, errs := run(t, context.Background(), "keys", "--distribution", "hotspot", "--records", "1000", "--draws", "200000",
		"--top", "200", "-p", "hotspotdatafraction=0.2", "-p", "hotspotopnfraction=0.8", "--csv", csvPath)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "top k records")
	// The 200 hot records take 80% of the draws.
	fields := strings.Fields(lineWith(t, out, "200 "))
	share, err := strconv.ParseFloat(strings.TrimSuffix(fields[1], "%"), 64)
	require.NoError(t, err)
	require.InDelta(t, 80, share, 0.5)
	b, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(b), "rank,frequency\n1,"))
	require.Equal(t, 1001, strings.Count(string(b), "\n"), "every one of 1000 records drawn")
}

func lineWith(t *testing.T, text, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	t.Fatalf("no line starting %q in:\n%s", prefix, text)
	return ""
}

func TestNormalizeArgs(t *testing.T) {
	got := normalizeArgs([]string{"ycsb", "run", "-threads", "4", "-target=100", "-P", "f", "-p", "x=-threads", "--", "-seed"})
	require.Equal(t, []string{"ycsb", "run", "--threads", "4", "--target=100", "-P", "f", "-p", "x=-threads", "--", "-seed"}, got)
}

func TestHumanUnits(t *testing.T) {
	require.Equal(t, "0.14µs", humanMicros(0.141))
	require.Equal(t, "45µs", humanMicros(45.2))
	require.Equal(t, "8.48ms", humanMicros(8478.7))
	require.Equal(t, "1.50s", humanMicros(1.5e6))
	require.Equal(t, "5.11M", humanRate(5.11e6))
	require.Equal(t, "12.3k", humanRate(12345))
}

func TestStatusLine(t *testing.T) {
	var errb bytes.Buffer
	st := &State{Stdout: &bytes.Buffer{}, Stderr: &errb, Getenv: func(string) string { return "" }}
	st.Logger = newLogger(&errb)
	code := Main(context.Background(), st, []string{"ycsb", "run", "basic", "-P", workloadA, "-p", "operationcount=1000000000",
		"-p", "maxexecutiontime=2.2", "-p", "status.interval=1", "-s", "-seed", "1", "-p", "basic.delay=100us"})
	require.Equal(t, ExitOK, code, errb.String())
	lines := strings.Count(errb.String(), " current ops/sec;")
	require.GreaterOrEqual(t, lines, 2, errb.String())
	require.Contains(t, errb.String(), "[READ: Count=")
	require.Contains(t, errb.String(), "est completion in")
}
