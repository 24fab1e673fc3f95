package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/driver/drivers"
)

func newDriversCommand(st *State) *cobra.Command {
	var format *formatValue
	cmd := &cobra.Command{
		Use:   "drivers",
		Short: "List the database drivers",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if format.json() {
				return writeJSON(st.Stdout, drivers.Describe())
			}
			tw := tabwriter.NewWriter(st.Stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "DRIVER\tPROPERTIES\tDESCRIPTION")
			for _, d := range drivers.All() {
				fmt.Fprintf(tw, "%s\t%s.*\t%s\n", d.Name, d.Prefix, d.Summary)
			}
			return tw.Flush()
		},
	}
	format = addFormatFlag(cmd)
	return cmd
}
