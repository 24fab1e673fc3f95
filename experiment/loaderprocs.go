package experiment

// The loader processes of a trial: started together, their interval
// logs streamed back on their standard output, watched for a stall,
// stopped and killed.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dbarena/dbarena/loader"
	"github.com/dbarena/dbarena/measure/hlog"
	"github.com/dbarena/dbarena/runner"
)

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
func (tr *targetRun) runLoaderProcesses(ctx context.Context, bin string, remotes []*loader.Remote, runs []loader.Run, logDir string, startAt time.Time, prog *progress) ([]loaderEnd, error) {
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
			argv = r.Command(append([]string{r.Path("dbarena")}, lr.Args()...)...)
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
			e := loaderEnd{at: time.Now(), tail: loader.Tail(logs[i].String(), 600)}
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
