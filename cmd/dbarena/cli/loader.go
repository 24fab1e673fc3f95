package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/dbarena/dbarena/loader"
	"github.com/dbarena/dbarena/results"
)

// loaderSpec is this process's place among several load generators that
// share one run: `--loader I/N`, `--run-id`, `--start-at`.
type loaderSpec struct {
	slot    loader.Slot
	runID   string
	startAt time.Time
}

// maxStartLag is how far in the past --start-at may be: a loader that
// starts later than the others by more than this would skew the merge.
const maxStartLag = 5 * time.Second

// parseLoader reads the multi-loader flags; count is 0 without --loader.
func parseLoader(f *ycsbFlags, now time.Time) (loaderSpec, error) {
	ls := loaderSpec{runID: f.runID}
	if f.loader != "" {
		var err error
		if ls.slot, err = loader.ParseSlot(f.loader); err != nil {
			return ls, fmt.Errorf("--%s %w", results.FlagLoader, err)
		}
	}
	if f.startAt != "" {
		t, err := time.Parse(time.RFC3339Nano, f.startAt)
		if err != nil {
			return ls, fmt.Errorf("--start-at %q: want an RFC 3339 time such as 2026-11-23T10:00:00.000Z", f.startAt)
		}
		if lag := now.Sub(t); lag > maxStartLag {
			return ls, fmt.Errorf("--start-at %s is %s in the past: the other loaders started without this one", f.startAt, lag.Round(time.Millisecond))
		}
		ls.startAt = t
	}
	return ls, nil
}

// wait sleeps until the common start time, if any.
func (ls loaderSpec) wait(ctx context.Context) error {
	if ls.startAt.IsZero() {
		return nil
	}
	t := time.NewTimer(time.Until(ls.startAt))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// comment is the loader's identity for its HdrHistogram log header.
func (ls loaderSpec) comment() string {
	if ls.slot.Alone() && ls.runID == "" {
		return ""
	}
	return fmt.Sprintf("; run %s; loader %s on %s", ls.runID, ls.slot, hostname())
}

// hostname names this machine in outputs ("" when unknown).
func hostname() string {
	h, _ := os.Hostname()
	return h
}
