package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Signals are the process's interrupts, in three steps: the first
// (SIGINT, SIGTERM, or SIGHUP: an ssh session that dropped) cancels Ctx, and a run stops, giving the operations
// in flight a moment and writing everything measured; the second closes
// Abort, and the run stops at once, writing what was measured without
// waiting for anything; the third calls the exit function given to
// WatchSignals.
type Signals struct {
	Ctx   context.Context
	Abort <-chan struct{}
	stop  func()
}

// WatchSignals starts watching SIGINT, SIGTERM and SIGHUP, saying on w
// what each one does. It also takes SIGPIPE from the runtime: a write to
// a closed standard output or error (`dbarena ycsb run ... | head -1`)
// then fails with EPIPE, which the writers ignore, instead of killing
// the process before it wrote its results (it exited 141 with nothing
// written, an experiment's manifest left "running").
func WatchSignals(parent context.Context, w io.Writer, exit func()) *Signals {
	ctx, cancel := context.WithCancel(parent)
	abort := make(chan struct{})
	ch := make(chan os.Signal, 3)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	// Notified signals that find the channel full are dropped: nothing
	// needs to read it.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-done:
				return
			case sig := <-ch:
				n++
				switch n {
				case 1:
					fmt.Fprintf(w, "\ndbarena: %s: stopping; what was measured is kept (again to stop at once)\n", sig)
					cancel()
				case 2:
					fmt.Fprintf(w, "\ndbarena: %s again: stopping at once (again to exit without writing)\n", sig)
					close(abort)
				default:
					exit()
				}
			}
		}
	}()
	return &Signals{Ctx: ctx, Abort: abort, stop: func() {
		signal.Stop(ch)
		signal.Stop(pipe)
		close(done)
		cancel()
	}}
}

// Stop stops watching.
func (s *Signals) Stop() { s.stop() }
