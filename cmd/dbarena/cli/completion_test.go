package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCompletion asks the program what the shell scripts ask it (the
// hidden __complete command): the values only dbarena knows, each list
// ending in cobra's ":DIRECTIVE" line.
func TestCompletion(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		want []string
		// directive is cobra's: 4 no files, 0 files, 8 files by extension.
		directive string
	}{
		"driver":           {[]string{"ycsb", "run", ""}, []string{"memory\t", "postgres\tPostgreSQL", "redis\t"}, ":4"},
		"driver of verify": {[]string{"ycsb", "verify", "mo"}, []string{"mongodb\t"}, ":4"},
		"no second driver": {[]string{"ycsb", "load", "memory", ""}, nil, ":4"},
		"property key":     {[]string{"ycsb", "run", "memory", "-p", "req"}, []string{"requestdistribution="}, ":6"},
		"request distribution": {[]string{"ycsb", "run", "memory", "-p", "requestdistribution="},
			[]string{"requestdistribution=zipfian", "requestdistribution=hotspot", "requestdistribution=exponential"}, ":4"},
		"built-in workload":  {[]string{"ycsb", "run", "memory", "-P", "work"}, []string{"workloada", "workloadf"}, ":4"},
		"workload file":      {[]string{"ycsb", "run", "memory", "-P", "./my"}, nil, ":0"},
		"experiment file":    {[]string{"run", ""}, []string{"yaml", "yml"}, ":8"},
		"keys distribution":  {[]string{"keys", "--distribution", ""}, []string{"uniform", "latest"}, ":4"},
		"format":             {[]string{"compare", "--format", ""}, []string{"text", "json"}, ":4"},
		"group's subcommand": {[]string{"deploy", ""}, []string{"render\t", "down\t"}, ":4"},
	} {
		t.Run(name, func(t *testing.T) {
			code, out, errs := run(t, context.Background(), append([]string{"__complete"}, c.args...)...)
			require.Equal(t, ExitOK, code, errs)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			require.Equal(t, c.directive, lines[len(lines)-1], out)
			for _, w := range c.want {
				require.Contains(t, out, w)
			}
			if c.want == nil {
				require.Len(t, lines, 1, out)
			}
		})
	}
}

// TestCompletionScripts checks that the built program prints a script
// for each documented shell.
func TestCompletionScripts(t *testing.T) {
	bin := buildDbarena(t)
	for _, shell := range []string{"bash", "zsh", "fish"} {
		code, out, errs := runBinary(t, bin, "", "", "completion", shell)
		require.Equal(t, ExitOK, code, errs)
		require.Contains(t, out, "__complete", shell)
	}
}
