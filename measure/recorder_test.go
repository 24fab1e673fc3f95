package measure_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/measure"
)

func TestRecorderCollectsEverythingOnce(t *testing.T) {
	series := []string{"READ", "UPDATE"}
	r, err := measure.NewRecorder(measure.Options{Series: series, Workers: 16, Stripes: 4, Intended: true})
	require.NoError(t, err)
	const perWorker = 20000
	var wg sync.WaitGroup
	stop := make(chan struct{})
	total := measure.NewResults(series, true)
	iv := measure.NewResults(series, true)
	// Collect concurrently with recording: nothing may be lost or counted
	// twice across the swaps.
	var cwg sync.WaitGroup
	cwg.Add(1)
	go func() {
		defer cwg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				r.Collect(iv)
				total.Merge(iv)
				iv.Reset()
			}
		}
	}()
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			h := r.Handle(w)
			for i := 0; i < perWorker; i++ {
				if i%100 == 0 {
					h.RecordError(1, "TIMEOUT", 5_000_000, 0)
					continue
				}
				var f measure.Flags
				if i%10 == 0 {
					f = measure.Late
				}
				h.Record(i%2, int64(1000+i), int64(2000+i), f)
			}
		}(w)
	}
	wg.Wait()
	close(stop)
	cwg.Wait()
	r.Collect(iv)
	total.Merge(iv)

	ok := total[0].OK() + total[1].OK()
	errs := total[1].Errors["TIMEOUT"]
	require.Equal(t, int64(16*perWorker/100), errs)
	require.Equal(t, int64(16*perWorker)-errs, ok)
	require.Equal(t, int64(16*perWorker), total.TotalCounted())
	require.Equal(t, total[0].Service.TotalCount(), total[0].Response.TotalCount())
	// Every 10th record is late; i%100==0 ones are errors, not late.
	require.Equal(t, int64(16*(perWorker/10-perWorker/100)), total[0].Late+total[1].Late)
	require.Equal(t, errs, total[1].ErrorLatency.TotalCount())
}

// TestCutEndsTheInterval: what is recorded after a Cut belongs to the
// interval after the one Collect then returns, in every stripe, and a
// second Cut before that Collect moves nothing.
func TestCutEndsTheInterval(t *testing.T) {
	series := []string{"READ"}
	r, err := measure.NewRecorder(measure.Options{Series: series, Workers: 4, Stripes: 4})
	require.NoError(t, err)
	record := func(n int) {
		for w := range 4 {
			for range n {
				r.Handle(w).Record(0, 1000, 1000, 0)
			}
		}
	}
	iv := measure.NewResults(series, false)
	record(3)
	r.Cut()
	record(5)
	r.Cut()
	r.Collect(iv)
	require.EqualValues(t, 4*3, iv.TotalCounted(), "only what was recorded before the first cut")
	iv.Reset()
	r.Collect(iv)
	require.EqualValues(t, 4*5, iv.TotalCounted(), "what came after it, in the next interval")
	iv.Reset()
	r.Collect(iv)
	require.Zero(t, iv.TotalCounted())
}

func TestSubOperationsNotCounted(t *testing.T) {
	r, err := measure.NewRecorder(measure.Options{Series: []string{"READ", "RMW"}, Workers: 1})
	require.NoError(t, err)
	h := r.Handle(0)
	h.Record(0, 10, 10, measure.Sub)
	h.Record(1, 20, 20, 0)
	res := measure.NewResults(r.Series(), false)
	r.Collect(res)
	require.Equal(t, int64(1), res.TotalCounted())
	require.Equal(t, int64(1), res[0].OK(), "sub-operations are still measured")
	require.Nil(t, res[0].Response, "closed loop keeps no response histogram")
}

func TestClampsOutOfRange(t *testing.T) {
	r, err := measure.NewRecorder(measure.Options{Series: []string{"READ"}, Workers: 1})
	require.NoError(t, err)
	h := r.Handle(0)
	h.Record(0, -5, -5, 0)
	h.Record(0, int64(3*time.Hour), int64(3*time.Hour), 0)
	res := measure.NewResults(r.Series(), false)
	r.Collect(res)
	require.Equal(t, int64(2), res[0].OK())
	require.InDelta(t, float64(time.Hour), float64(res[0].Service.Max()), float64(time.Hour)/500)
}

func TestNewRecorderNeedsSeries(t *testing.T) {
	_, err := measure.NewRecorder(measure.Options{})
	require.ErrorContains(t, err, "no series")
}

func TestStatsOf(t *testing.T) {
	h := measure.NewHistogram()
	for v := int64(1); v <= 100000; v++ {
		require.NoError(t, h.RecordValue(v*1000)) // 1µs..100ms
	}
	s := measure.StatsOf(h)
	require.Equal(t, int64(100000), s.Count)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"min", s.Min, 1}, {"p50", s.P50, 50000}, {"p90", s.P90, 90000}, {"p99", s.P99, 99000},
		{"p99.9", s.P999, 99900}, {"max", s.Max, 100000}, {"mean", s.Mean, 50000.5},
	} {
		require.InEpsilon(t, c.want, c.got, 0.001, c.name)
	}
	require.Equal(t, measure.Stats{}, measure.StatsOf(nil))
}

func BenchmarkRecord(b *testing.B) {
	for _, intended := range []bool{false, true} {
		name := "loop=closed"
		if intended {
			name = "loop=open"
		}
		b.Run(name, func(b *testing.B) {
			r, _ := measure.NewRecorder(measure.Options{Series: []string{"READ"}, Workers: 1, Intended: intended})
			h := r.Handle(0)
			b.ReportAllocs()
			v := int64(0)
			for b.Loop() {
				v++
				h.Record(0, 1000+v&1023, 2000+v&1023, 0)
			}
		})
	}
}
