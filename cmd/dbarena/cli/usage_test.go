package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// runBinary runs the built command with args and stdin, and returns its
// exit code, stdout and stderr.
func runBinary(t *testing.T, bin, dir, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, strings.NewReader(stdin), &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run %v: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// TestUsageErrorsFromBinary checks what the README's exit-code table
// promises for bad usage, on the built program as a script meets it:
// exit 2, a message naming the mistake and the nearest valid word, and
// the help of the command concerned. Misspelt subcommands below the root
// used to print help and exit 0.
func TestUsageErrorsFromBinary(t *testing.T) {
	bin := buildDbarena(t)
	for name, c := range map[string]struct {
		args []string
		want []string
	}{
		"nested command ycsb": {[]string{"ycsb", "runn", "memory"},
			[]string{`unknown command "runn" for "dbarena ycsb"; did you mean "run"?`, "Run 'dbarena ycsb --help' for usage."}},
		"nested command analyze": {[]string{"analyze", "uls", "x.csv"},
			[]string{`unknown command "uls" for "dbarena analyze"; did you mean "usl"?`}},
		"nested command deploy": {[]string{"deploy", "rendr", "x"},
			[]string{`unknown command "rendr" for "dbarena deploy"; did you mean "render"?`}},
		"nested command completion": {[]string{"completion", "bsh"},
			[]string{`unknown command "bsh" for "dbarena completion"; did you mean "bash"?`}},
		"nested command before a flag": {[]string{"ycsb", "runn", "memory", "-threads", "4"},
			[]string{`unknown command "runn" for "dbarena ycsb"; did you mean "run"?`}},
		"root command, nothing near": {[]string{"benchmark-everything"},
			[]string{`unknown command "benchmark-everything" for "dbarena"; valid commands are analyze, `}},
		"double-dash flag": {[]string{"ycsb", "run", "memory", "--thread", "4"},
			[]string{`unknown flag --thread for "dbarena ycsb run"; did you mean --threads?`, "Run 'dbarena ycsb run --help' for usage."}},
		"single-dash flag": {[]string{"ycsb", "run", "memory", "-thread", "4"},
			[]string{`unknown flag -thread for "dbarena ycsb run"; did you mean --threads?`, "Run 'dbarena ycsb run --help' for usage."}},
		"single-dash flag with value": {[]string{"ycsb", "load", "memory", "-statuss=1"},
			[]string{`unknown flag -statuss for "dbarena ycsb load"; did you mean --status?`}},
		"driver": {[]string{"ycsb", "run", "postgress"},
			[]string{`unknown driver "postgress"`, `did you mean "postgres"?`}},
		// A driver's own properties with bad values are bad input too,
		// found before any connection (they exited 1, as a failure).
		"driver property value": {[]string{"ycsb", "run", "memory", "--preload", "-p", "operationcount=10", "-p", "recordcount=10", "-p", "memory.maxbytes=lots"},
			[]string{`open driver memory: memory.maxbytes="lots": want an integer >= 1`}},
		"driver address": {[]string{"ycsb", "run", "redis", "-p", "operationcount=10", "-p", "recordcount=10", "-p", "redis.addr=nohost:xx:1"},
			[]string{`redis.addr="nohost:xx:1": "nohost:xx:1" is not host:port`}},
		"driver URL": {[]string{"ycsb", "load", "postgres", "-p", "recordcount=10", "-p", "postgres.url=:::"},
			[]string{`postgres.url=":::": cannot parse`}},
		"records past memory.maxbytes": {[]string{"ycsb", "run", "memory", "--preload", "-p", "operationcount=10", "-p", "recordcount=10", "-p", "recordcount=100000000000"},
			[]string{"more than memory.maxbytes=8589934592; lower recordcount or raise memory.maxbytes"}},
	} {
		t.Run(name, func(t *testing.T) {
			code, out, errs := runBinary(t, bin, "", "", c.args...)
			require.Equal(t, ExitUsage, code, errs)
			require.Empty(t, out, "no help on stdout for a mistake")
			for _, w := range c.want {
				require.Contains(t, errs, w)
			}
			require.NotContains(t, errs, "shorthand")
		})
	}

	t.Run("unreachable database is a failure, not bad input", func(t *testing.T) {
		code, _, errs := runBinary(t, bin, "", "", "ycsb", "run", "redis", "-p", "operationcount=10", "-p", "recordcount=10", "-p", "redis.addr=127.0.0.1:1")
		require.Equal(t, ExitFailure, code, errs)
		require.Contains(t, errs, "cannot connect to redis at 127.0.0.1:1")
	})
	t.Run("--version", func(t *testing.T) {
		code, out, errs := runBinary(t, bin, "", "", "--version")
		require.Equal(t, ExitOK, code, errs)
		_, want, _ := runBinary(t, bin, "", "", "version")
		require.Equal(t, want, out)
		require.Contains(t, out, "dbarena "+Version+"\n")
	})
	t.Run("group without a command shows its help", func(t *testing.T) {
		code, out, errs := runBinary(t, bin, "", "", "ycsb")
		require.Equal(t, ExitOK, code, errs)
		require.Contains(t, out, "Available Commands:")
	})
}

// TestDashIsStdoutFromBinary checks that "-" as an output file means
// standard output, holding that output alone (the text moves to stderr),
// and that no file named "-" is created. It used to be.
func TestDashIsStdoutFromBinary(t *testing.T) {
	bin := buildDbarena(t)
	dir := t.TempDir()
	ycsb := []string{"ycsb", "run", "memory", "--preload", "-q", "-seed", "1", "-p", "recordcount=100", "-p", "operationcount=500"}

	t.Run("json", func(t *testing.T) {
		code, out, errs := runBinary(t, bin, dir, "", append(ycsb, "--json", "-")...)
		require.Equal(t, ExitOK, code, errs)
		var s results.Summary
		require.NoError(t, json.Unmarshal([]byte(out), &s), "stdout is the JSON summary alone:\n%s", out)
		require.Equal(t, int64(500), s.Measured.Operations)
		require.Contains(t, errs, "[OVERALL], RunTime(ms), ", "the YCSB text went to stderr")
		require.NoFileExists(t, filepath.Join(dir, "-"))
	})
	t.Run("json property", func(t *testing.T) {
		code, out, errs := runBinary(t, bin, dir, "", append(ycsb, "-p", "json.output=-")...)
		require.Equal(t, ExitOK, code, errs)
		require.True(t, json.Valid([]byte(out)), out)
	})
	t.Run("hdr log", func(t *testing.T) {
		code, out, errs := runBinary(t, bin, dir, "", append(ycsb, "--hdr-log", "-")...)
		require.Equal(t, ExitOK, code, errs)
		require.True(t, strings.HasPrefix(out, "#[Histogram log format version 1.3]") || strings.Contains(out, "\n#[Histogram log format version 1.3]"), out)
		require.NotContains(t, out, "[OVERALL]")
		require.Contains(t, errs, "[OVERALL], RunTime(ms), ")
		require.NoFileExists(t, filepath.Join(dir, "-"))
	})
	t.Run("export and json to a file", func(t *testing.T) {
		code, out, errs := runBinary(t, bin, dir, "", append(ycsb, "--export", "-", "--json", "s.json")...)
		require.Equal(t, ExitOK, code, errs)
		require.Contains(t, out, "[OVERALL], RunTime(ms), ")
		require.FileExists(t, filepath.Join(dir, "s.json"))
	})
	t.Run("two outputs on stdout", func(t *testing.T) {
		code, out, errs := runBinary(t, bin, dir, "", append(ycsb, "--json", "-", "--hdr-log", "-")...)
		require.Equal(t, ExitUsage, code, errs)
		require.Empty(t, out)
		require.Contains(t, errs, "--json (json.output), --hdr-log (hdr.log) all name standard output (-)")
	})
	t.Run("merge", func(t *testing.T) {
		code, _, errs := runBinary(t, bin, dir, "", append(ycsb, "--hdr-log", "run.hlog")...)
		require.Equal(t, ExitOK, code, errs)
		code, out, errs := runBinary(t, bin, dir, "", "merge", "--json", "-", "run.hlog")
		require.Equal(t, ExitOK, code, errs)
		require.True(t, json.Valid([]byte(out)), out)
		require.Contains(t, errs, "Merged 1 loaders")
		code, out, errs = runBinary(t, bin, dir, "", "merge", "--out", "-", "run.hlog")
		require.Equal(t, ExitOK, code, errs)
		require.Contains(t, out, "#[Histogram log format version 1.3]")
		require.NoFileExists(t, filepath.Join(dir, "-"))
	})
}

func TestKeysCSVToStdout(t *testing.T) {
	code, out, errs := run(t, context.Background(), "keys", "--records", "10", "--draws", "1000", "--top", "1", "--csv", "-")
	require.Equal(t, ExitOK, code, errs)
	require.True(t, strings.HasPrefix(out, "rank,frequency\n1,"), out)
	require.Contains(t, errs, "top k records")
}
