package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/results"
)

// Version is the release version; builds from a checkout say "dev".
const Version = "0.1.0-dev"

// stampedCommit and stampedModified name the commit where the Go
// toolchain records none (go run, -buildvcs=false, the Docker build,
// which has no .git): scripts/stamp prints the -ldflags that set them.
// The linker writes them; nothing changes them at run time.
var stampedCommit, stampedModified string

// ReadBuildInfo returns the version and the commit the binary was built
// from: the toolchain's VCS record, else the linker's stamp.
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
	if b.Commit == "" && stampedCommit != "" {
		b.Commit, b.Modified = stampedCommit, stampedModified == "true"
	}
	return b
}

// versionText is what `dbarena version` and `dbarena --version` print.
func versionText() string {
	b := ReadBuildInfo()
	commit := b.Commit
	if commit == "" {
		commit = "unknown"
	}
	if b.Modified {
		commit += " (modified)"
	}
	return fmt.Sprintf("dbarena %s\ncommit %s\n%s\n", b.Version, commit, b.GoVersion)
}

func newVersionCommand(st *State) *cobra.Command {
	var format *formatValue
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and Go version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if format.json() {
				return writeJSON(st.Stdout, ReadBuildInfo())
			}
			_, err := fmt.Fprint(st.Stdout, versionText())
			return err
		},
	}
	format = addFormatFlag(cmd)
	return cmd
}

// addVersionFlag gives root --version, printing what `dbarena version`
// prints: the flag most programs have, and the first thing tried. It
// has no -v shorthand, which cobra would add, to keep -v free.
func addVersionFlag(root *cobra.Command) {
	root.Version = Version
	root.Flags().Bool("version", false, "print the version, commit and Go version (as 'dbarena version')")
	// The template is text/template; the version text holds no "{{".
	root.SetVersionTemplate(versionText())
}
