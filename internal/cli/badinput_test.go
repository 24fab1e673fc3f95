package cli

import (
	"context"
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
