package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBadInputLimits runs the inputs that crashed, hung or were silently
// misread (issue 12): each must exit with ExitUsage and an error naming
// the property or flag and the limit.
func TestBadInputLimits(t *testing.T) {
	ycsb := func(args ...string) []string {
		return append([]string{"ycsb", "run", "memory", "-P", workloadA, "-p", "recordcount=10", "-p", "operationcount=10"}, args...)
	}
	for name, c := range map[string]struct {
		args []string
		want []string
	}{
		"threadcount 1e7":            {ycsb("-p", "threadcount=10000000"), []string{"threadcount=10000000", "at most 100000 workers"}},
		"-threads 1e8":               {ycsb("-threads", "100000000"), []string{"threadcount=100000000", "at most 100000 workers"}},
		"stage of 1e8 threads":       {ycsb("-p", "stages=1s:100000000"), []string{"at most 100000 workers"}},
		"target NaN":                 {ycsb("-p", "target=NaN"), []string{`"target"="NaN"`, "finite"}},
		"-target Inf":                {ycsb("-target", "Inf"), []string{"--target", `"target"="+Inf"`, "finite"}},
		"stop-on-error-rate NaN":     {ycsb("-p", "stop-on-error-rate=NaN"), []string{"stop-on-error-rate", "finite"}},
		"--stop-on-error-rate NaN":   {ycsb("--stop-on-error-rate", "NaN"), []string{"--stop-on-error-rate", "finite"}},
		"stage target NaN":           {ycsb("-p", "stages=1s:1:NaN"), []string{"stages", "target not a rate"}},
		"fieldcount 1e8":             {ycsb("-p", "fieldcount=100000000"), []string{"fieldcount", "at most 10000 fields"}},
		"fieldcount 2^63":            {ycsb("-p", "fieldcount=9223372036854775807"), []string{"fieldcount", "at most 10000 fields"}},
		"fieldlength 1e12":           {ycsb("-p", "fieldlength=1000000000000"), []string{"fieldlength", "16 MiB"}},
		"zeropadding 1e9":            {ycsb("-p", "zeropadding=1000000000"), []string{"zeropadding", "at most 1000 digits"}},
		"batchsize 1e9":              {[]string{"ycsb", "load", "memory", "-P", workloadA, "-p", "recordcount=10", "-p", "batchsize=1000000000"}, []string{"batchsize=1000000000", "at most 100000"}},
		"maxexecutiontime 1e300":     {ycsb("-p", "maxexecutiontime=1e300"), []string{"maxexecutiontime", "below 292 years"}},
		"late.threshold Inf":         {ycsb("-p", "late.threshold=Inf"), []string{"late.threshold", "below 292 years"}},
		"latest over 1e12 records":   {ycsb("-p", "recordcount=1000000000000", "-p", "requestdistribution=latest"), []string{"recordcount", "at most 10000000000 records"}},
		"secret file /dev/zero":      {ycsb("-p", "memory.x=${file:/dev/zero}"), []string{"${file:/dev/zero}", "1 MiB limit"}},
		"property file line too big": {[]string{"ycsb", "run", "memory", "-P", "/dev/zero"}, []string{"/dev/zero:1: line longer than the 16 MiB limit"}},
		"keys --top -5":              {[]string{"keys", "--top", "-5", "--records", "1000", "--draws", "1000"}, []string{"--top -5: want record counts of at least 1"}},
		"keys --top 0":               {[]string{"keys", "--top", "0", "--records", "1000", "--draws", "1000"}, []string{"--top 0"}},
		"keys --records 2^63-1":      {[]string{"keys", "--records", "9223372036854775807", "--draws", "1000"}, []string{"--records", "recordcount", "key numbers: at most"}},
		"littles-law overflow":       {[]string{"analyze", "littles-law", "--throughput", "1e300", "--latency", "1h"}, []string{"needs 5.4e+303 threads: more than a thread count can hold"}},
		"littles-law Inf headroom":   {[]string{"analyze", "littles-law", "--throughput", "100", "--latency", "1ms", "--headroom", "Inf"}, []string{"headroom +Inf"}},
		"usl /dev/zero":              {[]string{"analyze", "usl", "/dev/zero"}, []string{"/dev/zero: larger than the 64 MiB limit"}},
		"merge --window 0":           {[]string{"merge", "--window", "0s", "../../../merge/testdata/none.hlog"}, []string{"--window 0s: want a positive duration"}},
		"merge --offset 100y":        {[]string{"merge", "--offset", "x.hlog=+876000h", "x.hlog"}, []string{"want a clock offset within ±24h0m0s"}},
		"merge /dev/zero":            {[]string{"merge", "/dev/zero"}, []string{"/dev/zero: not a regular file"}},
		"warehouses on workload A":   {ycsb("-p", "tpcc.warehouses=2"), []string{`property "tpcc.warehouses": a setting of the tpcc kind`, "set workload.kind=tpcc"}},
		"transfers without a ledger": {ycsb("-p", "transferproportion=0.5", "-p", "readproportion=0.5", "-p", "updateproportion=0"), []string{`property "transferproportion": a setting of the ledger kind`, "set workload.kind=ledger"}},
		"a kind that is not one":     {ycsb("-p", "workload.kind=tpc-c"), []string{`property "workload.kind": "tpc-c": want a workload kind, one of core, ledger, tpcc`}},
		"keys --draws 2^63-1":        {[]string{"keys", "--records", "100", "--draws", "9223372036854775807"}, []string{"--draws 9223372036854775807: at most 100000000"}},
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

// TestKeysBillionRecords: YCSB's billion records needed 16 GB (16 bytes a
// record) and crashed; the counts now grow with the draws.
func TestKeysBillionRecords(t *testing.T) {
	code, out, errs := run(t, context.Background(), "keys", "--distribution", "uniform", "--records", "1000000000", "--draws", "100000")
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "records                 1000000000\n")
	require.Contains(t, out, "draws                   100000\n")
}

// TestCostBadScenarios: NaN, infinite and negative scenario values were
// printed as results ("to serve NaN ops/s") or silently replaced.
func TestCostBadScenarios(t *testing.T) {
	dir := t.TempDir()
	target := "targets:\n  - name: a\n    resources: [{instance: i3.large, count: %s}]\n    throughput: 1000\n"
	for name, c := range map[string]struct {
		text string
		want []string
	}{
		"serve NaN":        {"serve: .nan\n" + fmt.Sprintf(target, "1"), []string{"serve NaN: want a throughput in ops/s, 0 or more"}},
		"serve Inf":        {"serve: .inf\n" + fmt.Sprintf(target, "1"), []string{"serve +Inf"}},
		"serve negative":   {"serve: -5\n" + fmt.Sprintf(target, "1"), []string{"serve -5"}},
		"utilisation NaN":  {"utilisation: .nan\n" + fmt.Sprintf(target, "1"), []string{"utilisation NaN: want a share of capacity in (0, 1]"}},
		"utilisation 7":    {"utilisation: 7\n" + fmt.Sprintf(target, "1"), []string{"utilisation 7"}},
		"negative count":   {fmt.Sprintf(target, "-3"), []string{"targets[0] (a): resources[0]: count -3: want 1 or more"}},
		"prices /dev/zero": {"prices: /dev/zero\n" + fmt.Sprintf(target, "1"), []string{"/dev/zero: larger than the 64 MiB limit"}},
	} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(dir, strings.NewReplacer(" ", "-", "/", "-").Replace(name)+".yaml")
			require.NoError(t, os.WriteFile(file, []byte(c.text), 0o600))
			code, _, errs := run(t, context.Background(), "analyze", "cost", file)
			require.Equal(t, ExitUsage, code, errs)
			for _, w := range c.want {
				require.Contains(t, errs, w)
			}
		})
	}
	code, _, errs := run(t, context.Background(), "analyze", "cost", "/dev/zero")
	require.Equal(t, ExitUsage, code, errs)
	require.Contains(t, errs, "/dev/zero: larger than the 64 MiB limit")
}

// TestExperimentBadInput: run.threads: 100000000 passed --dry-run and ran
// out of memory at run time; an experiment file of /dev/zero was read
// until the memory ran out.
func TestExperimentBadInput(t *testing.T) {
	file := filepath.Join(t.TempDir(), "e.yaml")
	require.NoError(t, os.WriteFile(file, []byte("name: e\ntargets: [{database: postgres}]\nworkloads: [a]\nrun: {threads: 100000000}\n"), 0o600))
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"threads on dry run":      {[]string{"run", "--dry-run", file}, "run.threads: 100000000: at most 100000 workers per loader process"},
		"experiment /dev/zero":    {[]string{"run", "--dry-run", "/dev/zero"}, "experiment file: /dev/zero: larger than the 64 MiB limit"},
		"deploy render /dev/zero": {[]string{"deploy", "render", "/dev/zero"}, "deploy render: /dev/zero: larger than the 64 MiB limit"},
	} {
		t.Run(name, func(t *testing.T) {
			code, _, errs := run(t, context.Background(), c.args...)
			require.Equal(t, ExitUsage, code, errs)
			require.Contains(t, errs, c.want)
		})
	}
}
