package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/dbarena/dbarena/internal/redact"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/trial"
)

func newSummary(t *trial.Trial, shown map[string]string, res *runner.Result) results.Summary {
	s := results.Summary{
		Tool: "dbarena", Build: ReadBuildInfo(), Phase: res.Phase.String(), Driver: t.Driver.Name,
		Threads: res.Config.Threads, Target: res.Config.Target, Seed: res.Config.Seed,
		Start: res.Start, End: res.End, Interrupted: res.Interrupted, StopReason: res.StopReason,
		Properties: shown, Warmup: res.Warmup, Measured: res.Measured,
	}
	if res.Config.Target > 0 {
		s.LateUs = float64(res.Config.LateThreshold) / 1e3
	}
	if u, err := readLoaderUsage(); err == nil {
		s.Loader = &u
	}
	return s
}

// execute runs the phase (and the read-back of load --verify) and
// writes every output. Outputs are written even when the run was
// interrupted: nothing measured is lost.
func execute(ctx context.Context, st *State, f *ycsbFlags, t *trial.Trial) error {
	rs := t.Settings
	var observers []runner.Observer
	if f.status {
		observers = append(observers, newStatusLine(st.Stderr, rs.StatusInterval))
	}
	var prog *progress
	if st.StderrIsTerminal && !f.quiet && !f.status {
		prog = newProgress(st.Stderr)
		observers = append(observers, prog)
	}
	if err := f.ls.wait(ctx); err != nil {
		return &exitError{code: ExitInterrupted, err: fmt.Errorf("waiting for --start-at: %w", err)}
	}
	var hl *runner.HlogObserver
	if rs.HdrLog != "" {
		var err error
		if hl, err = createHlog(st, rs.HdrLog, "dbarena "+Version+"; values in nanoseconds"+f.ls.comment()); err != nil {
			return usageError(err)
		}
		observers = append(observers, hl)
	}
	liveObs, stopLive, err := watchLive(ctx, st, f, t)
	if err != nil {
		return err
	}
	defer stopLive()
	if liveObs != nil {
		observers = append(observers, liveObs)
	}
	if !rs.SeedGiven {
		st.Logger.Info("random seed chosen; pass -seed to reproduce", "seed", rs.Run.Seed)
	}
	t.Settings.Shared = !f.ls.slot.Alone()
	span := startUsage()
	out, runErr := t.Run(ctx, observers...)
	usage := span()
	if prog != nil {
		prog.Finish()
	}
	var errs []error
	if hl != nil {
		errs = append(errs, hl.Close())
	}
	if runErr != nil {
		return &exitError{code: ExitFailure, err: errors.Join(append(errs, runErr)...)}
	}
	res, rep, audit := out.Result, out.Verify, out.Audit
	errs = append(errs, out.VerifyErr, out.AuditErr)
	if rep != nil {
		fmt.Fprintln(st.Stderr, rep)
	}
	if audit != nil {
		fmt.Fprintln(st.Stderr, "dbarena:", audit)
	}
	if f := out.TPCCFigures(t.Settings.Run.Threads); f != nil {
		fmt.Fprintln(st.Stderr, "dbarena:", f)
	}
	errs = append(errs, writeOutputs(st, f.text, t, f.refs, out, f.ls, usage))
	return exitOf(st, res, rep, audit, errors.Join(errs...))
}

// exitOf is how a trial whose results were written ends: interrupted
// (130) whatever else went wrong, failed with what failed, or done.
func exitOf(st *State, res *runner.Result, rep *results.VerifyReport, audit results.Audit, err error) error {
	if res.Interrupted {
		// Interrupted, during the run or the checks after it (which
		// then say they did not end): 130, whatever else went wrong.
		if err != nil {
			fmt.Fprintln(st.Stderr, "dbarena:", err)
		}
		fmt.Fprintln(st.Stderr, "dbarena: interrupted; results so far were written and marked interrupted")
		return &exitError{code: ExitInterrupted, err: errors.New("interrupted")}
	}
	if err != nil {
		return &exitError{code: ExitFailure, err: err}
	}
	if late, pacing, service := res.PacingLate(); late {
		st.Logger.Warn("pacing: dbarena itself started operations late; response times hold its delay, not only the database's (use fewer threads, a quieter or bigger load machine)",
			"pacing_p99_us", pacing.P99, "service_p99_us", service.P99)
	}
	switch {
	case res.Failure() != "":
		return &exitError{code: ExitFailure, err: fmt.Errorf("failed: %s; results were written (-p max-error-rate=1 accepts any error rate)", res.Failure())}
	case rep != nil && rep.Failed():
		return &exitError{code: ExitFailure, err: fmt.Errorf("verify failed: %d missing, %d mismatched, %d errors of %d records", rep.Missing, rep.Mismatched, rep.Errors, rep.Records)}
	case audit != nil && audit.Failed():
		return &exitError{code: ExitFailure, err: errors.New("the workload's invariants are broken: the audit above says how")}
	}
	return nil
}

// shownProps are the properties as the JSON summary shows them: references
// as written, secret-named values and connection-string passwords masked,
// and any other value that holds a known secret redacted.
func shownProps(st *State, props *properties.Set, refs map[string]string) map[string]string {
	m := props.Map()
	for k, ref := range refs {
		m[k] = ref
	}
	m = redact.Props(m)
	for k, v := range m {
		m[k] = st.Secrets.String(v)
	}
	return m
}

// writeOutputs writes the YCSB text (to text when no --export file is
// given) and the JSON summary.
func writeOutputs(st *State, text io.Writer, t *trial.Trial, refs map[string]string, out *trial.Outcome, ls loaderSpec, usage runUsage) error {
	res, counters := out.Result, out.Counters
	rs := t.Settings
	w, closeText, err := openOutput(st, rs.ExportFile, text)
	if err != nil {
		return err
	}
	textErr := measure.WriteYCSBText(w, res.Measured, res.Interrupted)
	for _, c := range counters {
		// A TPC-C or ledger trial's settings and counts are the
		// workload's, not counts the driver kept: sections of their own.
		if _, err := fmt.Fprintf(w, "[%s], %s, %s\n", results.CounterSection(c.Name), c.Name, strconv.FormatFloat(c.Value, 'f', -1, 64)); err != nil {
			textErr = errors.Join(textErr, err)
			break
		}
	}
	textErr = errors.Join(textErr, closeText())
	if rs.JSONOut == "" {
		return textErr
	}
	sum := newSummary(t, shownProps(st, t.Props, refs), res)
	sum.Verify, sum.DriverCounters = out.Verify, counters
	sum.TPCCFigures = out.TPCCFigures(rs.Run.Threads)
	switch a := out.Audit.(type) {
	case *results.LedgerReport:
		sum.Ledger = a
	case *results.ConsistencyReport:
		sum.TPCC = a
	}
	if sum.Loader != nil {
		sum.Loader.RunCPU, sum.Loader.RunWall = usage.cpu, usage.wall
	}
	if !ls.slot.Alone() || ls.runID != "" {
		sum.RunID, sum.Host = ls.runID, hostname()
		if !ls.slot.Alone() {
			sum.LoaderIndex = ls.slot.String()
		}
	}
	if rs.JSONOut == stdoutPath {
		return errors.Join(textErr, results.EncodeSummary(st.Stdout, sum))
	}
	return errors.Join(textErr, results.WriteSummary(rs.JSONOut, sum))
}
