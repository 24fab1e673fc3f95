package cli

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
)

// loaderSpec is this process's place among several load generators that
// share one run: `--loader I/N`, `--run-id`, `--start-at`.
type loaderSpec struct {
	index, count int
	runID        string
	startAt      time.Time
}

// maxStartLag is how far in the past --start-at may be: a loader that
// starts later than the others by more than this would skew the merge.
const maxStartLag = 5 * time.Second

// parseLoader reads the multi-loader flags; count is 0 without --loader.
func parseLoader(f *ycsbFlags, now time.Time) (loaderSpec, error) {
	ls := loaderSpec{runID: f.runID}
	if f.loader != "" {
		var err error
		if ls.index, ls.count, err = results.ParseLoaderIndex(f.loader); err != nil {
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

// share returns loader i of n's part of total items: contiguous ranges,
// the first total%n one longer.
func share(total int64, i, n int) (offset, size int64) {
	q, r := total/int64(n), total%int64(n)
	size = q
	if int64(i) < r {
		size++
	}
	return int64(i)*q + min(int64(i), r), size
}

// apply gives this loader its share: its range of the keys to insert or
// verify, or its part of the operations, rate and seed of a run.
func (ls loaderSpec) apply(p *properties.Set, phase runner.Phase) error {
	if ls.count == 0 {
		return nil
	}
	src := properties.Source{File: "--" + results.FlagLoader + " " + results.LoaderIndex(ls.index, ls.count)}
	if phase == runner.Transactions {
		ops, err := p.Int64(core.OperationCount, 0)
		if err != nil {
			return err
		}
		if ops > 0 {
			_, n := share(ops, ls.index, ls.count)
			p.Set(core.OperationCount, strconv.FormatInt(n, 10), src)
		}
		target, err := p.Float(core.Target, 0)
		if err != nil {
			return err
		}
		if target > 0 {
			p.Set(core.Target, strconv.FormatFloat(target/float64(ls.count), 'f', -1, 64), src)
		}
		if v, _, ok := p.Lookup(core.Stages); ok && strings.TrimSpace(v) != "" {
			// Each loader runs every stage with its threads and its
			// share of the stage's rate.
			stages, err := runner.ParseStages(v)
			if err != nil {
				return fmt.Errorf("property stages: %w", err)
			}
			for i := range stages {
				stages[i].Target /= float64(ls.count)
			}
			p.Set(core.Stages, runner.FormatStages(stages), src)
		}
		if v, _, ok := p.Lookup(core.Seed); ok {
			seed, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return fmt.Errorf("seed=%q: want an integer >= 0", v)
			}
			// The loaders must not all draw the same operations.
			p.Set(core.Seed, strconv.FormatUint(seed+uint64(ls.index)<<32, 10), src)
		}
		return nil
	}
	// A throttled load shares its rate too.
	target, err := p.Float(core.Target, 0)
	if err != nil {
		return err
	}
	if target > 0 {
		p.Set(core.Target, strconv.FormatFloat(target/float64(ls.count), 'f', -1, 64), src)
	}
	start, err := p.Int64(core.InsertStart, 0)
	if err != nil {
		return err
	}
	count, err := p.Int64(core.InsertCount, 0)
	if err != nil {
		return err
	}
	if count == 0 {
		records, err := p.Int64(core.RecordCount, 0)
		if err != nil {
			return err
		}
		count = records - start
	}
	off, n := share(count, ls.index, ls.count)
	p.Set(core.InsertStart, strconv.FormatInt(start+off, 10), src)
	p.Set(core.InsertCount, strconv.FormatInt(n, 10), src)
	return nil
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
	if ls.count == 0 && ls.runID == "" {
		return ""
	}
	return fmt.Sprintf("; run %s; loader %d/%d on %s", ls.runID, ls.index, ls.count, hostname())
}

// hostname names this machine in outputs ("" when unknown).
func hostname() string {
	h, _ := os.Hostname()
	return h
}
