package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/spf13/cobra"
)

// Values of --format, the choice of the commands that print a result
// (compare, drivers, run --dry-run): text for people, the default, or
// json for programs such as a CI gate that archives and parses it.
const (
	formatText = "text"
	formatJSON = "json"
)

// formatValue is the value of --format; anything but text or json fails
// while the flags are parsed, before any work is done.
type formatValue string

func (f *formatValue) String() string { return string(*f) }

// Set implements pflag.Value.
func (f *formatValue) Set(s string) error {
	if s != formatText && s != formatJSON {
		return fmt.Errorf("want %s or %s", formatText, formatJSON)
	}
	*f = formatValue(s)
	return nil
}

// Type implements pflag.Value.
func (f *formatValue) Type() string { return "format" }

// json reports whether JSON was asked for.
func (f *formatValue) json() bool { return *f == formatJSON }

// addFormatFlag gives cmd --format, with its values for completion,
// and --json as its other spelling (hidden): one convention, the other
// habit accepted.
func addFormatFlag(cmd *cobra.Command) *formatValue {
	f := formatFlag(cmd, "output format: text or json")
	cmd.Flags().Var(jsonAlias{f}, "json", "same as --format json")
	cmd.Flags().Lookup("json").NoOptDefVal = "true"
	_ = cmd.Flags().MarkHidden("json") // the flag was just added
	return f
}

// formatFlag declares --format with usage, text by default, and its
// values for completion.
func formatFlag(cmd *cobra.Command, usage string) *formatValue {
	f := formatValue(formatText)
	cmd.Flags().Var(&f, "format", usage)
	registerFlagCompletion(cmd, "format", cobra.FixedCompletions([]string{formatText, formatJSON}, cobra.ShellCompDirectiveNoFileComp))
	return &f
}

// jsonAlias is --json on a command whose result --format chooses: a
// bare --json (or --json=true) is --format json.
type jsonAlias struct{ f *formatValue }

func (a jsonAlias) String() string { return strconv.FormatBool(a.f.json()) }

// Set implements pflag.Value.
func (a jsonAlias) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want no value (it means --format json); this command prints its result on stdout: redirect it to a file")
	}
	if on {
		*a.f = formatJSON
	}
	return nil
}

// Type implements pflag.Value.
func (a jsonAlias) Type() string { return "bool" }

// addStdoutFormat gives a command that writes its JSON summary to a
// file (--json FILE: ycsb, merge) --format as well: --format json is
// --json - (the summary on stdout, the text on stderr). It returns the
// function, to call before the flags are read, that folds it into the
// file flag named jsonFlag, refusing the two given apart.
func addStdoutFormat(cmd *cobra.Command, jsonFlag string) func() error {
	f := formatFlag(cmd, "output format: json is --"+jsonFlag+" - (the JSON summary on stdout, the text on stderr)")
	return func() error {
		if !f.json() {
			return nil
		}
		if fl := cmd.Flags().Lookup(jsonFlag); fl.Changed && fl.Value.String() != "-" {
			return usageError(fmt.Errorf("--format json prints the JSON summary on stdout and --%s %s writes it to that file: give one of them", jsonFlag, fl.Value))
		}
		return cmd.Flags().Set(jsonFlag, "-")
	}
}

// writeJSON prints v as indented JSON, as every --format json does.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// finiteOrNil is v, or nil for NaN and infinities, which JSON lacks: a
// figure that could not be had reads null.
func finiteOrNil(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
