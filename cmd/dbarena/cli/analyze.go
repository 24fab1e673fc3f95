package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/analysis/littles"
	"github.com/dbarena/dbarena/analysis/usl"
)

func newAnalyzeCommand(st *State) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "analyze",
		Short: "Analyses that work on numbers from anywhere: Little's law, the Universal Scalability Law, cost",
	}
	cmd.AddCommand(newLittlesLawCommand(st), newUSLCommand(st), newCostCommand(st))
	return cmd
}

func newLittlesLawCommand(st *State) *cobra.Command {
	var (
		throughput float64
		latency    time.Duration
		threads    int
		perLoader  int
		headroom   float64
		format     *formatValue
	)
	cmd := &cobra.Command{
		Use:   "littles-law",
		Short: "How many threads (and loader machines) a throughput needs at a latency",
		Long: `Little's law: operations in flight = throughput x mean latency. A closed-loop
worker has one operation in flight, so a target of 100,000 ops/s at 2 ms
needs at least 200 workers; with fewer, the benchmark measures the client.`,
		Example: `  dbarena analyze littles-law --throughput 100000 --latency 2ms
  dbarena analyze littles-law --throughput 50000 --latency 1.2ms --threads 32 --threads-per-loader 256`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("throughput") || !cmd.Flags().Changed("latency") {
				return usageError(fmt.Errorf("analyze littles-law: --throughput and --latency are required"))
			}
			p, err := littles.Size(throughput, latency, headroom, threads, perLoader)
			if err != nil {
				return usageError(fmt.Errorf("analyze littles-law: %w", err))
			}
			if format.json() {
				return writeJSON(st.Stdout, littlesJSON{Throughput: p.Throughput, Latency: p.Latency.Seconds(), Concurrency: p.Concurrency,
					Headroom: p.Headroom, Threads: p.Threads, ThreadsPerLoader: p.ThreadsPerLoader, Loaders: p.Loaders,
					Given: p.Given, Reachable: p.Reachable})
			}
			fmt.Fprint(st.Stdout, p)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.Float64Var(&throughput, "throughput", 0, "target throughput in operations per second")
	fl.DurationVar(&latency, "latency", 0, "mean latency per operation (e.g. 2ms, 800us)")
	fl.IntVar(&threads, "threads", 0, "threads you have: says whether they can reach the throughput")
	fl.IntVar(&perLoader, "threads-per-loader", 0, "threads one load machine runs well: says how many loaders")
	fl.Float64Var(&headroom, "headroom", 1.5, "factor over the minimum, since latency under load varies")
	format = addFormatFlag(cmd)
	return cmd
}

// littlesJSON is what analyze littles-law --format json prints
// (littles.Plan, with the latency in seconds).
type littlesJSON struct {
	Throughput       float64 `json:"throughput_ops_sec"`
	Latency          float64 `json:"latency_seconds"`
	Concurrency      float64 `json:"concurrency"`
	Headroom         float64 `json:"headroom"`
	Threads          int     `json:"threads"`
	ThreadsPerLoader int     `json:"threads_per_loader,omitempty"`
	Loaders          int     `json:"loaders,omitempty"`
	Given            int     `json:"given_threads,omitempty"`
	Reachable        float64 `json:"reachable_ops_sec,omitempty"`
}

// uslJSON is what analyze usl --format json prints (usl.Fit); a figure
// the fit could not give (NaN: a parameter at its bound, no peak) is
// null.
type uslJSON struct {
	Model     string   `json:"model"`
	Points    int      `json:"points"`
	Lambda    *float64 `json:"lambda"`
	Sigma     *float64 `json:"sigma"`
	Kappa     *float64 `json:"kappa"`
	LambdaErr *float64 `json:"lambda_stderr"`
	SigmaErr  *float64 `json:"sigma_stderr"`
	KappaErr  *float64 `json:"kappa_stderr"`
	R2        *float64 `json:"r2"`
	RSE       *float64 `json:"rse"`
	DF        int      `json:"df"`
	Peak      *float64 `json:"peak_n"`
	PeakX     *float64 `json:"peak_throughput"`
	Notes     []string `json:"notes"`
}

func uslJSONOf(f *usl.Fit) uslJSON {
	return uslJSON{Model: f.Model, Points: f.N, Lambda: finiteOrNil(f.Lambda), Sigma: finiteOrNil(f.Sigma), Kappa: finiteOrNil(f.Kappa),
		LambdaErr: finiteOrNil(f.LambdaErr), SigmaErr: finiteOrNil(f.SigmaErr), KappaErr: finiteOrNil(f.KappaErr),
		R2: finiteOrNil(f.R2), RSE: finiteOrNil(f.RSE), DF: f.DF, Peak: finiteOrNil(f.Peak), PeakX: finiteOrNil(f.PeakX),
		Notes: append([]string{}, f.Notes...)}
}

func newUSLCommand(st *State) *cobra.Command {
	var format *formatValue
	cmd := &cobra.Command{
		Use:   "usl FILE.csv",
		Short: "Fit the Universal Scalability Law to (concurrency, throughput) points",
		Long: `Fit X(N) = λN / (1 + σ(N-1) + κN(N-1)) to a CSV of points with a header:
N from a column named n, clients, threads, nodes, load, concurrency or users
(else the first column), throughput from x, throughput, tput, ops, ops_sec,
ops_per_sec or throughput_ops_sec (else the second). Repeated N are
repetitions. σ and κ are kept >= 0; when the unconstrained fit would go
negative, a note says so and why. "-" reads standard input. At most 64
MiB are read.`,
		Example: `  dbarena analyze usl sweep.csv`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError(fmt.Errorf("analyze usl: want exactly one CSV FILE, got %d arguments", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var r io.Reader = st.Stdin
			if r == nil {
				r = strings.NewReader("")
			}
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return usageError(fmt.Errorf("analyze usl: %w", err))
				}
				defer f.Close()
				r = f
			}
			name := args[0]
			if name == "-" {
				name = "standard input"
			}
			pts, err := usl.ReadCSV(r, name)
			if err != nil {
				return usageError(fmt.Errorf("analyze usl: %w", err))
			}
			fit, err := usl.FitPoints(pts)
			if err != nil {
				return usageError(fmt.Errorf("analyze usl: %s: %w", name, err))
			}
			if format.json() {
				return writeJSON(st.Stdout, uslJSONOf(fit))
			}
			fmt.Fprint(st.Stdout, fit)
			return nil
		},
	}
	format = addFormatFlag(cmd)
	return cmd
}
