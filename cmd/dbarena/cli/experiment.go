package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/providers"
	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/experiment"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/internal/bounds"
	"github.com/dbarena/dbarena/internal/workdir"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/report"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/sysmetrics"
)

// experimentFlags are the options of `run` and `quickstart`.
type experimentFlags struct {
	dryRun bool
	// format is how --dry-run prints the plan.
	format  *formatValue
	keep    bool
	dir     string
	workDir string
	// loaderBinary is the dbarena program run.loaders starts.
	loaderBinary string
	// metricsAddr serves the live Prometheus endpoint ("": none).
	metricsAddr string
}

func (f *experimentFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the plan (every load and trial, in order, with a time estimate) and exit")
	fl.BoolVar(&f.keep, "keep", false, "keep local databases' data and logs at teardown (their directory is logged; 'dbarena clean --kept' removes them)")
	fl.StringVar(&f.dir, "results", "", "results directory to create (default: the file's results: setting / NAME-DATE-TIME)")
	fl.StringVar(&f.workDir, "work-dir", "", "work root: local databases' data and logs go in ROOT/local/PID-NAME-RANDOM (default: $"+workdir.EnvVar+", else $TMPDIR/dbarena; see 'dbarena clean')")
	fl.StringVar(&f.loaderBinary, "loader-binary", "", "the dbarena program run.loaders starts (default: this one)")
	addMetricsAddrFlag(cmd, &f.metricsAddr)
	f.format = addFormatFlag(cmd)
	fl.Lookup("format").Usage = "with --dry-run: print the plan as text or json"
}

// specOptions tells the spec parser which names are valid.
func specOptions() spec.Options {
	return spec.Options{
		Databases: deploy.DatabaseNames(),
		Providers: providers.Names(),
		DriverFor: func(db string) string {
			d, err := deploy.LookupDatabase(db)
			if err != nil {
				return ""
			}
			return d.Driver
		},
		DriverPrefixes: drivers.Prefixes(),
	}
}

func newRunCommand(st *State) *cobra.Command {
	f := &experimentFlags{}
	cmd := &cobra.Command{
		Use:   "run FILE",
		Short: "Run an experiment file: deploy, load, run every trial, report, tear down",
		Long: `Run an experiment file end to end. Each target is deployed in turn (so two
databases never compete for the machine), its tables created, data loaded,
and every workload x matrix point x repetition run while latency and every
host's CPU, memory, disk and network are recorded each second. Results are
written as the run goes; the report is rendered at the end, also after an
error or Ctrl-C, and teardown always happens.

See examples/ for one file per kind of study, and --dry-run to see a plan.`,
		Example: `  dbarena run examples/quickstart.yaml --dry-run
  dbarena run examples/yugabyte-client-sweep.yaml --results results/sweep1`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError(fmt.Errorf("run: want exactly one experiment FILE, got %d arguments", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := bounds.ReadFile(args[0], bounds.MaxFileBytes)
			if err != nil {
				return usageError(fmt.Errorf("experiment file: %w", err))
			}
			s, err := spec.Parse(args[0], text, specOptions())
			if err != nil {
				return usageError(err)
			}
			return runExperiment(cmd.Context(), st, f, s, string(text))
		},
		ValidArgsFunction: completeExperimentFile,
	}
	f.register(cmd)
	return cmd
}

// runExperiment plans s and runs it, or prints the plan.
func runExperiment(ctx context.Context, st *State, f *experimentFlags, s *spec.Spec, text string) error {
	plan, err := spec.NewPlan(s)
	if err != nil {
		return usageError(err)
	}
	// The results directory is dbarena's alone: one holding anything
	// is refused before anything runs, the dry run included.
	if f.dir != "" {
		if err := results.CheckNew(f.dir); err != nil {
			return usageError(fmt.Errorf("--results: %w", err))
		}
	}
	if f.dryRun {
		return dryRun(ctx, st, f, plan)
	}
	if f.format.json() {
		// Said, not ignored: a run's results are files, not stdout.
		return usageError(fmt.Errorf("--format json prints the plan of --dry-run; a run writes its results as files (manifest.json, trials.csv, timeseries.csv): give --dry-run, or read those"))
	}
	// A driver property of the wrong kind is bad input: refused before
	// anything is deployed.
	if err := experiment.CheckDrivers(plan); err != nil {
		return usageError(err)
	}
	bi := ReadBuildInfo()
	exp, stop, err := serveLive(st, f.metricsAddr)
	if err != nil {
		return err
	}
	defer stop()
	out, err := experiment.Run(ctx, plan, experiment.Options{
		Stderr: st.Stderr, Terminal: st.StderrIsTerminal, Logger: st.Logger, Dir: f.dir,
		WorkDir: workdir.Root(f.workDir, st.Getenv), Keep: f.keep, Version: bi.Version, Commit: bi.Commit, SpecText: text,
		LoaderBinary: f.loaderBinary, Secrets: st.Secrets, Abort: st.Abort, Live: exp,
	})
	if out != nil {
		if out.Verdict != "" {
			fmt.Fprintln(st.Stdout, out.Verdict)
		}
		if out.Report != "" {
			fmt.Fprintf(st.Stdout, "report: %s\n", out.Report)
		}
		if out.ReportErr != nil {
			fmt.Fprintf(st.Stdout, "results: %s (%s; the report was not written: %v)\n", out.Dir, out.Status, out.ReportErr)
		} else {
			fmt.Fprintf(st.Stdout, "results: %s (%s)\n", out.Dir, out.Status)
		}
	}
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		fmt.Fprintln(st.Stderr, "dbarena: interrupted; results so far were written and marked interrupted")
		return &exitError{code: ExitInterrupted, err: err}
	}
	return &exitError{code: ExitFailure, err: err}
}

// dryRun prints the plan as the run would take it: its results
// directory, its steps with the reference runs after them, and the
// preflight the run starts with, whose failure fails the dry run too.
func dryRun(ctx context.Context, st *State, f *experimentFlags, plan *spec.Plan) error {
	if f.format.json() {
		if err := writeJSON(st.Stdout, plan.JSON(f.dir)); err != nil {
			return err
		}
	} else {
		if err := plan.Write(st.Stdout); err != nil {
			return err
		}
		if f.dir != "" {
			fmt.Fprintf(st.Stdout, "results: %s (--results)\n", f.dir)
		}
		if plan.Spec.Run.Reference {
			fmt.Fprintln(st.Stdout, "after each read-only run: the database's own load tool on the same reads (pgbench, redis-benchmark), where its driver has one")
		}
	}
	if err := experiment.CheckDrivers(plan); err != nil {
		return usageError(err)
	}
	if err := experiment.Preflight(ctx, plan); err != nil {
		return &exitError{code: ExitFailure, err: fmt.Errorf("preflight (the run would stop here): %w", err)}
	}
	fmt.Fprintln(st.Stderr, "dbarena: preflight passed: every target's provider can deploy it here")
	return nil
}

func newReportCommand(st *State) *cobra.Command {
	return &cobra.Command{
		Use:   "report DIR",
		Short: "Render (again) the HTML report and figures of a results directory",
		Long: `Read a results directory (manifest.json, trials.csv, timeseries.csv,
sysmetrics.csv) and write DIR/report.html and DIR/figures/. It never talks
to a database, so any results directory, also one of an interrupted run,
can be re-rendered. A run killed outright (kill -9) reads as interrupted,
and a trial it cut before writing the trial's row gets a row rebuilt from
the intervals on disk (latency from its hdr/ID.hlog, merged exactly),
flagged "reconstructed".`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError(fmt.Errorf("report: want exactly one results DIR, got %d arguments", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := results.Read(args[0])
			if err != nil {
				return usageError(err)
			}
			for _, w := range d.Warnings {
				st.Logger.Warn(w)
			}
			path, err := report.Write(d)
			if err != nil {
				return &exitError{code: ExitFailure, err: err}
			}
			fmt.Fprintln(st.Stdout, report.Verdict(d))
			fmt.Fprintf(st.Stdout, "report: %s\n", path)
			return nil
		},
	}
}

// quickstartFlags shrink or grow the built-in comparison.
type quickstartFlags struct {
	experimentFlags
	duration string
	warmup   string
	prewarm  string
	records  int
	threads  int
	reps     int
	budget   string
	targets  []string
}

func newQuickstartCommand(st *State) *cobra.Command {
	f := &quickstartFlags{}
	cmd := &cobra.Command{
		Use:   "quickstart",
		Short: "Compare local PostgreSQL and Cassandra on YCSB load + workloads A-F, then report",
		Long: `Deploy PostgreSQL and Apache Cassandra on this machine (free ports, data in
a temporary directory), load the same records into each, run YCSB
workloads A, B, C, F, D and E against each with the same seed, record
every process's CPU, memory, disk and network each second, and write a
report that says which is faster here, by how much, and whether the
comparison was fair. About 14 minutes on 2 cores with the defaults.

The comparison is fair by construction: each database runs on half the
cores this process may use (one on a 2-core machine), pinned, with the
load generator on the others, and is paused while the other is
measured; both acknowledge writes before they are on disk; each
database's threads come from a short calibration; every trial warms up
until steady and is measured again when its window moved or other
processes took its core; and the repetitions run in rounds, in an
order drawn from the seed, until every workload is decided (at least
3, within the budget).

The plan is examples/quickstart.yaml; flags override its sizes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, text, err := quickstartSpec(f)
			if err != nil {
				return usageError(err)
			}
			return runExperiment(cmd.Context(), st, &f.experimentFlags, s, text)
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.duration, "duration", "", "measured time per workload (e.g. 20s; default from the plan)")
	fl.StringVar(&f.warmup, "warmup", "", "warm-up per workload (e.g. 5s; default from the plan: until steady)")
	fl.StringVar(&f.prewarm, "prewarm", "", "longest warm-up of each database before its first trial (0s: none; default from the plan)")
	fl.IntVar(&f.records, "records", 0, "records to load (default from the plan)")
	fl.IntVar(&f.threads, "threads", 0, "client threads per trial (default: calibrated per database)")
	fl.IntVar(&f.reps, "repetitions", 0, "repetitions of each trial (default from the plan: rounds until decided, within --budget)")
	fl.StringVar(&f.budget, "budget", "", "how long the rounds added until decided may take, from the start (default from the plan)")
	fl.StringSliceVar(&f.targets, "targets", nil, "compare only these targets of the plan (e.g. postgres,redis)")
	return cmd
}

// quickstartSpec parses the built-in plan with the flags' overrides laid
// over it, as YAML, so the overrides get the same checks as a file.
func quickstartSpec(f *quickstartFlags) (*spec.Spec, string, error) {
	text, err := spec.Quickstart()
	if err != nil {
		return nil, "", err
	}
	s, err := spec.Parse("quickstart.yaml", text, specOptions())
	if err != nil {
		return nil, "", fmt.Errorf("built-in quickstart plan: %w", err)
	}
	fitToMachine(s, sysmetrics.CPUCount())
	if err := applyQuickstartFlags(s, f); err != nil {
		return nil, "", err
	}
	return s, string(text), nil
}

// fitToMachine gives each target of the plan half the cores this
// process may use, pinned, so that the load generator has the other
// half to itself; with fewer than 2 cores nothing can be kept apart and
// the targets run unpinned (their trials then say the machine was
// shared, if it saturates).
func fitToMachine(s *spec.Spec, cores int) {
	for i := range s.Targets {
		d := &s.Targets[i].Deploy
		if cores < 2 {
			d.CPUs, d.Pin = 0, false
			continue
		}
		d.CPUs, d.Pin = float64(cores/2), true
	}
}

func applyQuickstartFlags(s *spec.Spec, f *quickstartFlags) error {
	var errs []error
	if f.duration != "" {
		d, err := spec.ParseDuration(f.duration)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("--duration %q: want a positive duration such as 20s", f.duration))
		}
		s.Run.Duration, s.Run.Operations = d, 0
	}
	if f.warmup != "" {
		d, err := spec.ParseDuration(f.warmup)
		if err != nil || d < 0 {
			errs = append(errs, fmt.Errorf("--warmup %q: want a duration such as 5s", f.warmup))
		}
		s.Run.Warmup, s.Run.WarmupSteady = d, false
	}
	if f.prewarm != "" {
		d, err := spec.ParseDuration(f.prewarm)
		if err != nil || d < 0 {
			errs = append(errs, fmt.Errorf("--prewarm %q: want a duration such as 60s, or 0s for none", f.prewarm))
		}
		s.Run.Prewarm = d
	}
	if f.records < 0 || f.threads < 0 || f.reps < 0 {
		errs = append(errs, errors.New("--records, --threads and --repetitions: want positive numbers"))
	}
	if f.reps > 0 {
		s.Run.Repetitions, s.Run.RepetitionsAuto, s.Run.Budget = f.reps, false, 0
	}
	if f.budget != "" {
		d, err := spec.ParseDuration(f.budget)
		switch {
		case err != nil || d <= 0:
			errs = append(errs, fmt.Errorf("--budget %q: want a positive duration such as 15m", f.budget))
		case f.reps > 0:
			errs = append(errs, errors.New("--budget bounds the rounds added until decided; --repetitions fixes them: give one"))
		default:
			s.Run.Budget = d
		}
	}
	if f.records > 0 {
		s.SetProperty(core.RecordCount, fmt.Sprint(f.records), "--records")
	}
	if f.threads > 0 {
		s.Run.Threads, s.Run.ThreadsAuto = f.threads, false
	}
	if len(f.targets) > 0 {
		var keep []spec.Target
		var names []string
		for _, t := range s.Targets {
			names = append(names, t.Name)
			for _, want := range f.targets {
				if t.Name == want {
					keep = append(keep, t)
				}
			}
		}
		if len(keep) != len(f.targets) {
			errs = append(errs, fmt.Errorf("--targets %s: the quickstart's targets are %s", strings.Join(f.targets, ","), strings.Join(names, ", ")))
		}
		s.Targets = keep
	}
	return errors.Join(errs...)
}

func newSchemaCommand(st *State) *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of experiment files, for editors",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := st.Stdout.Write(spec.JSONSchema())
			return err
		},
	}
}
