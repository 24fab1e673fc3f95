package cli

import (
	"fmt"
	"github.com/dbarena/dbarena/results"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is the release version; builds from a checkout say "dev".
const Version = "0.1.0-dev"

// ReadBuildInfo returns the version and the VCS commit the binary was built
// from, when the build recorded it.
func ReadBuildInfo() results.BuildInfo {
	b := results.BuildInfo{Version: Version, GoVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	return b
}

func newVersionCommand(st *State) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and Go version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			b := ReadBuildInfo()
			commit := b.Commit
			if commit == "" {
				commit = "unknown"
			}
			if b.Modified {
				commit += " (modified)"
			}
			_, err := fmt.Fprintf(st.Stdout, "dbarena %s\ncommit %s\n%s\n", b.Version, commit, b.GoVersion)
			return err
		},
	}
}
