package cli

import (
	"encoding/json"
	"fmt"
	"io"

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

// addFormatFlag gives cmd --format, with its values for completion.
func addFormatFlag(cmd *cobra.Command) *formatValue {
	f := formatValue(formatText)
	cmd.Flags().Var(&f, "format", "output format: text or json")
	registerFlagCompletion(cmd, "format", cobra.FixedCompletions([]string{formatText, formatJSON}, cobra.ShellCompDirectiveNoFileComp))
	return &f
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
