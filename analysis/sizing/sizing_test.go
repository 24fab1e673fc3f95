package sizing

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// amdahl is a capacity curve with a known answer: 10,000 ops/s a core,
// 5% serial.
func amdahl(cores float64) float64 { return 10000 * cores / (1 + 0.05*(cores-1)) }

// measuredSizes are four sizes on the curve, a little noisy, priced at
// $20 a core a month.
func measuredSizes() []Measured {
	var ms []Measured
	for i, c := range []float64{0.25, 0.5, 0.75, 1} {
		r := amdahl(c) * (1 + 0.01*float64(i%2*2-1))
		ms = append(ms, Measured{Label: label(c), Cores: c, Rate: r, Ceiling: r * 1.04, Monthly: 20 * c})
	}
	return ms
}

func label(c float64) string {
	return map[float64]string{0.25: "250m", 0.5: "500m", 0.75: "750m", 1: "1cpu", 2: "2cpu", 4: "4cpu"}[c]
}

func TestMeasuredServesAtTheNeedNotBelow(t *testing.T) {
	ms := measuredSizes()
	at := ms[1].Rate // 500m's rate met
	for _, c := range []struct {
		throughput, headroom float64
		want                 string
	}{
		{at, 0, "500m"},                 // exactly the rate met: serves
		{at * 1.001, 0, "750m"},         // a little more: the next size
		{at / 1.3, 0.3, "500m"},         // headroom: 1.3 x throughput = the rate met
		{at / 1.3 * 1.001, 0.3, "750m"}, // past it
	} {
		a, err := Decide(ms, nil, Ask{Throughput: c.throughput, Headroom: c.headroom})
		require.NoError(t, err)
		require.GreaterOrEqual(t, a.Choice, 0)
		got := a.Options[a.Choice]
		require.Equal(t, c.want, got.Label, "%+v: %s", c, got.Why)
		require.Equal(t, SourceMeasured, got.Source)
		require.InDelta(t, c.throughput*(1+c.headroom), a.Need, 1e-6)
		// The next cheaper size is named, and why it fails.
		require.Equal(t, a.Choice-1, a.Cheaper)
		require.False(t, a.Options[a.Cheaper].Serves)
		require.Contains(t, a.Options[a.Cheaper].Why, "below the")
		// Cost per million operations at the asked throughput.
		require.InEpsilon(t, got.Monthly/(c.throughput*730*3600)*1e6, got.PerMillion, 1e-9)
	}
}

func TestRefusedSizesAreNotUsed(t *testing.T) {
	ms := measuredSizes()
	ms[1].Refusal = "host-saturated: the machine, not the database, set the figure"
	a, err := Decide(ms, nil, Ask{Throughput: ms[0].Rate * 1.01})
	require.NoError(t, err)
	require.Len(t, a.Refused, 1)
	require.Equal(t, "500m", a.Refused[0].Label)
	require.Equal(t, "750m", a.Options[a.Choice].Label, "the refused 500m is skipped, not chosen")
	for _, o := range a.Options {
		require.NotEqual(t, "500m", o.Label)
	}
	// All refused: no answer, and it says so.
	for i := range ms {
		ms[i].Refusal = "not steady"
	}
	a, err = Decide(ms, nil, Ask{Throughput: 1})
	require.NoError(t, err)
	require.Equal(t, -1, a.Choice)
	require.Equal(t, CannotJudge, a.Outcome)
	require.Equal(t, "every size measured was refused (250m: not steady; 500m: not steady; 750m: not steady; 1cpu: not steady)", a.Reason)
	require.Contains(t, a.Sentence(&Group{Database: "pg", Workload: "c", Objective: "p99 <= 5 ms"}), "pg: could not judge which size serves 1 ops/s of workload c at p99 <= 5 ms: every size measured was refused (250m: not steady;")
}

// TestNoAnswerSaysWhy: with no size serving, "above every size" only
// when every size considered is below the need by its whole evidence;
// a larger size refused, a prediction that straddles the need or one
// that cannot be made is "could not judge", naming it.
func TestNoAnswerSaysWhy(t *testing.T) {
	g := &Group{Database: "pg", Workload: "c", Objective: "p99 <= 5 ms"}
	ms := measuredSizes()
	top := ms[3].Rate

	// Measured only, every one below: above every size; at the largest's
	// rate it serves (both sides).
	a, err := Decide(ms, nil, Ask{Throughput: top * 1.001})
	require.NoError(t, err)
	require.Equal(t, AboveEvery, a.Outcome)
	require.Contains(t, a.Sentence(g), "no size serves")
	require.Contains(t, a.Sentence(g), "the need is above every size considered: the largest, 1cpu, measured: the highest rate met was")
	a, err = Decide(ms, nil, Ask{Throughput: top})
	require.NoError(t, err)
	require.Equal(t, Answered, a.Outcome)
	require.Empty(t, a.Reason)

	// The largest refused: could not judge, naming it; a smaller one
	// refused does not stop "above every size".
	refusedTop := measuredSizes()
	refusedTop[3].Refusal = "probe pg.c.p3 was host-saturated"
	a, err = Decide(refusedTop, nil, Ask{Throughput: top * 1.5})
	require.NoError(t, err)
	require.Equal(t, CannotJudge, a.Outcome)
	require.Equal(t, "1cpu, larger than every size usable, was refused: probe pg.c.p3 was host-saturated", a.Reason)
	refusedSmall := measuredSizes()
	refusedSmall[1].Refusal = "not steady"
	a, err = Decide(refusedSmall, nil, Ask{Throughput: top * 1.001})
	require.NoError(t, err)
	require.Equal(t, AboveEvery, a.Outcome, a.Reason)

	// Predicted: an interval wholly below the need is above every size;
	// one that reaches it cannot be judged.
	cands := []Candidate{{Label: "2cpu", Cores: 2, Monthly: 40}}
	a, err = Decide(ms, cands, Ask{Throughput: amdahl(2) * 3})
	require.NoError(t, err)
	require.Equal(t, AboveEvery, a.Outcome, a.Reason)
	require.Contains(t, a.Reason, "the largest, 2cpu, extrapolated")
	a, err = Decide(ms, cands, Ask{Throughput: amdahl(2) * 1.001})
	require.NoError(t, err)
	require.Equal(t, CannotJudge, a.Outcome, a.Reason)
	require.Contains(t, a.Reason, "2cpu extrapolated")

	// A search that ended with no rate above its answer missed (its
	// database failed there): the size may serve more; with a miss
	// above, it is above every size (both sides).
	open := measuredSizes()
	open[3].Ceiling = 0
	a, err = Decide(open, nil, Ask{Throughput: top * 1.5})
	require.NoError(t, err)
	require.Equal(t, CannotJudge, a.Outcome)
	require.Contains(t, a.Reason, "1cpu met ")
	require.Contains(t, a.Reason, "and no rate above it missed: its capacity may be higher")
	a, err = Decide(measuredSizes(), nil, Ask{Throughput: top * 1.5})
	require.NoError(t, err)
	require.Equal(t, AboveEvery, a.Outcome)

	// Fewer than three sizes: the larger candidates cannot be predicted.
	a, err = Decide(ms[:2], []Candidate{{Label: "1cpu", Cores: 1}, {Label: "2cpu", Cores: 2}}, Ask{Throughput: top * 2})
	require.NoError(t, err)
	require.Equal(t, CannotJudge, a.Outcome)
	require.Equal(t, "1cpu, 2cpu not measured, and fewer than three sizes measured (2 usable) to predict them from: measure one", a.Reason)
}

func TestPredictedServesOnlyWhenTheIntervalClearsTheNeed(t *testing.T) {
	ms := measuredSizes()
	cands := []Candidate{{Label: "2cpu", Cores: 2, Monthly: 40}, {Label: "4cpu", Cores: 4, Monthly: 80}}
	a, err := Decide(ms, cands, Ask{Throughput: 1})
	require.NoError(t, err)
	require.NotNil(t, a.Fit)
	var two Option
	for _, o := range a.Options {
		if o.Label == "2cpu" {
			two = o
		}
	}
	require.Equal(t, SourceExtrapolated, two.Source)
	require.Less(t, two.Lo, two.Capacity)
	require.Greater(t, two.Hi, two.Capacity)
	require.InEpsilon(t, amdahl(2), two.Capacity, 0.1, "the fit recovers the curve")

	// Need just under the interval's low end: serves; just over it (but
	// under the fitted value): straddles, so not chosen.
	for _, c := range []struct {
		need   float64
		serves bool
	}{{two.Lo * 0.999, true}, {two.Lo * 1.001, false}} {
		a, err := Decide(ms, cands, Ask{Throughput: c.need})
		require.NoError(t, err)
		var o Option
		for _, x := range a.Options {
			if x.Label == "2cpu" {
				o = x
			}
		}
		require.Equal(t, c.serves, o.Serves, "need %v: %s", c.need, o.Why)
		if c.serves {
			require.Equal(t, "2cpu", a.Options[a.Choice].Label)
		} else {
			require.Contains(t, o.Why, "straddles")
			require.Equal(t, "4cpu", a.Options[a.Choice].Label, "the next size whose interval clears the need")
		}
	}

	// Two sizes measured: no fit, so nothing predicted serves.
	a, err = Decide(ms[:2], cands, Ask{Throughput: 1e5})
	require.NoError(t, err)
	require.Nil(t, a.Fit)
	require.Equal(t, -1, a.Choice)
	require.Contains(t, a.Options[len(a.Options)-1].Why, "fewer than three sizes measured")
}

func TestHeldOutError(t *testing.T) {
	a, err := Decide(measuredSizes(), nil, Ask{Throughput: 1})
	require.NoError(t, err)
	require.Len(t, a.HeldOut, 4)
	for _, h := range a.HeldOut {
		require.InDelta(t, (h.Predicted-h.Measured)/h.Measured, h.Error, 1e-12)
	}
	require.Less(t, a.MaxHeldOut, 0.1, "1%% noise on a smooth curve: %+v", a.HeldOut)
	require.Positive(t, a.MaxHeldOut)
}

func TestOrderWithoutPrices(t *testing.T) {
	ms := measuredSizes()
	ms[3].Monthly = math.NaN()
	a, err := Decide(ms, nil, Ask{Throughput: ms[2].Rate})
	require.NoError(t, err)
	require.Equal(t, "750m", a.Options[a.Choice].Label)
	require.True(t, math.IsNaN(a.Options[3].PerMillion))
	require.Contains(t, a.Notes[0], "ordered by cores")
	// Priced: the cheaper size first even when it has more cores.
	ms = measuredSizes()
	ms[3].Monthly = 1
	a, err = Decide(ms, nil, Ask{Throughput: ms[0].Rate})
	require.NoError(t, err)
	require.Equal(t, "1cpu", a.Options[0].Label)
	require.Equal(t, "1cpu", a.Options[a.Choice].Label)
}

func TestBadAsk(t *testing.T) {
	ms := measuredSizes()
	for _, ask := range []Ask{{Throughput: 0}, {Throughput: math.Inf(1)}, {Throughput: math.NaN()},
		{Throughput: 1, Headroom: -0.1}, {Throughput: 1, Headroom: math.NaN()}, {Throughput: 1, Level: 1}} {
		_, err := Decide(ms, nil, ask)
		require.Error(t, err, "%+v", ask)
	}
	_, err := Decide(nil, nil, Ask{Throughput: 1})
	require.ErrorContains(t, err, "no sizes measured")
}

// TestPredictionsNeedASmallHeldOutError: a fit that mispredicts a size
// measured by more than MaxHeldOut chooses no size it did not measure.
func TestPredictionsNeedASmallHeldOutError(t *testing.T) {
	cands := []Candidate{{Label: "2cpu", Cores: 2, Monthly: 40}}
	for _, c := range []struct {
		jitter float64
		chosen bool
	}{{0.01, true}, {0.2, false}} {
		ms := measuredSizes()
		for i := range ms {
			ms[i].Rate = amdahl(ms[i].Cores) * (1 + c.jitter*float64(i%2*2-1))
		}
		a, err := Decide(ms, cands, Ask{Throughput: ms[3].Rate * 1.05})
		require.NoError(t, err)
		t.Logf("jitter %.0f%%: held-out error up to %.1f%%", 100*c.jitter, 100*a.MaxHeldOut)
		if c.chosen {
			require.LessOrEqual(t, a.MaxHeldOut, MaxHeldOut)
			require.GreaterOrEqual(t, a.Choice, 0)
			require.Equal(t, "2cpu", a.Options[a.Choice].Label)
		} else {
			require.Greater(t, a.MaxHeldOut, MaxHeldOut)
			require.Equal(t, -1, a.Choice, "%+v", a.Options)
			require.Contains(t, a.Options[len(a.Options)-1].Why, "mispredicted a size measured")
			require.Contains(t, a.Notes[len(a.Notes)-1], "never chosen")
		}
	}
}

// TestPredict: the rate a search of a new size starts from, by how many
// sizes were measured before it.
func TestPredict(t *testing.T) {
	ms := measuredSizes()
	e, spread, model := Predict(nil, 1)
	require.Zero(t, e)
	e, spread, model = Predict(ms[:1], 1)
	require.Equal(t, "linear", model)
	require.InDelta(t, 4*ms[0].Rate, e, 1e-9)
	require.Equal(t, 0.3, spread)
	e, spread, model = Predict(ms[:2], 1)
	require.Equal(t, "amdahl", model)
	require.Equal(t, 0.2, spread, "a curve through both points has no interval")
	require.InEpsilon(t, amdahl(1), e, 0.15)
	e, spread, _ = Predict(ms, 2)
	require.InEpsilon(t, amdahl(2), e, 0.1)
	require.GreaterOrEqual(t, spread, 0.05)
	require.LessOrEqual(t, spread, 0.3)
	e, _, _ = Predict(ms, 0)
	require.Zero(t, e)
}

// TestAnswerCountsInItsUnit: a TPC-C group's answer says transactions,
// every other says operations.
func TestAnswerCountsInItsUnit(t *testing.T) {
	ms := measuredSizes()
	g := &Group{Database: "postgres", Workload: "tpcc", Objective: "p99 <= 50 ms"}
	for unit, want := range map[results.Unit][]string{
		results.UnitTransactions: {"tx/s of workload tpcc", "tx/s met it when measured", "per million transactions)", "tx/s, below the"},
		"":                       {"ops/s of workload tpcc", "ops/s met it when measured", "per million operations)", "ops/s, below the"},
	} {
		a, err := Decide(ms, nil, Ask{Throughput: ms[1].Rate, Unit: unit})
		require.NoError(t, err)
		s := a.Sentence(g)
		for _, w := range want {
			require.Contains(t, s, w, unit)
		}
	}
}

// TestMeasuredWithNoRate: a size whose search met no rate says whether
// one missed (no rate met) or none could be judged (every probe unfair
// or failed: nothing is known of the size).
func TestMeasuredWithNoRate(t *testing.T) {
	a := &Answer{Need: 1000, Ask: Ask{Throughput: 1000}}
	require.Equal(t, "no rate met the objective", a.measured(Measured{Label: "1cpu", Cores: 1, Ceiling: 500}).Why)
	require.Equal(t, "no rate could be judged: no probe was fair", a.measured(Measured{Label: "1cpu", Cores: 1}).Why)
}
