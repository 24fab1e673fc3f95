package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/internal/workdir"
)

// cleanFlags are the options of `clean`.
type cleanFlags struct {
	workDir string
	dryRun  bool
	kept    bool
}

func newCleanCommand(st *State) *cobra.Command {
	f := &cleanFlags{}
	cmd := &cobra.Command{
		Use:   "clean",
		Short: "Remove what killed runs left in the work directory (data, logs, servers)",
		Long: `Remove what dbarena runs that died without tearing down (kill -9, a lost
machine) left on this machine.

Every run keeps its local files under one work root:

  ROOT/local/PID-NAME-RANDOM       a local deployment's data, sockets, logs
  ROOT/loaders/PID-trial-RANDOM    a trial's loader files
  ROOT/reference/PID-trial-RANDOM  a reference tool's scripts

ROOT is --work-dir, else $` + workdir.EnvVar + `, else $TMPDIR/dbarena (/tmp/dbarena).
Each directory holds an owner file (` + workdir.OwnerFile + `) naming the dbarena
process that made it (PID and start time, so that a PID reused by another
process does not pass for it) and the servers it started.

clean removes the directories whose owner is gone, after killing any of
their servers still running (they normally die with dbarena through the
parent-death signal). It never touches a directory whose owner runs, nor
one without an owner file, nor (without --kept) one kept with --keep.
Every local deployment does the same before it starts, so clean is only
needed to reclaim the space at once.`,
		Example: `  dbarena clean --dry-run
  dbarena clean --work-dir /data/dbarena --kept`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			root := workdir.Root(f.workDir, st.Getenv)
			entries, err := workdir.Clean(root, workdir.CleanOptions{DryRun: f.dryRun, Kept: f.kept})
			writeCleanReport(st.Stdout, root, entries, f.dryRun)
			if err != nil {
				return &exitError{code: ExitFailure, err: fmt.Errorf("clean %s: %w", root, err)}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.workDir, "work-dir", "", "work root to clean (default: $"+workdir.EnvVar+", else $TMPDIR/dbarena)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "list what would be removed and killed, with sizes, and change nothing")
	fl.BoolVar(&f.kept, "kept", false, "also remove directories a dead run kept with --keep")
	return cmd
}

// writeCleanReport prints one line per directory and a total.
func writeCleanReport(w io.Writer, root string, entries []workdir.Entry, dryRun bool) {
	if len(entries) == 0 {
		fmt.Fprintf(w, "%s: nothing to clean\n", root)
		return
	}
	removed, verb := "removed", "killed"
	if dryRun {
		removed, verb = "would remove", "would kill"
	}
	var n int
	var total int64
	for _, e := range entries {
		action := "left"
		if e.Removed {
			action = removed
			n++
			total += e.Bytes
		}
		why := string(e.State)
		if e.Owner != nil {
			why += ", " + e.Owner.Process.String()
		}
		var extra []string
		for _, s := range e.Killed {
			extra = append(extra, fmt.Sprintf("%s server %s (%s)", verb, s.Name, s.Process))
		}
		if e.Err != nil {
			extra = append(extra, "error: "+e.Err.Error())
		}
		line := fmt.Sprintf("%-12s %s  %s  (%s)", action, e.Path, humanBytes(e.Bytes), why)
		if len(extra) > 0 {
			line += "; " + strings.Join(extra, "; ")
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "%s %d %s, %s\n", removed, n, plural(n, "directory", "directories"), humanBytes(total))
}

// humanBytes writes a size in binary units, with the exact byte count.
func humanBytes(n int64) string {
	v, i := float64(n), 0
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s (%d bytes)", v, units[i], n)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
