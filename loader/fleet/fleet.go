// Package fleet runs the loader processes of one trial: started
// together on this machine or through a loader.Remote, their interval
// logs streamed back on their standard output into files, watched for
// a stall, stopped when their standard input closes and killed at a
// second interrupt. Package loader is the protocol they speak; the
// experiment merges what they measured.
package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
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

// StopWait is how long a loader may take to stop and write its
// files after its standard input closed: its own stop's grace and
// abandon time, and a margin to write.
const StopWait = runner.DefaultStopGrace + 3*time.Second

// FetchWait bounds copying a remote loader's files back.
const FetchWait = time.Minute

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

// Stall is how long a running loader may send nothing before it
// is declared lost: it writes an interval every second.
const Stall = 5 * time.Second

// End is how one loader process ended.
type End struct {
	// Lost says why the loader is lost ("" when it finished): killed by
	// a signal, no data for Stall, or ended with an error and left
	// no summary.
	Lost string
	// Failed is how a loader that exited with an error status ended
	// ("exited with status 1"), until its summary says why: one that
	// stopped by its own stop-on-error-rate is not lost, it wrote what it
	// measured and why it stopped. Without a summary it is lost.
	Failed string
	// At is when it ended or was declared lost.
	At time.Time
	// Tail is the end of its standard error, for the log.
	Tail string
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

// Options are a trial's loader processes and what watches them.
type Options struct {
	// Binary is the dbarena program a local loader runs.
	Binary string
	// Remotes reach each loader (nil: a process on this machine), one
	// a run.
	Remotes []*loader.Remote
	// Runs are each loader's share of the trial.
	Runs []loader.Run
	// LogDir receives each loader's interval log, File(i, "hlog").
	LogDir string
	// StartAt is the loaders' common start.
	StartAt time.Time
	// Abort kills every loader when it closes (a second Ctrl-C).
	Abort <-chan struct{}
	// Log says which loader was lost or failed, and why.
	Log *slog.Logger
	// Live, when set, is called about once a second with the time since
	// the start, the loaders' latest summed rate, whether any of them
	// was still warming up, and how many of all sent data lately.
	Live func(elapsed time.Duration, rate float64, warm bool, sending, total int)
}

// File names loader i's file of the given extension ("hlog", "json"),
// the same in the loader's own directory and in the results.
func File(i int, ext string) string { return fmt.Sprintf("loader-%d.%s", i, ext) }

// Run starts every loader, streams its interval log into o.LogDir, and
// waits for all of them. A loader that sends nothing for Stall after
// the common start is declared lost and killed; its process (or the
// ssh or kubectl in front of it) ends, and with it the remote process,
// which stops when its standard input closes. The error is one that
// kept a loader from starting (the others are then killed).
func Run(ctx context.Context, o Options) ([]End, error) {
	n := len(o.Runs)
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
	for i, lr := range o.Runs {
		argv := append([]string{o.Binary}, lr.Args()...)
		if r := o.Remotes[i]; r != nil {
			argv = r.Command(append([]string{r.Path("dbarena")}, lr.Args()...)...)
		}
		f, err := os.Create(filepath.Join(o.LogDir, File(i, "hlog")))
		if err != nil {
			return nil, fmt.Errorf("loader %d of %d: %w", i, n, err)
		}
		pr, pw := io.Pipe()
		streams[i] = &stream{f: f, live: pw}
		streams[i].last.Store(o.StartAt.UnixNano())
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
		cmd.WaitDelay = StopWait
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
	stopAbort := killOnAbort(o.Abort, cmds)
	defer stopAbort()
	w := &watch{o: o, exited: make([]bool, n), stall: make([]string, n), done: make(chan struct{}), stopped: make(chan struct{})}
	go w.run(cmds, streams)
	ends := w.wait(ctx, cmds, logs)
	// The watchdog may be drawing the live line: the caller clears it
	// next, and must not race it.
	close(w.done)
	<-w.stopped
	return ends, nil
}

// wait waits for every loader and says how each ended: lost when
// the watchdog killed it or a signal ended it, failed when it exited with
// an error status (until its summary says why).
func (w *watch) wait(ctx context.Context, cmds []*exec.Cmd, logs []*strings.Builder) []End {
	n := len(cmds)
	ends := make([]End, n)
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := c.Wait()
			w.mu.Lock()
			defer w.mu.Unlock()
			w.exited[i] = true
			e := End{At: time.Now(), Tail: loader.Tail(logs[i].String(), 600)}
			switch {
			case w.stall[i] != "":
				e.Lost = w.stall[i]
			case err != nil && ctx.Err() == nil && signaled(err):
				e.Lost = exitReason(err)
			case err != nil && ctx.Err() == nil:
				e.Failed = exitReason(err)
			}
			switch {
			case e.Lost != "":
				w.o.Log.Warn("loader lost", "loader", fmt.Sprintf("%d of %d", i, n), "why", e.Lost, "output", e.Tail)
			case e.Failed != "":
				// Lost too if no summary comes back; its own words are
				// here either way.
				w.o.Log.Warn("loader ended with an error", "loader", fmt.Sprintf("%d of %d", i, n), "why", e.Failed, "output", e.Tail)
			}
			ends[i] = e
		}()
	}
	wg.Wait()
	return ends
}

// watch is what the watchdog of a trial's loaders shares with the
// goroutines that wait for them.
type watch struct {
	o  Options
	mu sync.Mutex
	// exited marks the loaders that ended; stall says why the watchdog
	// killed one ("" when it did not).
	exited []bool
	stall  []string
	// done closes when every loader has ended; the watchdog closes
	// stopped when it has returned.
	done, stopped chan struct{}
}

// run is the watchdog of a trial's loaders until w.done: a loader
// that sent nothing for Stall after the common start is lost and
// killed. It also draws the live line each second.
func (w *watch) run(cmds []*exec.Cmd, streams []*stream) {
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
			if now.Sub(lastLine) >= time.Second && now.After(w.o.StartAt) {
				lastLine = now
				w.live(now.Sub(w.o.StartAt), streams)
			}
			if now.Before(w.o.StartAt.Add(Stall)) {
				continue
			}
			w.mu.Lock()
			for i, st := range streams {
				if w.exited[i] || w.stall[i] != "" || now.Sub(time.Unix(0, st.last.Load())) < Stall {
					continue
				}
				w.stall[i] = fmt.Sprintf("no data for %s", Stall)
				w.o.Log.Warn("loader lost: no data; stopping it", "loader", fmt.Sprintf("%d of %d", i, n), "silent", Stall)
				_ = cmds[i].Process.Kill()
			}
			w.mu.Unlock()
		}
	}
}

// live reports the loaders' latest rates to Options.Live.
func (w *watch) live(elapsed time.Duration, streams []*stream) {
	if w.o.Live == nil {
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
	w.o.Live(elapsed, rate, warm, sending, len(streams))
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
