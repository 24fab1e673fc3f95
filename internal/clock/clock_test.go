package clock

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTimersNeverWakeEarly: a sleep never ends before the time asked for,
// precise or coarse, short or long.
func TestTimersNeverWakeEarly(t *testing.T) {
	clk := NewReal()
	for _, precise := range []bool{true, false} {
		tm, err := clk.NewTimer(precise)
		require.NoError(t, err)
		for _, d := range []time.Duration{0, 5 * time.Microsecond, 60 * time.Microsecond, 300 * time.Microsecond, 3 * time.Millisecond} {
			for range 20 {
				at := clk.Now() + int64(d)
				require.False(t, tm.SleepUntil(at))
				require.GreaterOrEqual(t, clk.Now(), at, "precise=%v, %s", precise, d)
			}
		}
		require.NoError(t, tm.Close())
	}
}

// TestStopEndsASleep: Stop from another goroutine ends a long sleep at
// once, and every later sleep returns at once.
func TestStopEndsASleep(t *testing.T) {
	clk := NewReal()
	for _, precise := range []bool{true, false} {
		tm, err := clk.NewTimer(precise)
		require.NoError(t, err)
		var wg sync.WaitGroup
		wg.Add(1)
		start := time.Now()
		go func() {
			defer wg.Done()
			require.True(t, tm.SleepUntil(clk.Now()+int64(time.Hour)))
		}()
		time.Sleep(20 * time.Millisecond)
		tm.Stop()
		wg.Wait()
		require.Less(t, time.Since(start), 10*time.Second, "precise=%v", precise)
		require.True(t, tm.SleepUntil(clk.Now()+int64(time.Hour)), "stopped for good")
		tm.Stop() // twice is fine
		require.NoError(t, tm.Close())
	}
}

// TestWakeEstimateTracksAQuantile: fed wake-up latencies from a known
// distribution, the estimate settles where wakeQuantile of them fall
// below it, within its bounds.
func TestWakeEstimateTracksAQuantile(t *testing.T) {
	w := newWakeEstimate()
	r := rand.New(rand.NewPCG(1, 2))
	// Uniform 10..110 µs: the 0.2 quantile is 30 µs, the 0.99 one 109.
	// Each estimate wanders a few steps around its quantile: their
	// means over many wake-ups are close to it.
	var lows, highs float64
	const n = 50_000
	for i := range 2 * n {
		w.observe(int64(10_000 + r.IntN(100_000)))
		if i >= n {
			lows += float64(w.low.Load()) / n
			highs += float64(w.high.Load()) / n
		}
	}
	require.InDelta(t, 30_000, lows, 2_000)
	require.InDelta(t, 109_000, highs, 2_000)
	// Frequent sleeps (one every 200 µs: 5,000 a second) expire at the
	// low quantile and a little more; rare ones (one every 10 ms) at
	// the high one.
	sleepEvery := func(gap int64) {
		for i := range int64(1000) {
			w.sleeping(1_000_000_000 + i*gap)
		}
	}
	sleepEvery(200_000)
	require.InDelta(t, float64(w.low.Load())+spinBudget*200_000, w.early(), 500)
	require.InEpsilon(t, 5_000, w.rate.Load(), 0.01, "sleeps a second, over the last window")
	sleepEvery(10_000_000)
	require.Equal(t, w.high.Load(), w.early())
	// Wake-ups that all come a millisecond late are capped: the timer
	// never spins for longer than wakeMax.
	for range 50_000 {
		w.observe(int64(time.Millisecond))
	}
	require.Equal(t, int64(wakeMax), w.early())
	// And immediate ones bring it to within a step of zero.
	for range 50_000 {
		w.observe(0)
	}
	require.LessOrEqual(t, w.early(), int64(wakeStep))
}

// TestDispatchedSleeps: when sleeps are frequent enough to go to the
// dispatcher, none ends early, Stop ends a dispatched sleep, and the
// dispatcher goes away once idle.
func TestDispatchedSleeps(t *testing.T) {
	clk := NewReal()
	clk.wake.rate.Store(1_000_000)
	const sleepers = 32
	var wg sync.WaitGroup
	for range sleepers {
		tm, err := clk.NewTimer(true)
		require.NoError(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer tm.Close()
			for i := range 200 {
				at := clk.Now() + int64(50+i%7*40)*1000
				clk.wake.rate.Store(1_000_000)
				require.False(t, tm.SleepUntil(at))
				require.GreaterOrEqual(t, clk.Now(), at)
			}
		}()
	}
	wg.Wait()
	require.True(t, clk.disp.on.Load(), "the sleeps went to the dispatcher")

	tm, err := clk.NewTimer(true)
	require.NoError(t, err)
	done := make(chan bool)
	go func() {
		clk.wake.rate.Store(1_000_000)
		done <- tm.SleepUntil(clk.Now() + int64(time.Hour))
	}()
	time.Sleep(20 * time.Millisecond)
	tm.Stop()
	require.True(t, <-done, "Stop ends a dispatched sleep")
	require.Eventually(t, func() bool {
		clk.disp.mu.Lock()
		defer clk.disp.mu.Unlock()
		return !clk.disp.running
	}, 5*time.Second, 10*time.Millisecond, "the dispatcher goes away once idle")
}

// TestSleepsDoNotAllocate: a paced operation's wait allocates nothing,
// on a timerfd or through the dispatcher.
func TestSleepsDoNotAllocate(t *testing.T) {
	for _, dispatched := range []bool{false, true} {
		clk := NewReal()
		tm, err := clk.NewTimer(true)
		require.NoError(t, err)
		sleep := func() {
			if dispatched {
				clk.wake.rate.Store(1_000_000)
			} else {
				clk.wake.rate.Store(1)
			}
			tm.SleepUntil(clk.Now() + int64(300*time.Microsecond))
		}
		sleep() // the dispatcher's goroutine and first heap slot
		require.Zero(t, testing.AllocsPerRun(200, sleep), "dispatched=%v", dispatched)
		require.Equal(t, dispatched, clk.disp.on.Load())
		require.NoError(t, tm.Close())
	}
}
