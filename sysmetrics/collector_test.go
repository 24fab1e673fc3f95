package sysmetrics

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testkit"
)

// fakeSource counts its calls; after the priming call every call yields
// a sample, or err when it is set.
type fakeSource struct {
	name string
	mu   sync.Mutex
	n    int
	err  error
}

func (f *fakeSource) Name() string { return f.name }
func (f *fakeSource) Role() string { return RoleDatabase }
func (f *fakeSource) Sample(now time.Time) (Sample, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	if f.err != nil {
		return Sample{}, false, f.err
	}
	return Sample{Time: now, Host: f.name, CPUPercent: float64(f.n)}, f.n > 1, nil
}

func (f *fakeSource) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// recorder is a sink that keeps every round.
type recorder struct {
	mu     sync.Mutex
	rounds [][]Sample
}

func (r *recorder) sink(ss []Sample) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rounds = append(r.rounds, ss)
}

// count returns how many samples of host the sink got, and in how many
// rounds.
func (r *recorder) count(host string) (samples, rounds int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, round := range r.rounds {
		for _, s := range round {
			if s.Host == host {
				samples++
			}
		}
	}
	return samples, len(r.rounds)
}

func TestCollectorRounds(t *testing.T) {
	var rec recorder
	var logs testkit.Buffer
	c := NewCollector(20*time.Millisecond, rec.sink)
	c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	a := &fakeSource{name: "a"}
	bad := &fakeSource{name: "bad", err: errors.New("process 42 is gone")}
	c.Add(a)
	c.Add(bad)
	require.Equal(t, 1, a.calls(), "Add primes")
	c.Start(context.Background())
	c.Start(context.Background()) // no second loop
	count := func(host string) int { n, _ := rec.count(host); return n }
	require.Eventually(t, func() bool { return count("a") >= 3 }, 10*time.Second, 5*time.Millisecond,
		"rounds go on although a source fails")
	require.Positive(t, bad.calls()-1, "the failing source is still tried")

	// Add while running: b shows up.
	b := &fakeSource{name: "b"}
	c.Add(b)
	require.Eventually(t, func() bool { return count("b") >= 2 }, 10*time.Second, 5*time.Millisecond)

	// Remove while running: a round under way may still sample a, the
	// rounds after it no longer do.
	c.Remove("a")
	removed := a.calls()
	require.Eventually(t, func() bool { return count("b") >= 6 }, 10*time.Second, 5*time.Millisecond)
	require.LessOrEqual(t, a.calls(), removed+1, "a removed source is no longer sampled")

	c.Stop()
	c.Stop()
	require.Zero(t, count("bad"))
	require.Equal(t, 1, strings.Count(logs.String(), "source failed"), "a failing source is logged once: %s", logs.String())
	require.Contains(t, logs.String(), "source=bad")
	require.Contains(t, logs.String(), "process 42 is gone")

	// Added again, a source that fails is worth a new warning.
	c.Add(bad)
	require.Equal(t, 2, strings.Count(logs.String(), "source failed"))
}

func TestCollectorStopTakesALastRound(t *testing.T) {
	var rec recorder
	// An interval so long that no tick comes: every round is Stop's.
	c := NewCollector(time.Hour, rec.sink)
	a, b := &fakeSource{name: "a"}, &fakeSource{name: "b"}
	c.Add(a)
	c.Add(b)
	c.Start(context.Background())
	c.Stop()
	c.Stop()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.Len(t, rec.rounds, 1, "one last round, once")
	require.Len(t, rec.rounds[0], 2)
	require.Equal(t, "a", rec.rounds[0][0].Host, "in the order the sources were added")
	require.Equal(t, "b", rec.rounds[0][1].Host)
}

func TestCollectorStopWithoutStart(t *testing.T) {
	var rec recorder
	c := NewCollector(0, rec.sink)
	require.Equal(t, time.Second, c.interval, "0 means one second")
	c.Add(&fakeSource{name: "a"})
	done := make(chan struct{})
	go func() { c.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Stop without Start hangs")
	}
	_, rounds := rec.count("a")
	require.Equal(t, 1, rounds)
}

func TestCollectorContextEndsTheLoop(t *testing.T) {
	var rec recorder
	c := NewCollector(10*time.Millisecond, rec.sink)
	c.Add(&fakeSource{name: "a"})
	ctx, cancel := context.WithCancel(context.Background())
	c.Start(ctx)
	require.Eventually(t, func() bool { n, _ := rec.count("a"); return n >= 1 }, 10*time.Second, 5*time.Millisecond)
	cancel()
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the loop outlived its context")
	}
	_, before := rec.count("a")
	c.Stop()
	_, after := rec.count("a")
	require.Equal(t, before+1, after, "Stop still takes the last round")
}
