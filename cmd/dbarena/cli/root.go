// Package cli implements the dbarena command line. Every command reads and
// writes through a State, so the whole CLI runs in-process in tests.
package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// Main runs the command line args and returns the process exit code.
// Whatever the command writes, and its error, goes through st.Secrets:
// a credential it resolved is never printed.
func Main(ctx context.Context, st *State, args []string) int {
	st = st.redacting()
	// fail says the command's error once, in the log's voice.
	fail := func(msg string) { fmt.Fprintf(st.Stderr, "dbarena: %s\n", msg) }
	if wantsJSONLog(args) {
		// Every line of stderr is a JSON record, from the first: a
		// progress line has no place among them.
		lines := newJSONLines(st.Stderr)
		defer lines.Flush()
		st.Stderr, st.StderrIsTerminal = lines, false
		fail = func(msg string) { lines.log.Error(msg) }
	}
	root := newRootCommand(st)
	args = normalizeArgs(args)
	root.SetArgs(args)
	root.SetOut(st.Stdout)
	root.SetErr(st.Stderr)
	root.SetFlagErrorFunc(flagErrors(args))
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.code != ExitInterrupted {
			fail(err.Error())
		}
		return ee.code
	}
	// Errors met reading the command line (unknown command or flag, see
	// parse.go) are usage errors: point at the help of the command that
	// was being read.
	path := root.CommandPath()
	if cmd != nil {
		path = cmd.CommandPath()
	}
	fail(fmt.Sprintf("%v\nRun '%s --help' for usage.", err, path))
	return ExitUsage
}

func newRootCommand(st *State) *cobra.Command {
	root := &cobra.Command{
		Use:   "dbarena",
		Short: "Fair, reproducible database benchmarks with latency you can trust",
		Long: `dbarena runs YCSB-compatible workloads against databases and measures
latency without coordinated omission.

Start with:
  dbarena quickstart                        local PostgreSQL vs Cassandra, with a report
  dbarena run examples/quickstart.yaml --dry-run
  dbarena ycsb run memory -P workloads/workloada --preload -threads 4 -s

Exit codes: 0 ok, 1 failure, 2 bad input (flag, property, file, driver),
130 interrupted (results written and marked interrupted).`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newQuickstartCommand(st), newRunCommand(st), newReportCommand(st), newSchemaCommand(st), newAnalyzeCommand(st), newCompareCommand(st), newMergeCommand(st), newClockCommand(st), newDeployCommand(st), newYCSBCommand(st),
		newSizeCommand(st), newKeysCommand(st), newVersionCommand(st), newDriversCommand(st), newCleanCommand(st))
	addLogFlags(root, st)
	// Cobra would add "completion" when executing; added now, it is
	// guarded like every other group.
	root.InitDefaultCompletionCmd()
	guardGroups(root)
	addVersionFlag(root)
	return root
}

// isYCSBLongFlag reports whether name is one of YCSB's single-dash long
// options. pflag reads "-threads" as the shorthands -t -h -r ..., so these
// are rewritten to "--threads" before parsing; both spellings work.
func isYCSBLongFlag(name string) bool {
	switch name {
	case "threads", "target", "db", "seed", "load":
		return true
	}
	return false
}

// normalizeArgs rewrites YCSB-style single-dash long flags to the double-dash
// form. Only exact flag names are touched, never values, and nothing after
// "--".
func normalizeArgs(args []string) []string {
	out := append([]string(nil), args...)
	for i, a := range out {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
			continue
		}
		if name, _, _ := strings.Cut(a[1:], "="); isYCSBLongFlag(name) {
			out[i] = "-" + a
		}
	}
	return out
}
