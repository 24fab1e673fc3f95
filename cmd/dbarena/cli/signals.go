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
// (SIGINT or SIGTERM) cancels Ctx, and a run stops, giving the operations
// in flight a moment and writing everything measured; the second closes
// Abort, and the run stops at once, writing what was measured without
// waiting for anything; the third calls the exit function given to
// WatchSignals.
type Signals struct {
	Ctx   context.Context
	Abort <-chan struct{}
	stop  func()
}

// WatchSignals starts watching SIGINT and SIGTERM, saying on w what each
// one does.
func WatchSignals(parent context.Context, w io.Writer, exit func()) *Signals {
	ctx, cancel := context.WithCancel(parent)
	abort := make(chan struct{})
	ch := make(chan os.Signal, 3)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
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
		close(done)
		cancel()
	}}
}

// Stop stops watching.
func (s *Signals) Stop() { s.stop() }
