package sysmetrics

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Collector samples its sources every interval on its own goroutine and
// hands each round's samples to a sink. A source whose Sample fails is
// skipped that round and logged once (until it is added again): a server
// that exited must not stop the others' sampling.
type Collector struct {
	interval time.Duration
	sink     func([]Sample)
	// Logger receives one warning per failing source; nil discards. Set
	// it before Start.
	Logger *slog.Logger

	mu      sync.Mutex
	sources []Source
	warned  map[string]bool
	started bool

	startOnce, stopOnce sync.Once
	stop, done          chan struct{}
}

// NewCollector returns a collector that calls sink with every round's
// samples, from one goroutine at a time; interval <= 0 means one second.
func NewCollector(interval time.Duration, sink func([]Sample)) *Collector {
	if interval <= 0 {
		interval = time.Second
	}
	return &Collector{interval: interval, sink: sink, warned: map[string]bool{},
		stop: make(chan struct{}), done: make(chan struct{})}
}

// Interval is the time between rounds: each sample's rates cover the
// interval that ends at its Time.
func (c *Collector) Interval() time.Duration { return c.interval }

// Add starts sampling src. It primes src at once, on the caller's
// goroutine, so that the first round after it already yields a rate; a
// remote source makes Add wait for one scrape. It is safe while the
// collector runs.
func (c *Collector) Add(src Source) {
	_, _, err := src.Sample(time.Now())
	c.mu.Lock()
	delete(c.warned, src.Name())
	c.sources = append(c.sources, src)
	c.mu.Unlock()
	if err != nil {
		c.warn(src.Name(), err)
	}
}

// Remove stops sampling the sources called name. It is safe while the
// collector runs; a round under way may still report them.
func (c *Collector) Remove(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := make([]Source, 0, len(c.sources))
	for _, s := range c.sources {
		if s.Name() != name {
			kept = append(kept, s)
		}
	}
	c.sources = kept
}

// Start runs the sampling loop until ctx ends or Stop is called. Calls
// after the first do nothing.
func (c *Collector) Start(ctx context.Context) {
	c.startOnce.Do(func() {
		c.mu.Lock()
		c.started = true
		c.mu.Unlock()
		go c.loop(ctx)
	})
}

func (c *Collector) loop(ctx context.Context) {
	defer close(c.done)
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.stop:
			return
		case <-t.C:
			c.round()
		}
	}
}

// Stop ends the loop and takes one last round, so the tail of a run since
// the last tick is not lost (a source drops it if it is too short to give
// a rate, see minSpan). It waits for the loop's round under way, and is
// idempotent.
func (c *Collector) Stop() {
	c.stopOnce.Do(func() {
		close(c.stop)
		c.mu.Lock()
		started := c.started
		c.mu.Unlock()
		if started {
			<-c.done
		}
		c.round()
	})
}

// round samples every source, in parallel so that a slow remote host
// does not delay the reading of the others, and hands the samples, in
// the order the sources were added, to the sink.
func (c *Collector) round() {
	c.mu.Lock()
	srcs := append([]Source(nil), c.sources...)
	c.mu.Unlock()
	type result struct {
		s   Sample
		ok  bool
		err error
	}
	res := make([]result, len(srcs))
	var wg sync.WaitGroup
	for i, src := range srcs {
		wg.Go(func() {
			s, ok, err := src.Sample(time.Now())
			res[i] = result{s, ok, err}
		})
	}
	wg.Wait()
	var out []Sample
	for i, r := range res {
		switch {
		case r.err != nil:
			c.warn(srcs[i].Name(), r.err)
		case r.ok:
			out = append(out, r.s)
		}
	}
	if len(out) > 0 && c.sink != nil {
		c.sink(out)
	}
}

// warn logs a source's failure, once.
func (c *Collector) warn(name string, err error) {
	c.mu.Lock()
	first := !c.warned[name]
	c.warned[name] = true
	c.mu.Unlock()
	if first && c.Logger != nil {
		c.Logger.Warn("system metrics: source failed; skipping it while it fails", "source", name, "err", err)
	}
}
