package sysmetrics

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Collector samples its sources every interval on its own goroutine and
// hands each round's samples to a sink.
type Collector struct {
	interval time.Duration
	sink     func([]Sample)
	// Logger receives one warning per failing source; nil discards.
	Logger *slog.Logger

	mu        sync.Mutex
	sources   []Source
	warned    map[string]bool
	lastRound time.Time

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// NewCollector returns a collector; interval <= 0 means one second.
func NewCollector(interval time.Duration, sink func([]Sample)) *Collector {
	if interval <= 0 {
		interval = time.Second
	}
	return &Collector{interval: interval, sink: sink, warned: map[string]bool{},
		stop: make(chan struct{}), done: make(chan struct{})}
}

// Add starts sampling src from the next round; its first sample primes.
// It primes at once, so the first rates cover the very next interval.
func (c *Collector) Add(src Source) {
	_, _, _ = src.Sample(time.Now()) // priming: an error shows again next round
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sources = append(c.sources, src)
}

// Remove stops sampling the source called name.
func (c *Collector) Remove(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := c.sources[:0]
	for _, s := range c.sources {
		if s.Name() != name {
			kept = append(kept, s)
		}
	}
	c.sources = kept
}

// Start runs the sampling loop until ctx ends or Stop is called.
func (c *Collector) Start(ctx context.Context) {
	go func() {
		defer close(c.done)
		t := time.NewTicker(c.interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-c.stop:
				return
			case now := <-t.C:
				c.round(now)
			}
		}
	}()
}

// Stop ends the loop and takes one last sample, so the tail of a run is
// not lost, unless the last round was under half an interval ago: rates
// over a few milliseconds are noise (a 4 KiB write in 1 ms reads as
// 4 MB/s). It is idempotent.
func (c *Collector) Stop() {
	c.stopOnce.Do(func() {
		close(c.stop)
		<-c.done
		c.mu.Lock()
		last := c.lastRound
		c.mu.Unlock()
		if time.Since(last) >= c.interval/2 {
			c.round(time.Now())
		}
	})
}

// round samples every source once.
func (c *Collector) round(now time.Time) {
	c.mu.Lock()
	srcs := append([]Source(nil), c.sources...)
	c.lastRound = now
	c.mu.Unlock()
	var out []Sample
	for _, s := range srcs {
		smp, ok, err := s.Sample(now)
		if err != nil {
			c.warn(s.Name(), err)
			continue
		}
		if ok {
			out = append(out, smp)
		}
	}
	if len(out) > 0 && c.sink != nil {
		c.sink(out)
	}
}

func (c *Collector) warn(name string, err error) {
	c.mu.Lock()
	first := !c.warned[name]
	c.warned[name] = true
	c.mu.Unlock()
	if first && c.Logger != nil {
		c.Logger.Warn("system metrics: source failed; skipping it while it fails", "source", name, "err", err)
	}
}
