package experiment

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dbarena/dbarena/analysis/steady"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/trial"
)

// The target's warm-up (run.prewarm): prewarmThreads workers on the
// target's first workload that leaves the data as loaded, in blocks of
// prewarmBlock, until the last prewarmSettled blocks agree within
// prewarmSpread (their least-squares drift and their coefficient of
// variation both), at most run.prewarm.
//
// A trial's own warm-up until steady looks at five seconds: Cassandra on
// one core passed it and still climbed across the trials that followed,
// from 8,487 ops/s on workload C's first repetition to 15,816 on its
// third. Its JIT compiler shares the one core with the requests: run at
// 32 workers from a cold start, workload C climbed from 1,215 ops/s to
// about 5,000 after 60 s and 14,000 after 120 s, still climbing at 150 s;
// warmed first for 60 s at 2 workers, which leaves the compiler most of
// the core, the same 32 workers read 16,000-25,000 at once. So the
// warm-up runs few workers, and blocks of fifteen seconds see a climb
// that five do not. Fifteen seconds are still too few: a JIT climbs in
// steps, and Cassandra's blocks read 1,168, 1,209 and 1,166 ops/s after
// 40 s, agreed within 5%, and the trials after them climbed from 4,475
// ops/s on workload A to 13,097 on D, while another run of the same
// warm-up read 5,864 after 90 s. Six blocks, thirty seconds, must agree.
// It runs the workload as it is: a mix of every operation the workloads
// use, in their shares, spent 90% of its time in scans at 2 workers, and
// Cassandra read 600 ops/s after a minute and still climbed in the
// trials after it.
const (
	prewarmThreads = 2
	prewarmBlock   = 5 * time.Second
	prewarmSettled = 6
	prewarmSpread  = 0.05
)

// prewarm warms the target on st (a run that leaves the data as loaded)
// and records it in the manifest.
func (tr *targetRun) prewarm(ctx context.Context, st *spec.Step) error {
	if st == nil { // the plan refuses this; a guard for other callers
		return fmt.Errorf("no run that leaves the data as loaded to warm up on")
	}
	limit := tr.s.plan.Spec.Run.Prewarm
	p, err := tr.prepare(ctx, st, override{settings: func(set *trial.Settings) {
		c := &set.Run
		c.Threads, c.Target, c.Stages = prewarmThreads, 0, nil
		c.WarmupTime, c.WarmupOperations, c.WarmupSteady = 0, 0, false
		c.OperationCount, c.MaxExecutionTime, c.Interval = 0, limit, time.Second
	}})
	if err != nil {
		return fmt.Errorf("warm up on %s: %w", st.ID, err)
	}
	defer p.Close()
	tr.watchDatabase(ctx, p)
	fmt.Fprintf(tr.s.opts.Stderr, "dbarena: %s: warming up on workload %s, %d workers, until %d %s blocks in a row agree within %.0f%%, at most %s\n",
		tr.t.Name, st.Workload.Name, p.Settings.Run.Threads, prewarmSettled, prewarmBlock, 100*prewarmSpread, limit)
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	b := &blocks{per: int(prewarmBlock / time.Second), stop: stop}
	cfg := p.Settings.Run
	cfg.Abort = tr.s.opts.Abort
	if _, err := runner.Run(rctx, cfg, p.Workload, p.DB, b); err != nil && ctx.Err() == nil {
		return fmt.Errorf("warm up on %s: %w", st.ID, err)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	pw := &results.Prewarm{Workload: st.Workload.Name, Threads: cfg.Threads, Blocks: b.rates,
		BlockSeconds: prewarmBlock.Seconds(), SettleBlocks: prewarmSettled, Spread: prewarmSpread, Settled: b.settled}
	tr.s.mu.Lock()
	tr.s.manifest.Targets[tr.index].Prewarm = pw
	tr.s.mu.Unlock()
	fmt.Fprintf(tr.s.opts.Stderr, "dbarena: %s: %s\n", tr.t.Name, describePrewarm(pw))
	return nil
}

// describePrewarm says "warm after 45s: 3,100, 6,800 ... ops/s in 5s
// blocks", or that the limit came first.
func describePrewarm(pw *results.Prewarm) string {
	var parts []string
	for _, x := range pw.Blocks {
		parts = append(parts, fmt.Sprintf("%.0f", x))
	}
	took := time.Duration(float64(len(pw.Blocks)) * pw.BlockSeconds * float64(time.Second))
	if pw.Settled {
		return fmt.Sprintf("warm after %s: %s ops/s in %s blocks", took, strings.Join(parts, ", "), time.Duration(pw.BlockSeconds*float64(time.Second)))
	}
	return fmt.Sprintf("still moving after %s, the warm-up's limit: %s ops/s in %s blocks; the trials' own warm-ups go on from there",
		took, strings.Join(parts, ", "), time.Duration(pw.BlockSeconds*float64(time.Second)))
}

// blocks observes the warm-up: each whole block's throughput, and stops
// the run once the last prewarmSettled agree.
type blocks struct {
	per  int // intervals per block
	stop func()
	// ops and secs sum the block being filled.
	ops, n  int64
	secs    float64
	rates   []float64
	settled bool
}

// Interval implements runner.Observer.
func (b *blocks) Interval(iv *runner.Interval) {
	if iv.Warmup || b.settled {
		return
	}
	for i := range iv.Results {
		b.ops += iv.Results[i].OK()
	}
	b.secs += iv.End.Sub(iv.Start).Seconds()
	b.n++
	if b.n < int64(b.per) || b.secs <= 0 {
		return
	}
	b.rates = append(b.rates, float64(b.ops)/b.secs)
	b.ops, b.n, b.secs = 0, 0, 0
	if agree(b.rates) {
		b.settled = true
		b.stop()
	}
}

// agree reports whether the last prewarmSettled block rates agree: a
// least-squares drift and a coefficient of variation of prewarmSpread at
// most.
func agree(rates []float64) bool {
	if len(rates) < prewarmSettled {
		return false
	}
	t := steady.Fit(rates[len(rates)-prewarmSettled:])
	return t.Mean > 0 && math.Abs(t.Drift) <= prewarmSpread && t.CV <= prewarmSpread
}
