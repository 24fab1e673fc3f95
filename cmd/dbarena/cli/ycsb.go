package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/trial"
	"github.com/dbarena/dbarena/workload"
)

// ycsbFlags are the options of `ycsb load` and `ycsb run`.
type ycsbFlags struct {
	// format folds --format json into --json - (addStdoutFormat).
	format     func() error
	files      []string
	props      []string
	threads    int
	target     float64
	seed       uint64
	status     bool
	preload    bool
	jsonOut    string
	hdrLog     string
	exportFile string
	quiet      bool
	drop       bool
	noCreate   bool
	verify     bool
	stopRate   float64
	// Several loaders sharing one run: see loader.go.
	loader, runID, startAt string
	ls                     loaderSpec
	// stdinStops stops the run, as an interrupt does, when standard
	// input closes: a loader started over ssh or kubectl exec stops when
	// the experiment that started it is gone.
	stdinStops bool
	// metricsAddr serves the live Prometheus endpoint ("": none).
	metricsAddr string
	// text is where the YCSB text goes when --export names no file.
	text io.Writer
	// refs are the properties given as ${env:...} or ${file:...}
	// references, as written: the JSON summary shows these, not the
	// values.
	refs map[string]string
}

func newYCSBCommand(st *State) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ycsb",
		Short: "Run YCSB workloads: load the data, then run the operation mix",
		Long: `Run YCSB workloads with YCSB's command-line shape. Existing workload files
and -p properties work unchanged; YCSB's single-dash long flags (-threads,
-target) are accepted as well as --threads and --target.

Property precedence, lowest first: built-in defaults, -P files in the order
given (later files win), -p properties (always win over files, whatever
their position), then flags such as -threads and -target.`,
	}
	cmd.AddCommand(newYCSBPhaseCommand(st, runner.Load), newYCSBPhaseCommand(st, runner.Transactions),
		newYCSBPhaseCommand(st, runner.Verify))
	return cmd
}

func newYCSBPhaseCommand(st *State, phase runner.Phase) *cobra.Command {
	f := &ycsbFlags{}
	use, short := "run DRIVER", "Run the operation mix against DRIVER"
	switch phase {
	case runner.Load:
		use, short = "load DRIVER", "Create the table if missing, then insert the records [insertstart, insertstart+insertcount) into DRIVER"
	case runner.Verify:
		use, short = "verify DRIVER", "Read back every record a load wrote and check its fields (counts missing and mismatched records)"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Example: `  dbarena ycsb load memory -P workloads/workloada -p recordcount=100000 -threads 4
  dbarena ycsb run memory -P workloads/workloadb --preload -target 5000 -threads 8 -s
  dbarena ycsb run basic -P workloads/workloada -p operationcount=10000000 --json out.json --hdr-log out.hlog`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError(fmt.Errorf("ycsb %s: want exactly one DRIVER argument (one of %s), got %d", phase, strings.Join(drivers.Names(), ", "), len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runYCSB(cmd, st, phase, args[0], f)
		},
		ValidArgsFunction: completeDriver,
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.files, results.FlagWorkloadFile, "P", nil, "YCSB property file; repeatable, later files override earlier ones")
	fl.StringArrayVarP(&f.props, "property", "p", nil, "property as key=value; repeatable, overrides every -P file")
	fl.IntVar(&f.threads, "threads", core.DefaultThreadCount, "number of workers, each with its own driver session (property threadcount)")
	fl.Float64Var(&f.target, "target", 0, "total target rate in operations per second; 0 = as fast as possible (property target)")
	fl.Uint64Var(&f.seed, "seed", 0, "random seed; the same seed and threads draw the same operations (property seed; default: random, printed)")
	fl.BoolVarP(&f.status, "status", "s", false, "print a YCSB status line to stderr every status.interval seconds (default 10)")
	fl.StringVar(&f.jsonOut, results.FlagJSON, "", "write the JSON summary to this file, - for stdout (the text then goes to stderr) (property json.output)")
	fl.StringVar(&f.hdrLog, results.FlagHdrLog, "", "write per-second HdrHistogram interval logs to this file, - for stdout (the text then goes to stderr) (property hdr.log)")
	fl.StringVar(&f.exportFile, results.FlagExport, "", "write the YCSB text summary to this file instead of stdout (property exportfile)")
	fl.BoolVarP(&f.quiet, results.FlagQuiet, "q", false, "no live progress line on a terminal")
	fl.StringVar(&f.loader, results.FlagLoader, "", "I/N: this process is loader I of N sharing one run: it loads or verifies its share of the keys, or runs its share of operationcount and target")
	fl.StringVar(&f.runID, results.FlagRunID, "", "the shared run's id, written into the JSON summary and the HdrHistogram log")
	fl.StringVar(&f.startAt, results.FlagStartAt, "", "wait until this RFC 3339 time before starting, so that every loader starts together")
	fl.BoolVar(&f.stdinStops, results.FlagStopOnStdinClose, false, "stop as an interrupt does (results so far kept) when standard input closes: a loader started over ssh or kubectl exec then stops with the experiment that started it")
	fl.Float64Var(&f.stopRate, core.StopOnErrorRate, runner.DefaultStopOnErrorRate, "stop when more than this fraction of one second's operations fail, keeping what was measured; 0 = never (property stop-on-error-rate)")
	if phase == runner.Load || phase == runner.Transactions {
		fl.BoolVar(&f.drop, "drop", false, "drop the table before loading, to start clean (property drop)")
		fl.BoolVar(&f.noCreate, "no-create", false, "do not create the database/keyspace and table (property schema.create=false)")
		fl.BoolVar(&f.verify, "verify", false, "after the load, read every record back and check its values (property verify; exact with dataintegrity=true)")
	}
	if phase != runner.Load {
		fl.BoolVar(&f.preload, "preload", false, "run the load phase first in the same process (needed for in-process drivers such as memory)")
	}
	f.format = addStdoutFormat(cmd, results.FlagJSON)
	addMetricsAddrFlag(cmd, &f.metricsAddr)
	registerFlagCompletion(cmd, "property", completeProperty)
	registerFlagCompletion(cmd, results.FlagWorkloadFile, completeWorkloadFile)
	return cmd
}

// resolveProperties applies the documented precedence: defaults < -P files
// in order < -p overrides < flags. It is the only place that decides it.
// It resolves ${env:...} and ${file:...} references, keeps them as written
// in f.refs for the outputs, and teaches st.Secrets every credential.
func resolveProperties(cmd *cobra.Command, st *State, f *ycsbFlags) (*properties.Set, error) {
	p, err := loadProperties(st.Stderr, f.files, f.props)
	if err != nil {
		return nil, usageError(err)
	}
	set := func(flag, key, value string) {
		if cmd.Flags().Changed(flag) {
			p.Set(key, value, properties.Source{File: "--" + flag})
		}
	}
	set("threads", core.ThreadCount, strconv.Itoa(f.threads))
	set("target", core.Target, strconv.FormatFloat(f.target, 'f', -1, 64))
	set("seed", core.Seed, strconv.FormatUint(f.seed, 10))
	set(results.FlagJSON, core.JSONOutput, f.jsonOut)
	set(results.FlagHdrLog, core.HdrLog, f.hdrLog)
	set(results.FlagExport, core.ExportFile, f.exportFile)
	set(core.StopOnErrorRate, core.StopOnErrorRate, strconv.FormatFloat(f.stopRate, 'f', -1, 64))
	set("drop", core.Drop, strconv.FormatBool(f.drop))
	set("no-create", core.SchemaCreate, strconv.FormatBool(!f.noCreate))
	set("verify", core.Verify, strconv.FormatBool(f.verify))
	// Credentials may come from the environment or a file, so that they
	// stay out of property files and shell history.
	if f.refs, err = trial.ResolveSecrets(p, st.Secrets); err != nil {
		return nil, usageError(err)
	}
	return p, nil
}

func runYCSB(cmd *cobra.Command, st *State, phase runner.Phase, driverName string, f *ycsbFlags) error {
	if _, err := drivers.Lookup(driverName); err != nil {
		return usageError(err)
	}
	if f.format != nil {
		if err := f.format(); err != nil {
			return err
		}
	}
	props, err := resolveProperties(cmd, st, f)
	if err != nil {
		return err
	}
	if f.ls, err = parseLoader(f, time.Now()); err != nil {
		return usageError(err)
	}
	if err := f.ls.slot.Apply(props, phase); err != nil {
		return usageError(err)
	}
	plan, err := trial.Parse(driverName, props, phase, nil)
	if err != nil {
		return usageError(err)
	}
	plan.FirstWorker = f.ls.slot.FirstWorker(plan.Settings.Run.Threads)
	for _, w := range plan.Warnings {
		st.Logger.Warn(w.String())
	}
	for _, n := range plan.Settings.Notes {
		fmt.Fprintln(st.Stderr, n)
	}
	if f.text, err = ycsbText(st, plan.Settings); err != nil {
		return err
	}
	ctx := cmd.Context()
	if f.stdinStops {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() {
			// Nothing is written to us: the read ends at the close.
			_, _ = io.Copy(io.Discard, st.Stdin)
			cancel()
		}()
	}
	plan.Settings.Run.Abort = st.Abort
	t, err := plan.Open(ctx, st.Logger)
	var bad *driver.ConfigError
	if errors.As(err, &bad) {
		return usageError(err)
	}
	if err != nil {
		return &exitError{code: ExitFailure, err: err}
	}
	defer t.Close()
	if err := t.Ready(ctx, phase == runner.Load || f.preload, st.Logger); err != nil {
		return &exitError{code: ExitFailure, err: err}
	}
	if f.preload {
		if err := preload(ctx, st, t); err != nil {
			return err
		}
	} else if err := requireRecords(t, phase); err != nil {
		return err
	}
	return execute(ctx, st, f, t)
}

// requireRecords refuses a run phase on an in-process store this process
// did not load: it starts empty, and the run would "succeed" with every
// read NOT_FOUND. Verify is let through: counting the missing records is
// what it is for.
func requireRecords(t *trial.Trial, phase runner.Phase) error {
	ip, ok := t.DB.(driver.InProcess)
	if !ok || phase != runner.Transactions || ip.Len(t.WorkloadConfig.Table) > 0 {
		return nil
	}
	return usageError(fmt.Errorf("ycsb run %s: the %s driver keeps no data between processes, and this one holds none: add --preload to load the records in this process first",
		t.Driver.Name, t.Driver.Name))
}

// preload runs the load phase with its own workload state before the run
// phase, printing a one-line summary to stderr.
func preload(ctx context.Context, st *State, t *trial.Trial) error {
	lwl, err := workload.New(t.WorkloadConfig)
	if err != nil {
		return usageError(err)
	}
	cfg := t.Settings.Run
	cfg.Phase = runner.Load
	cfg.Target, cfg.OperationCount, cfg.MaxExecutionTime = 0, 0, 0
	cfg.WarmupTime, cfg.WarmupOperations, cfg.Interval, cfg.StopOnErrorRate = 0, 0, 0, 0
	res, err := runner.Run(ctx, cfg, lwl, t.DB)
	if err != nil {
		return &exitError{code: ExitFailure, err: fmt.Errorf("preload: %w", err)}
	}
	fmt.Fprintf(st.Stderr, "dbarena: preload: %d records in %.2fs (%.0f inserts/s, %d errors)\n",
		res.Measured.Operations, res.Measured.Duration.Seconds(), res.Measured.Throughput, res.Measured.Errors)
	if res.Interrupted {
		return &exitError{code: ExitInterrupted, err: errors.New("interrupted during preload")}
	}
	return nil
}
