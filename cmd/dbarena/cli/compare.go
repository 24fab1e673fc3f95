package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/analysis/compare"
	"github.com/dbarena/dbarena/results"
)

func newCompareCommand(st *State) *cobra.Command {
	var (
		level        float64
		failOnSlower bool
	)
	var format *formatValue
	cmd := &cobra.Command{
		Use:   "compare DIR_A DIR_B",
		Short: "Compare two results directories: the change in throughput and latency, with confidence intervals",
		Long: `Match the trials of two results directories by target, workload and matrix
point and say, for throughput and the p50, p99, p99.9 and mean latency,
whether B differs from A by more than the repetitions' own noise: the
relative change (B - A) / A with a Welch confidence interval, and a verdict
(faster, slower, no significant difference). A single repetition gives no
interval, and the verdict says so: run with repetitions >= 3 to decide.
Interrupted or failed trials are left out with a note; settings that make
the runs incomparable (threads, rate, records, database versions) are
listed as warnings. It never talks to a database.`,
		Example: `  dbarena compare dbarena-results/pg16-20261122-101500 dbarena-results/pg17-20261122-113000
  dbarena compare --fail-on-slower baseline/ candidate/   # exit 3 on a regression, for CI
  dbarena compare --format json baseline/ candidate/ > comparison.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageError(fmt.Errorf("compare: want two results directories DIR_A DIR_B, got %d arguments", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !(level > 0 && level < 1) {
				return usageError(fmt.Errorf("compare: --level %v: want a confidence level between 0 and 1, such as 0.95", level))
			}
			var data [2]*results.Data
			for i, dir := range args {
				d, err := results.Read(dir)
				if err != nil {
					return usageError(fmt.Errorf("compare: %w", err))
				}
				for _, w := range d.Warnings {
					st.Logger.Warn(w, "dir", dir)
				}
				data[i] = d
			}
			r, err := compare.Compare(data[0], data[1], level)
			if err != nil {
				return usageError(err)
			}
			write := r.Write
			if format.json() {
				write = func(w io.Writer) error { return writeJSON(w, r.JSON()) }
			}
			if err := write(st.Stdout); err != nil {
				return &exitError{code: ExitFailure, err: err}
			}
			if failOnSlower {
				if n := r.Slower(); n > 0 {
					return &exitError{code: ExitSlower, err: fmt.Errorf("compare: %d figures are slower in B than in A beyond the noise of the repetitions", n)}
				}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.Float64Var(&level, "level", compare.DefaultLevel, "confidence level of the intervals")
	fl.BoolVar(&failOnSlower, "fail-on-slower", false, "exit with code 3 when any figure is significantly slower in B")
	format = addFormatFlag(cmd)
	return cmd
}
