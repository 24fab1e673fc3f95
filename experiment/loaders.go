package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/internal/workdir"
	"github.com/dbarena/dbarena/loader"
	"github.com/dbarena/dbarena/loader/fleet"
	"github.com/dbarena/dbarena/measure/hlog"
	"github.com/dbarena/dbarena/merge"
	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/trial"
)

// loaderStartDelay is how far ahead the common start is set: every
// loader must have started and connected by then.
const loaderStartDelay = 3 * time.Second

// loaderClockSlack is the clock-offset uncertainty above which the
// one-second merge windows may mix a loader's neighbouring seconds.
const loaderClockSlack = 10 * time.Millisecond

// loaderPlan says where a step's load generators run.
type loaderPlan struct {
	// n is the number of loader processes.
	n int
	// prefixes are the loaders' command prefixes (none, or one per
	// loader; an empty one runs on this machine).
	prefixes [][]string
	// props are the deployment's driver properties as the loaders reach
	// the database.
	props map[string]string
}

// loaders is the target's loader plan: run.loader_commands when given,
// else the deployment's own load machines (run.loaders processes spread
// over them, one each by default), else run.loaders processes here.
func (tr *targetRun) loaders() loaderPlan {
	r := tr.s.plan.Spec.Run
	lp := loaderPlan{n: max(r.Loaders, 1), prefixes: r.LoaderCommands, props: tr.dep.Properties()}
	if len(r.LoaderCommands) > 0 {
		return lp
	}
	lm, ok := tr.dep.(deploy.LoadMachines)
	if !ok {
		return lp
	}
	cmds := lm.LoaderCommands()
	if len(cmds) == 0 {
		return lp
	}
	if r.Loaders == 0 {
		lp.n = len(cmds)
	}
	lp.prefixes = make([][]string, lp.n)
	for i := range lp.n {
		lp.prefixes[i] = cmds[i%len(cmds)]
	}
	lp.props = lm.LoaderProperties()
	return lp
}

// remote says whether some loader runs elsewhere.
func (lp loaderPlan) remote() bool {
	for _, p := range lp.prefixes {
		if len(p) > 0 {
			return true
		}
	}
	return false
}

// runs says whether a step of this kind goes to the loaders: a run when
// there are several or one runs elsewhere, a load only when one runs
// elsewhere (a load from this machine is as fast in one process).
func (lp loaderPlan) runs(kind spec.StepKind) bool {
	if kind == spec.Load {
		return lp.remote()
	}
	return lp.n > 1 || lp.remote()
}

// loaderOutcome is what a step run by loaders leaves besides its result:
// the merge, the loaders' machines' CPU and their common start.
type loaderOutcome struct {
	merged   *merge.Result
	result   *runner.Result
	machines []machineCPU
	startAt  time.Time
}

// runLoaders runs a step as lp.n processes of `dbarena ycsb run` (or
// load), each with the step's threads and its share of the operations
// and rate (or keys), starting together, and merges their logs into one
// runner.Result the trial row is made from. The merged series goes to
// timeseries.csv and the merged log to hdr/ID.hlog.
func (tr *targetRun) runLoaders(ctx context.Context, st *spec.Step, lp loaderPlan, set trial.Settings, prog *progress) (*runner.Result, *loaderOutcome, error) {
	s := tr.s
	cfg := set.Run
	props, verb, err := tr.loaderProps(st, lp, set)
	if err != nil {
		return nil, nil, fmt.Errorf("loaders: %w", err)
	}
	bin, err := s.loaderBinary()
	if err != nil {
		return nil, nil, err
	}
	wd, err := workdir.Claim(s.workRoot(), workdir.Loaders, "trial", false)
	if err != nil {
		return nil, nil, fmt.Errorf("loaders: %w", err)
	}
	defer wd.Remove()
	dir := wd.Path
	// The properties hold resolved secrets: a file only its owner reads,
	// rather than command lines anyone can list.
	propsFile := filepath.Join(dir, "trial.properties")
	if err := writePrivate(propsFile, props); err != nil {
		return nil, nil, fmt.Errorf("loaders: %w", err)
	}
	remotes, err := stageRemotes(ctx, lp, bin, propsFile)
	defer func() {
		for _, r := range remotes {
			if r != nil {
				r.Clean()
			}
		}
	}()
	if err != nil {
		return nil, nil, err
	}
	offsets, err := tr.loaderOffsets(ctx, st, remotes)
	if err != nil {
		return nil, nil, err
	}
	// The loaders' interval logs stream into the results directory, with
	// their clocks' offsets: a run killed before it merges them leaves
	// them for the report to merge. They go once the merge is written.
	logDir, err := tr.loaderLogDir(st.ID, offsets)
	if err != nil {
		return nil, nil, fmt.Errorf("loaders: %w", err)
	}
	startAt := time.Now().Add(loaderStartDelay)
	runs := make([]loader.Run, lp.n)
	for i := range runs {
		pfile, out := propsFile, dir
		if r := remotes[i]; r != nil {
			pfile, out = r.Path("trial.properties"), r.Dir
		}
		// The interval log streams back on the loader's standard
		// output as it is written: whatever happens to the loader, what
		// it measured until then is here.
		runs[i] = loader.Run{Verb: verb, Driver: tr.t.Driver, Properties: pfile, Slot: loader.Slot{Index: i, Count: lp.n}, RunID: st.ID,
			StartAt: startAt, HdrLog: results.StdoutPath, JSON: filepath.Join(out, fleet.File(i, "json"))}
	}
	o := fleet.Options{Binary: bin, Remotes: remotes, Runs: runs, LogDir: logDir, StartAt: startAt, Abort: tr.s.opts.Abort, Log: tr.s.log}
	if prog != nil {
		o.Live = prog.loaders
	}
	ends, err := fleet.Run(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	// The summaries come back also after an interrupt: they hold what
	// was measured. A lost loader may have left none.
	fetchLoaderSummaries(ctx, remotes, dir, ends)
	return tr.mergeLoaders(st.ID, lp, cfg, loaderFiles{dir: dir, logDir: logDir, offsets: offsets}, ends, startAt)
}

// loaderBinary is the dbarena binary the loaders run: --loader-binary,
// or this one.
func (s *runState) loaderBinary() (string, error) {
	if s.opts.LoaderBinary != "" {
		return s.opts.LoaderBinary, nil
	}
	bin, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("loaders: find the dbarena binary: %w", err)
	}
	return bin, nil
}

// loaderFiles is where a trial's loaders left their files: their
// summaries in dir, their interval logs in logDir with their clocks'
// offsets.
type loaderFiles struct {
	dir, logDir string
	offsets     []merge.Offset
}

// mergeLoaders merges what trial id's loaders measured into its result:
// the error is a loaderLoss when a loader was lost (the result then
// holds what the others measured).
func (tr *targetRun) mergeLoaders(id string, lp loaderPlan, cfg runner.Config, f loaderFiles, ends []fleet.End, startAt time.Time) (*runner.Result, *loaderOutcome, error) {
	inputs, sums, err := readLoaderFiles(f.dir, f.logDir, f.offsets, ends)
	if err != nil {
		return nil, nil, err
	}
	m, err := merge.Merge(inputs, merge.Options{})
	if err != nil {
		return nil, nil, err
	}
	for _, fl := range m.Flags {
		tr.s.log.Warn("loaders", "step", id, "warning", fl)
	}
	loader.FillLost(m, sums)
	res := loader.Result(m, loader.Summaries(sums), cfg)
	out := &loaderOutcome{merged: m, result: res, machines: loaderMachines(lp, loader.Summaries(sums)), startAt: startAt}
	if loss := lossOf(ends, m, inputs, startAt, cfg); loss != nil {
		return res, out, loss
	}
	return res, out, nil
}

// loaderLogDir makes the directory trial id's loaders' interval logs
// stream into, in the results directory, with their clocks' offsets
// beside them.
func (tr *targetRun) loaderLogDir(id string, offsets []merge.Offset) (string, error) {
	dir := tr.s.w.LoaderLogDir(id)
	// A repetition run again after a failure starts anew.
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	ds := make([]time.Duration, len(offsets))
	for i, o := range offsets {
		ds[i] = o.Offset
	}
	return dir, results.WriteLoaderOffsets(filepath.Join(dir, results.LoaderOffsetsFile), ds)
}

// loaderProps are the properties every loader of a step runs with, and
// the ycsb verb ("run" or "load") it runs: the step's, with the trial's
// settled settings written over them by the code that parses them back
// (trial.Settings.Write), so that a loader runs the threads, rate,
// schedule, seed and error policy this process settled, whatever the
// property files said.
func (tr *targetRun) loaderProps(st *spec.Step, lp loaderPlan, set trial.Settings) (*properties.Set, string, error) {
	props, err := tr.stepPropsOn(st, lp.props)
	if err != nil {
		return nil, "", err
	}
	// The experiment judges the merged trial by its error policy; each
	// loader only stops, as the policy says, when a second of its own is
	// mostly failures.
	set.Run.MaxErrorRate = 1
	verb := "run"
	if st.Kind == spec.Load {
		// The table exists: this process made it before the loaders
		// start, and none of them may drop it under the others.
		verb, set.CreateSchema, set.Drop = "load", false, false
	}
	set.Write(props, properties.Source{File: "dbarena (" + st.ID + ", settled)"})
	return props, verb, nil
}

// writePrivate writes props to a new file only its owner reads.
func writePrivate(path string, props *properties.Set) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	werr := props.Write(f)
	return errors.Join(werr, f.Close())
}

// stageRemotes gives each loader behind a command prefix (ssh host, ip
// netns exec ns) a directory of its own with the binary and the
// properties: it may not share this file system, and nothing but sh
// and cat is needed on the other side. The slice has a nil for each
// loader that runs here; it holds the loaders staged so far also with
// an error, for the caller to clean.
func stageRemotes(ctx context.Context, lp loaderPlan, bin, propsFile string) ([]*loader.Remote, error) {
	remotes := make([]*loader.Remote, lp.n)
	for i, prefix := range lp.prefixes {
		if i >= lp.n || len(prefix) == 0 {
			continue
		}
		r := &loader.Remote{Prefix: prefix, Dir: fmt.Sprintf("/tmp/dbarena-loader-%d-%d", os.Getpid(), i)}
		if err := r.Stage(ctx, bin, propsFile); err != nil {
			return remotes, fmt.Errorf("loader %d of %d: %w", i, lp.n, err)
		}
		remotes[i] = r
	}
	return remotes, nil
}

// loaderOffsets measures each remote loader host's clock offset through
// its command prefix before the run: the merge puts the loaders'
// intervals on this host's clock. A loader without a prefix shares this
// clock (offset 0).
func (tr *targetRun) loaderOffsets(ctx context.Context, st *spec.Step, remotes []*loader.Remote) ([]merge.Offset, error) {
	n := len(remotes)
	offsets := make([]merge.Offset, n)
	for i, r := range remotes {
		if r == nil {
			continue
		}
		o, err := merge.MeasureCommand(ctx, r.Command(r.Path("dbarena"), "clock"))
		if err != nil {
			return nil, fmt.Errorf("loader %d of %d: measure its clock (if dbarena cannot run there, give --loader-binary a build for its OS and CPU, e.g. GOOS=linux GOARCH=amd64 go build ./cmd/dbarena): %w", i, n, err)
		}
		offsets[i] = o
		tr.s.log.Info("loader clock offset", "step", st.ID, "loader", i, "offset", o.Offset, "uncertainty", o.Uncertainty)
		if o.Uncertainty > loaderClockSlack {
			tr.s.log.Warn("loader clock offset uncertain: windows may mix neighbouring seconds", "loader", i, "uncertainty", o.Uncertainty)
		}
	}
	return offsets, nil
}

// fetchLoaderSummaries copies each remote loader's summary into dir,
// within fleet.FetchWait and also after ctx ended. A summary that does
// not come back is logged: the loader's intervals streamed back already.
func fetchLoaderSummaries(ctx context.Context, remotes []*loader.Remote, dir string, ends []fleet.End) {
	fetchCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fleet.FetchWait)
	defer cancel()
	for i, r := range remotes {
		if r == nil || ends[i].Lost != "" {
			// A lost loader's summary would not come, or not in time:
			// its stream is what it measured.
			continue
		}
		f := fleet.File(i, "json")
		if err := r.Fetch(fetchCtx, f, filepath.Join(dir, f)); err != nil {
			ends[i].Lost = fmt.Sprintf("its summary did not come back: %v", err)
			if ends[i].Failed != "" {
				// Its link is the likelier culprit (ssh ends with 255,
				// kubectl exec with 1 when the pod is gone): say both.
				ends[i].Lost = ends[i].Failed + ", and " + ends[i].Lost
			}
		}
	}
}

// readLoaderFiles names every loader's streamed log that holds an
// interval as an input of the merge, with its clock offset, and reads
// the summaries there are (nil for a lost loader that left none); a
// loader that failed and left no summary is lost. It fails when no
// loader measured anything.
func readLoaderFiles(dir, logDir string, offsets []merge.Offset, ends []fleet.End) ([]merge.Input, []*results.Summary, error) {
	n := len(offsets)
	var inputs []merge.Input
	sums := make([]*results.Summary, n)
	var errs []error
	for i := range n {
		sum, err := results.ReadSummary(filepath.Join(dir, fleet.File(i, "json")))
		switch {
		case err == nil:
			sums[i] = &sum
		case ends[i].Lost != "":
		case ends[i].Failed != "":
			ends[i].Lost = ends[i].Failed
		default:
			errs = append(errs, fmt.Errorf("loader %d of %d: summary: %w", i, n, err))
		}
		path := filepath.Join(logDir, fleet.File(i, "hlog"))
		if measuredSomething(path) {
			inputs = append(inputs, merge.Input{Name: fmt.Sprintf("loader %d", i), Path: path, Offset: offsets[i].Offset})
		} else {
			errs = append(errs, fmt.Errorf("loader %d of %d measured nothing%s", i, n, lostText(ends[i])))
		}
	}
	if len(inputs) == 0 {
		return nil, nil, errors.Join(errs...)
	}
	return inputs, sums, nil
}

// lostText is ": WHY" for a lost loader, "" for one that finished.
func lostText(e fleet.End) string {
	if e.Lost == "" {
		return ""
	}
	return ": " + e.Lost
}

// measuredSomething says whether an interval log holds an interval.
func measuredSomething(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = hlog.NewReader(f).Next()
	return err == nil
}

// loaderLoss is a trial some of whose loaders were lost: it holds what
// every loader measured until then, and fails by the error policy.
type loaderLoss struct {
	lost     []string
	coverage float64
}

func (e *loaderLoss) Error() string {
	return fmt.Sprintf("%s; the trial holds %.0f%% of its planned loader time", strings.Join(e.lost, "; "), 100*e.coverage)
}

// lossOf describes the lost loaders (nil when none was): which, when
// into the trial, and why, and the share of the planned loader time the
// trial holds.
func lossOf(ends []fleet.End, m *merge.Result, inputs []merge.Input, startAt time.Time, cfg runner.Config) *loaderLoss {
	var lost []string
	for i, e := range ends {
		if e.Lost != "" {
			lost = append(lost, fmt.Sprintf("loader %d of %d lost %s into the trial: %s", i, len(ends), e.At.Sub(startAt).Round(100*time.Millisecond), e.Lost))
		}
	}
	if len(lost) == 0 {
		return nil
	}
	planned := cfg.MaxExecutionTime
	if planned <= 0 {
		planned = m.End.Sub(m.Start)
	}
	var covered time.Duration
	for _, l := range m.Loaders {
		covered += min(l.Last.Sub(l.First), planned)
	}
	return &loaderLoss{lost: lost, coverage: covered.Seconds() / (planned.Seconds() * float64(len(ends)))}
}

// machineCPU is the CPU the loaders on one machine used over a step.
type machineCPU struct {
	// name says which loaders ("loader 2 of 4", "loaders 0, 2 of 4").
	name string
	// percent is of one core; cores is how many the loaders could use.
	percent float64
	cores   int
}

// loaderMachines sums the loaders' CPU per machine (loaders that
// report one host name, or else share a command prefix, share its
// cores), from their summaries; machines whose loaders reported no
// figures are left out.
func loaderMachines(lp loaderPlan, sums []results.Summary) []machineCPU {
	byHost := map[string]*machineCPU{}
	var order []string
	members := map[string][]string{}
	for i, sum := range sums {
		l := sum.Loader
		if l == nil || l.Cores == 0 || l.RunWall <= 0 {
			continue
		}
		host := "host " + sum.Host
		if sum.Host == "" && i < len(lp.prefixes) {
			host = "prefix " + strings.Join(lp.prefixes[i], " ")
		}
		m, ok := byHost[host]
		if !ok {
			m = &machineCPU{}
			byHost[host] = m
			order = append(order, host)
		}
		m.percent += 100 * l.RunCPU / l.RunWall
		m.cores = max(m.cores, l.Cores)
		members[host] = append(members[host], fmt.Sprint(i))
	}
	var out []machineCPU
	for _, h := range order {
		m := byHost[h]
		noun := "loader"
		if len(members[h]) > 1 {
			noun = "loaders"
		}
		m.name = fmt.Sprintf("%s %s of %d", noun, strings.Join(members[h], ", "), len(sums))
		out = append(out, *m)
	}
	return out
}

// writeMerged writes the merged series to timeseries.csv and the merged
// log as the trial's HdrHistogram log, and gives a schedule's stages the
// windows that fall in them (by their middle, on this machine's clock:
// the merge already put each loader's intervals on it).
func (tr *targetRun) writeMerged(id string, out *loaderOutcome, cfg runner.Config, obs *trialObserver, scale float64) error {
	m := out.merged
	f, err := os.Create(tr.s.w.HdrPath(id))
	if err != nil {
		return fmt.Errorf("hdr log: %w", err)
	}
	werr := m.WriteLog(f, "dbarena trial "+id+" merged from loaders; values in nanoseconds")
	if err := errors.Join(werr, f.Close()); err != nil {
		return err
	}
	stageOf := func(t time.Time) int {
		at := out.startAt.Add(cfg.WarmupTime)
		mid := t.Add(m.Window / 2)
		for i, st := range cfg.Stages {
			if !mid.Before(at) && mid.Before(at.Add(st.Duration)) {
				return i
			}
			at = at.Add(st.Duration)
		}
		return -1
	}
	var points []results.Point
	for _, part := range loader.Series(id, m, out.result) {
		stage := stageOf(part.Start)
		for i := range part.Points {
			part.Points[i].Stage = stage + 1
		}
		points = append(points, part.Points...)
		obs.addRate(part.Points[len(part.Points)-1])
		if stage >= 0 && !part.Warm {
			ok := int64(math.Round(float64(part.All.TotalCount()) * scale))
			obs.addStageSpan(stage, part.Start, part.Start.Add(m.Window), part.All, ok+part.Errs, part.Errs)
		}
	}
	return tr.s.w.AddPoints(points)
}

// opsScale is loader.OpsScale of the outcome's merge (0 without one).
func (out *loaderOutcome) opsScale(res *runner.Result) float64 {
	if out == nil {
		return 0
	}
	return loader.OpsScale(out.merged, res)
}
