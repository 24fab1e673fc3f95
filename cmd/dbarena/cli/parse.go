package cli

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/internal/suggest"
)

// This file holds what cobra leaves to us in reading a command line: a
// misspelt command below the root, a misspelt flag, YCSB's single-dash
// long flags. Every such mistake is bad input (exit 2) whose message
// names the command, suggests the nearest valid word and, through Main,
// points at that command's own --help.

// groupAnnotation marks the commands guardGroups guarded: once guarded,
// a group has a RunE like any command.
const groupAnnotation = "dbarena-group"

// isGroup reports whether cmd only groups subcommands: it has some and
// nothing to run of its own, or it was guarded by guardGroups.
func isGroup(cmd *cobra.Command) bool {
	_, guarded := cmd.Annotations[groupAnnotation]
	return guarded || cmd.HasSubCommands() && !cmd.Runnable()
}

// guardGroups makes every command group under cmd, cmd included, refuse
// an unknown subcommand. Cobra checks subcommand names only at the root;
// below it "dbarena ycsb runn memory" printed ycsb's help and exited 0,
// so a script with a typo passed. A group run without a subcommand still
// prints its help and exits 0, as the root does: it was asked nothing.
func guardGroups(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		guardGroups(c)
	}
	if !isGroup(cmd) {
		return
	}
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[groupAnnotation] = ""
	cmd.Args = unknownSubcommand
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	// A group's arguments are subcommands, which cobra completes; never
	// files.
	cmd.ValidArgsFunction = cobra.NoFileCompletions
	// The help shows "dbarena ycsb [command]" only, as before it was
	// made runnable.
	cmd.DisableFlagsInUseLine = true
}

// unknownSubcommand is a group's argument check: any argument is a
// subcommand it does not have.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	sort.Strings(names)
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := suggest.Nearest(args[0], names); s != "" {
		return fmt.Errorf("%s; did you mean %q?", msg, s)
	}
	return fmt.Errorf("%s; valid commands are %s", msg, strings.Join(names, ", "))
}

// flagErrors returns the function cobra calls when it cannot parse a
// command's flags; args are the arguments it parses.
//
// Cobra parses a command's flags before checking its arguments, so in
// "dbarena ycsb runn memory -threads 4" the group ycsb meets --threads,
// a flag it does not have, before the misspelt command: the command is
// the mistake to report.
func flagErrors(args []string) func(*cobra.Command, error) error {
	return func(cmd *cobra.Command, err error) error {
		if pos := cmd.Flags().Args(); isGroup(cmd) && len(pos) > 0 {
			return unknownSubcommand(cmd, pos)
		}
		var ne *pflag.NotExistError
		if !errors.As(err, &ne) {
			return err
		}
		word, name := "--"+ne.GetSpecifiedName(), ne.GetSpecifiedName()
		if sh := ne.GetSpecifiedShortnames(); sh != "" {
			word, name = singleDashWord(args, sh)
		}
		msg := fmt.Sprintf("unknown flag %s for %q", word, cmd.CommandPath())
		if len(name) < 2 {
			// A single letter: a shorthand, too short to guess from.
			return errors.New(msg)
		}
		if s := suggest.Nearest(name, flagNames(cmd)); s != "" {
			return fmt.Errorf("%s; did you mean --%s?", msg, s)
		}
		return errors.New(msg)
	}
}

// singleDashWord finds the argument in which pflag met an unknown
// shorthand, given the shorthands it had left to read, and returns it
// without its value ("-thread") and its name ("thread"). pflag reads
// "-thread" as -t -h -r ..., but whoever typed it meant YCSB's
// single-dash long flag (the known ones are rewritten by normalizeArgs),
// so it is taken as a misspelt long flag. Failing to find the argument,
// the shorthands left stand for it.
func singleDashWord(args []string, rest string) (word, name string) {
	name, _, _ = strings.Cut(rest, "=")
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.HasSuffix(a, rest) {
			name, _, _ = strings.Cut(a[1:], "=")
			break
		}
	}
	return "-" + name, name
}

// flagNames lists the long names of cmd's visible flags.
func flagNames(cmd *cobra.Command) []string {
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	return names
}
