package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/internal/workdir"
	"github.com/dbarena/dbarena/loader"
	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/measure/hlog"
	"github.com/dbarena/dbarena/merge"
	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
)

// loaderStartDelay is how far ahead the common start is set: every
// loader must have started and connected by then.
const loaderStartDelay = 3 * time.Second

// loaderStopWait is how long a loader may take to stop and write its
// files after its standard input closed: its own stop's grace and
// abandon time, and a margin to write.
const loaderStopWait = runner.DefaultStopGrace + 3*time.Second

// loaderFetchWait bounds copying a remote loader's files back.
const loaderFetchWait = time.Minute

// killOnAbort kills every loader when abort closes (a second Ctrl-C);
// the returned function stops watching.
func killOnAbort(abort <-chan struct{}, cmds []*exec.Cmd) func() {
	done := make(chan struct{})
	go func() {
		select {
		case <-abort:
			for _, c := range cmds {
				_ = c.Process.Kill()
			}
		case <-done:
		}
	}()
	return func() { close(done) }
}

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
func (tr *targetRun) runLoaders(ctx context.Context, st *spec.Step, lp loaderPlan, cfg runner.Config, prog *progress) (*runner.Result, *loaderOutcome, error) {
	s := tr.s
	props, verb, err := tr.loaderProps(st, lp, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("loaders: %w", err)
	}
	bin := s.opts.LoaderBinary
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return nil, nil, fmt.Errorf("loaders: find the dbarena binary: %w", err)
		}
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
				r.clean()
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
			pfile, out = r.path("trial.properties"), r.dir
		}
		// The interval log streams back on the loader's standard
		// output as it is written: whatever happens to the loader, what
		// it measured until then is here.
		runs[i] = loader.Run{Verb: verb, Driver: tr.t.Driver, Properties: pfile, Slot: loader.Slot{Index: i, Count: lp.n}, RunID: st.ID,
			StartAt: startAt, HdrLog: results.StdoutPath, JSON: filepath.Join(out, loaderFile(i, "json"))}
	}
	ends, err := tr.runLoaderProcesses(ctx, bin, remotes, runs, logDir, startAt, prog)
	if err != nil {
		return nil, nil, err
	}
	// The summaries come back also after an interrupt: they hold what
	// was measured. A lost loader may have left none.
	fetchLoaderSummaries(ctx, remotes, dir, ends)
	inputs, sums, err := readLoaderFiles(dir, logDir, offsets, ends)
	if err != nil {
		return nil, nil, err
	}
	m, err := merge.Merge(inputs, merge.Options{})
	if err != nil {
		return nil, nil, err
	}
	for _, fl := range m.Flags {
		s.log.Warn("loaders", "step", st.ID, "warning", fl)
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
// the ycsb verb ("run" or "load") it runs.
func (tr *targetRun) loaderProps(st *spec.Step, lp loaderPlan, cfg runner.Config) (*properties.Set, string, error) {
	props, err := tr.stepPropsOn(st, lp.props)
	if err != nil {
		return nil, "", err
	}
	// Each loader runs the whole schedule with the stages' threads and
	// its share of their rates (a property file's own stages never
	// reach them: the experiment's settings win).
	props.Set(core.Stages, runner.FormatStages(cfg.Stages), properties.Source{File: "run.stages"})
	// The experiment judges the merged trial by its error policy; each
	// loader only stops, as the policy says, when a second of its own is
	// mostly failures.
	props.Set(core.MaxErrorRate, "1", properties.Source{File: "loaders"})
	props.Set(core.StopOnErrorRate, strconv.FormatFloat(cfg.StopOnErrorRate, 'f', -1, 64), properties.Source{File: "run.stop_on_error_rate"})
	if st.Kind != spec.Load {
		return props, "run", nil
	}
	// The table exists: this process made it before the loaders start,
	// and none of them may drop it under the others.
	props.Set(core.SchemaCreate, "false", properties.Source{File: "loaders"})
	props.Set(core.Drop, "false", properties.Source{File: "loaders"})
	return props, "load", nil
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

// loaderFile names loader i's file of the given extension, the same in
// its directory and in this process's.
func loaderFile(i int, ext string) string { return fmt.Sprintf("loader-%d.%s", i, ext) }

// stageRemotes gives each loader behind a command prefix (ssh host, ip
// netns exec ns) a directory of its own with the binary and the
// properties: it may not share this file system, and nothing but sh
// and cat is needed on the other side. The slice has a nil for each
// loader that runs here; it holds the loaders staged so far also with
// an error, for the caller to clean.
func stageRemotes(ctx context.Context, lp loaderPlan, bin, propsFile string) ([]*remoteLoader, error) {
	remotes := make([]*remoteLoader, lp.n)
	for i, prefix := range lp.prefixes {
		if i >= lp.n || len(prefix) == 0 {
			continue
		}
		r := &remoteLoader{prefix: prefix, dir: fmt.Sprintf("/tmp/dbarena-loader-%d-%d", os.Getpid(), i)}
		if err := r.stage(ctx, bin, propsFile); err != nil {
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
func (tr *targetRun) loaderOffsets(ctx context.Context, st *spec.Step, remotes []*remoteLoader) ([]merge.Offset, error) {
	n := len(remotes)
	offsets := make([]merge.Offset, n)
	for i, r := range remotes {
		if r == nil {
			continue
		}
		o, err := merge.MeasureCommand(ctx, r.command(r.path("dbarena"), "clock"))
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

// loaderStall is how long a running loader may send nothing before it
// is declared lost: it writes an interval every second.
const loaderStall = 5 * time.Second

// loaderEnd is how one loader process ended.
type loaderEnd struct {
	// lost says why the loader is lost ("" when it finished): killed by
	// a signal, no data for loaderStall, or ended with an error and left
	// no summary.
	lost string
	// failed is how a loader that exited with an error status ended
	// ("exited with status 1"), until its summary says why: one that
	// stopped by its own stop-on-error-rate is not lost, it wrote what it
	// measured and why it stopped. Without a summary it is lost.
	failed string
	// at is when it ended or was declared lost.
	at time.Time
	// tail is the end of its standard error, for the log.
	tail string
}

// stream is a loader's standard output copied into its interval log
// file, with the time of the last write, and read as it comes for the
// live line.
type stream struct {
	f    *os.File
	last atomic.Int64 // unix nanoseconds
	live *io.PipeWriter
	// rate is the operations per second of the loader's latest
	// interval (float64 bits), warm whether it was the warm-up's.
	rate atomic.Uint64
	warm atomic.Bool
}

func (s *stream) Write(p []byte) (int, error) {
	s.last.Store(time.Now().UnixNano())
	n, err := s.f.Write(p)
	if err == nil {
		// The reader drains the pipe whatever it finds in it.
		_, _ = s.live.Write(p)
	}
	return n, err
}

// read follows the interval log on r: each interval's operations, of
// every operation type's successes and failures, give the loader's
// latest rate.
func (s *stream) read(r io.Reader) {
	// Drain what is left, so that the loader's output never blocks.
	defer func() { _, _ = io.Copy(io.Discard, r) }()
	rd := hlog.NewReader(r)
	var start time.Time
	var count int64
	var length time.Duration
	var warm bool
	for {
		iv, err := rd.Next()
		if err != nil {
			return
		}
		tag := hlog.ParseTag(iv.Tag)
		if tag.Kind != hlog.Service && tag.Kind != hlog.Failed {
			continue
		}
		if !iv.Start.Equal(start) {
			if length > 0 {
				s.rate.Store(math.Float64bits(float64(count) / length.Seconds()))
				s.warm.Store(warm)
			}
			start, count, length = iv.Start, 0, iv.Length
		}
		count += iv.Histogram.TotalCount()
		warm = tag.Warmup
	}
}

// runLoaderProcesses starts every loader, streams its interval log into
// logDir, and waits for all of them. A loader that sends nothing for
// loaderStall after the common start is declared lost and killed; its
// process (or the ssh or kubectl in front of it) ends, and with it the
// remote process, which stops when its standard input closes. The
// error is one that kept a loader from starting (the others are then
// killed).
func (tr *targetRun) runLoaderProcesses(ctx context.Context, bin string, remotes []*remoteLoader, runs []loader.Run, logDir string, startAt time.Time, prog *progress) ([]loaderEnd, error) {
	n := len(runs)
	cmds := make([]*exec.Cmd, n)
	logs := make([]*strings.Builder, n)
	streams := make([]*stream, n)
	defer func() {
		for _, st := range streams {
			if st != nil {
				_ = st.f.Close()
				_ = st.live.Close()
			}
		}
	}()
	for i, lr := range runs {
		argv := append([]string{bin}, lr.Args()...)
		if r := remotes[i]; r != nil {
			argv = r.command(append([]string{r.path("dbarena")}, lr.Args()...)...)
		}
		f, err := os.Create(filepath.Join(logDir, loaderFile(i, "hlog")))
		if err != nil {
			return nil, fmt.Errorf("loader %d of %d: %w", i, n, err)
		}
		pr, pw := io.Pipe()
		streams[i] = &stream{f: f, live: pw}
		streams[i].last.Store(startAt.UnixNano())
		go streams[i].read(pr)
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		logs[i] = &strings.Builder{}
		cmd.Stdout, cmd.Stderr = streams[i], logs[i]
		// A pipe nothing is written to, open while this process lives:
		// when it is closed (at an interrupt) or this process is killed,
		// ssh or kubectl passes the close on, and the loader stops as if
		// interrupted, writing what it measured, rather than loading the
		// database on its own. It is killed only after its own stop's
		// grace, or at a second interrupt.
		stdin, err := cmd.StdinPipe()
		cmd.Cancel = func() error { return stdin.Close() }
		cmd.WaitDelay = loaderStopWait
		if err == nil {
			err = cmd.Start()
		}
		if err != nil {
			for _, c := range cmds[:i] {
				_ = c.Process.Kill()
				_ = c.Wait()
			}
			return nil, fmt.Errorf("loader %d of %d: start %s: %w", i, n, argv[0], err)
		}
		cmds[i] = cmd
	}
	stopAbort := killOnAbort(tr.s.opts.Abort, cmds)
	defer stopAbort()
	w := &loaderWatch{exited: make([]bool, n), stall: make([]string, n), done: make(chan struct{}), stopped: make(chan struct{})}
	go tr.watchLoaders(w, cmds, streams, startAt, prog)
	ends := tr.waitLoaders(ctx, w, cmds, logs)
	// The watchdog may be drawing the live line: the caller clears it
	// next, and must not race it.
	close(w.done)
	<-w.stopped
	return ends, nil
}

// waitLoaders waits for every loader and says how each ended: lost when
// the watchdog killed it or a signal ended it, failed when it exited with
// an error status (until its summary says why).
func (tr *targetRun) waitLoaders(ctx context.Context, w *loaderWatch, cmds []*exec.Cmd, logs []*strings.Builder) []loaderEnd {
	n := len(cmds)
	ends := make([]loaderEnd, n)
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := c.Wait()
			w.mu.Lock()
			defer w.mu.Unlock()
			w.exited[i] = true
			e := loaderEnd{at: time.Now(), tail: tail(logs[i].String(), 600)}
			switch {
			case w.stall[i] != "":
				e.lost = w.stall[i]
			case err != nil && ctx.Err() == nil && signaled(err):
				e.lost = exitReason(err)
			case err != nil && ctx.Err() == nil:
				e.failed = exitReason(err)
			}
			switch {
			case e.lost != "":
				tr.s.log.Warn("loader lost", "loader", fmt.Sprintf("%d of %d", i, n), "why", e.lost, "output", e.tail)
			case e.failed != "":
				// Lost too if no summary comes back; its own words are
				// here either way.
				tr.s.log.Warn("loader ended with an error", "loader", fmt.Sprintf("%d of %d", i, n), "why", e.failed, "output", e.tail)
			}
			ends[i] = e
		}()
	}
	wg.Wait()
	return ends
}

// loaderWatch is what the watchdog of a step's loaders shares with the
// goroutines that wait for them.
type loaderWatch struct {
	mu sync.Mutex
	// exited marks the loaders that ended; stall says why the watchdog
	// killed one ("" when it did not).
	exited []bool
	stall  []string
	// done closes when every loader has ended; the watchdog closes
	// stopped when it has returned.
	done, stopped chan struct{}
}

// watchLoaders is the watchdog of a step's loaders until w.done: a loader
// that sent nothing for loaderStall after the common start is lost and
// killed. It also draws the live line each second.
func (tr *targetRun) watchLoaders(w *loaderWatch, cmds []*exec.Cmd, streams []*stream, startAt time.Time, prog *progress) {
	defer close(w.stopped)
	n := len(cmds)
	var lastLine time.Time
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-w.done:
			return
		case now := <-t.C:
			if now.Sub(lastLine) >= time.Second && now.After(startAt) {
				lastLine = now
				tr.liveLine(prog, now.Sub(startAt), streams)
			}
			if now.Before(startAt.Add(loaderStall)) {
				continue
			}
			w.mu.Lock()
			for i, st := range streams {
				if w.exited[i] || w.stall[i] != "" || now.Sub(time.Unix(0, st.last.Load())) < loaderStall {
					continue
				}
				w.stall[i] = fmt.Sprintf("no data for %s", loaderStall)
				tr.s.log.Warn("loader lost: no data; stopping it", "loader", fmt.Sprintf("%d of %d", i, n), "silent", loaderStall)
				_ = cmds[i].Process.Kill()
			}
			w.mu.Unlock()
		}
	}
}

// liveLine draws the live line from the loaders' latest rates.
func (tr *targetRun) liveLine(prog *progress, elapsed time.Duration, streams []*stream) {
	if prog == nil {
		return
	}
	var rate float64
	warm, sending := false, 0
	for _, st := range streams {
		if r := math.Float64frombits(st.rate.Load()); r > 0 {
			rate += r
			warm = warm || st.warm.Load()
		}
		if time.Since(time.Unix(0, st.last.Load())) < 2*time.Second {
			sending++
		}
	}
	prog.loaders(elapsed, rate, warm, sending, len(streams))
}

// signaled says whether err is that of a process a signal ended.
func signaled(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return true
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}

// exitReason says how a loader process ended badly, in words: "killed
// by signal 9", "exited with status 1".
func exitReason(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("killed by signal %d (%s)", int(ws.Signal()), ws.Signal())
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode())
	}
	return err.Error()
}

// fetchLoaderSummaries copies each remote loader's summary into dir,
// within loaderFetchWait and also after ctx ended. A summary that does
// not come back is logged: the loader's intervals streamed back already.
func fetchLoaderSummaries(ctx context.Context, remotes []*remoteLoader, dir string, ends []loaderEnd) {
	fetchCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), loaderFetchWait)
	defer cancel()
	for i, r := range remotes {
		if r == nil || ends[i].lost != "" {
			// A lost loader's summary would not come, or not in time:
			// its stream is what it measured.
			continue
		}
		f := loaderFile(i, "json")
		if err := r.fetch(fetchCtx, f, filepath.Join(dir, f)); err != nil {
			ends[i].lost = fmt.Sprintf("its summary did not come back: %v", err)
			if ends[i].failed != "" {
				// Its link is the likelier culprit (ssh ends with 255,
				// kubectl exec with 1 when the pod is gone): say both.
				ends[i].lost = ends[i].failed + ", and " + ends[i].lost
			}
		}
	}
}

// readLoaderFiles names every loader's streamed log that holds an
// interval as an input of the merge, with its clock offset, and reads
// the summaries there are (nil for a lost loader that left none); a
// loader that failed and left no summary is lost. It fails when no
// loader measured anything.
func readLoaderFiles(dir, logDir string, offsets []merge.Offset, ends []loaderEnd) ([]merge.Input, []*results.Summary, error) {
	n := len(offsets)
	var inputs []merge.Input
	sums := make([]*results.Summary, n)
	var errs []error
	for i := range n {
		sum, err := results.ReadSummary(filepath.Join(dir, loaderFile(i, "json")))
		switch {
		case err == nil:
			sums[i] = &sum
		case ends[i].lost != "":
		case ends[i].failed != "":
			ends[i].lost = ends[i].failed
		default:
			errs = append(errs, fmt.Errorf("loader %d of %d: summary: %w", i, n, err))
		}
		path := filepath.Join(logDir, loaderFile(i, "hlog"))
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
func lostText(e loaderEnd) string {
	if e.lost == "" {
		return ""
	}
	return ": " + e.lost
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
func lossOf(ends []loaderEnd, m *merge.Result, inputs []merge.Input, startAt time.Time, cfg runner.Config) *loaderLoss {
	var lost []string
	for i, e := range ends {
		if e.lost != "" {
			lost = append(lost, fmt.Sprintf("loader %d of %d lost %s into the trial: %s", i, len(ends), e.at.Sub(startAt).Round(100*time.Millisecond), e.lost))
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
	byStart := map[time.Time][]merge.Window{}
	var order []time.Time
	for _, w := range m.Windows {
		if _, ok := byStart[w.Start]; !ok {
			order = append(order, w.Start)
		}
		byStart[w.Start] = append(byStart[w.Start], w)
	}
	// The FAILED- tags hold a composite operation's failed parts and
	// retried inserts' failed attempts too: their counts are scaled to
	// the operations the loaders counted as failed, as the successes are
	// by scale.
	errScale := 1.0
	var failed int64
	for name, h := range m.Totals {
		if tag := hlog.ParseTag(name); !tag.Warmup && tag.Kind == hlog.Failed && tag.Op != runner.VerifySeries {
			failed += h.TotalCount()
		}
	}
	if res := out.result; res != nil && failed > 0 {
		errScale = float64(res.Measured.Errors) / float64(failed)
	}
	var points []results.Point
	for _, t := range order {
		for _, part := range mergedWindow(id, m, t, byStart[t], errScale) {
			stage := stageOf(t)
			for i := range part.points {
				part.points[i].Stage = stage + 1
			}
			points = append(points, part.points...)
			obs.addRate(part.points[len(part.points)-1])
			if stage >= 0 && !part.warm {
				ok := int64(math.Round(float64(part.all.TotalCount()) * scale))
				obs.addStageSpan(stage, t, t.Add(m.Window), part.all, ok+part.errs, part.errs)
			}
		}
	}
	return tr.s.w.AddPoints(points)
}

// windowPart is the warm-up's or the measured phase's part of one merged
// window: its timeseries rows (an ALL row last), its successful
// operations' merged latency histogram and its failures.
type windowPart struct {
	warm   bool
	points []results.Point
	all    *hdrhistogram.Histogram
	errs   int64
}

// windowOp is one operation's histograms in a part of a merged window:
// its successes, the latency a user saw, and its failures.
type windowOp struct {
	ok, latency *hdrhistogram.Histogram
	// cut holds the operations the window's end cut off, which a
	// closed loop's latency counts besides ok (a paced one's latency,
	// response time, holds them already).
	cut  *hdrhistogram.Histogram
	errs int64
}

// windowAcc is a part (warm-up or measured) of a merged window by
// operation, in the order the operations came, and its pacing.
type windowAcc struct {
	byOp   map[string]*windowOp
	names  []string
	pacing *hdrhistogram.Histogram
}

// splitWindow sorts a merged window's histograms by part (warm-up
// first, then measured; nil where a part has none) and operation.
// Failure counts are scaled by errScale; data-integrity mismatches
// (VERIFY) are not operations' failures.
func splitWindow(ws []merge.Window, errScale float64) [2]*windowAcc {
	var parts [2]*windowAcc
	for _, w := range ws {
		tag := hlog.ParseTag(w.Tag)
		pi := 1
		if tag.Warmup {
			pi = 0
		}
		if parts[pi] == nil {
			parts[pi] = &windowAcc{byOp: map[string]*windowOp{}}
		}
		p := parts[pi]
		h := measure.NewHistogram()
		w.Hist.MergeInto(h)
		if tag.Kind == hlog.Pacing {
			p.pacing = h
			continue
		}
		a := p.byOp[tag.Op]
		if a == nil {
			a = &windowOp{}
			p.byOp[tag.Op] = a
			p.names = append(p.names, tag.Op)
		}
		switch tag.Kind {
		case hlog.Service:
			a.ok = h
			if a.latency == nil {
				a.latency = h
			}
		case hlog.Intended:
			a.latency = h
		case hlog.CutOff:
			a.cut = h
		case hlog.Failed:
			if tag.Op != runner.VerifySeries {
				a.errs = int64(math.Round(float64(h.TotalCount()) * errScale))
			}
		}
	}
	return parts
}

// mergedWindow is one merged window's rows: the warm-up's part, when a
// loader's warm-up ended in the window, then the measured part. The
// latency is the one a user saw: response time where the loaders were
// paced, service time where not. Failure counts are scaled by errScale;
// data-integrity mismatches (VERIFY) are not operations' failures.
func mergedWindow(id string, m *merge.Result, t time.Time, ws []merge.Window, errScale float64) []windowPart {
	parts := splitWindow(ws, errScale)
	end := t.Add(m.Window)
	var out []windowPart
	for pi, p := range parts {
		if p == nil {
			continue
		}
		warm := pi == 0
		mk := func(op string, ok, errs int64, h *hdrhistogram.Histogram) results.Point {
			pt := results.Point{Trial: id, Time: end, Elapsed: end.Sub(m.Start), Length: m.Window, Warmup: warm, Op: op,
				Ops: ok + errs, Errors: errs, Latency: latencyOf(measure.StatsOf(h))}
			pt.SetRates()
			return pt
		}
		part := windowPart{warm: warm, all: measure.NewHistogram()}
		for _, name := range p.names {
			a := p.byOp[name]
			var ok int64
			if a.ok != nil {
				ok = a.ok.TotalCount()
			}
			lat := a.latency
			if lat == nil {
				lat = measure.NewHistogram()
			}
			if a.cut != nil && lat == a.ok {
				// Service times: the cut-off operations join them
				// at their latency so far, as in a single process.
				withCut := measure.NewHistogram()
				withCut.Merge(lat)
				withCut.Merge(a.cut)
				lat = withCut
			}
			part.points = append(part.points, mk(name, ok, a.errs, lat))
			part.all.Merge(lat)
			part.errs += a.errs
		}
		sum := mk(results.AllOps, part.all.TotalCount(), part.errs, part.all)
		if p.pacing != nil {
			sum.Pacing = pacingOf(measure.StatsOf(p.pacing))
		}
		part.points = append(part.points, sum)
		out = append(out, part)
	}
	return out
}

// tail is the end of a loader's output, for an error message.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	return s
}

// remoteLoader is a loader reached through a command prefix, with a
// directory of its own on the other side.
type remoteLoader struct {
	prefix []string
	dir    string
}

func (r *remoteLoader) path(name string) string { return r.dir + "/" + name }

// command is the argv that runs args through the prefix. ssh does not
// pass an argv: it joins its words with spaces for the remote shell to
// split again, so behind ssh each word is quoted for that shell; other
// prefixes (ip netns exec, docker exec, kubectl exec --) exec the argv
// as it is.
func (r *remoteLoader) command(args ...string) []string {
	argv := append([]string(nil), r.prefix...)
	if !remoteShell(r.prefix) {
		return append(argv, args...)
	}
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return append(argv, strings.Join(q, " "))
}

// remoteShell says whether a prefix hands its command to a remote shell
// as one string: ssh, autossh and gcloud compute ssh, also behind sudo
// or env (whose own flags and settings come first).
func remoteShell(prefix []string) bool {
	for i, w := range prefix {
		switch filepath.Base(w) {
		case "ssh", "autossh":
			return true
		case "gcloud":
			compute := false
			for _, x := range prefix[i+1:] {
				compute = compute || x == "compute"
				if compute && x == "ssh" {
					return true
				}
			}
			return false
		}
		if i == 0 && filepath.Base(w) != "sudo" && filepath.Base(w) != "env" {
			// The program itself, and not one of the above.
			return false
		}
	}
	return false
}

// shellQuote quotes a word for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sh runs a shell command through the prefix, with stdin from a file
// when given.
func (r *remoteLoader) sh(ctx context.Context, script string, stdin *os.File, stdout *os.File) error {
	argv := r.command("sh", "-c", script)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var errb strings.Builder
	cmd.Stderr = &errb
	if stdin != nil {
		cmd.Stdin = stdin
	}
	if stdout != nil {
		cmd.Stdout = stdout
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, tail(errb.String(), 400))
	}
	return nil
}

// stage creates the directory (its owner's only) and copies the binary
// and the properties, which hold resolved secrets, into it.
func (r *remoteLoader) stage(ctx context.Context, bin, props string) error {
	for _, c := range []struct{ from, to, mode string }{{bin, "dbarena", "700"}, {props, "trial.properties", "600"}} {
		f, err := os.Open(c.from)
		if err != nil {
			return err
		}
		err = r.sh(ctx, fmt.Sprintf("umask 077 && mkdir -p %s && cat > %s && chmod %s %s", r.dir, r.path(c.to), c.mode, r.path(c.to)), f, nil)
		f.Close()
		if err != nil {
			return fmt.Errorf("copy %s to the loader: %w", c.to, err)
		}
	}
	return nil
}

// fetch copies a file of the loader's directory here.
func (r *remoteLoader) fetch(ctx context.Context, name, to string) error {
	f, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	err = r.sh(ctx, "cat "+r.path(name), nil, f)
	return errors.Join(err, f.Close())
}

// clean removes the loader's directory; a failure leaves a directory in
// the other side's /tmp, nothing more.
func (r *remoteLoader) clean() {
	ctx, cancel := context.WithTimeout(context.Background(), loaderCleanWait)
	defer cancel()
	_ = r.sh(ctx, "rm -rf "+r.dir, nil, nil)
}

// loaderCleanWait bounds removing a loader's directory: a host that
// no longer answers (its link cut) must not hold the experiment.
const loaderCleanWait = 10 * time.Second

// opsScale is loader.OpsScale of the outcome's merge (0 without one).
func (out *loaderOutcome) opsScale(res *runner.Result) float64 {
	if out == nil {
		return 0
	}
	return loader.OpsScale(out.merged, res)
}
