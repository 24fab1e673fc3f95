package results_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/workload/tpcc"
)

// TestTPCCFigures: tpmC is named only for spec pacing at the
// specification's times, an unpaced run is transactions per second, a
// scaled one neither; efficiency is against 12.86 a warehouse (scaled);
// each p90 is judged on both sides of its limit; a run that is not
// TPC-C's has no figures.
func TestTPCCFigures(t *testing.T) {
	ops := []results.Op{
		{Name: "NEW_ORDER", Operations: 130, Errors: 1, Latency: results.Latency{P90: 5_000_000}}, // 5 s: at the limit
		{Name: "PAYMENT", Operations: 120, Latency: results.Latency{P90: 5_000_001}},              // just over
		{Name: "STOCK_LEVEL", Operations: 11, Latency: results.Latency{P90: 19_000_000}},
	}
	spec := map[string]float64{results.CounterTPCCWarehouses: 1, results.CounterTPCCSpecPaced: 1, results.CounterTPCCTimeScale: 1,
		results.CounterTPCCRampUp: 30}
	f := results.TPCCFiguresOf(spec, 10*time.Minute, 10, ops)
	require.NotNil(t, f)
	require.Equal(t, tpcc.Spec, f.Mode)
	require.InDelta(t, 12.9, f.TpmC, 1e-9, "129 New-Orders done in 10 minutes")
	require.InDelta(t, 100*12.9/12.86, f.Efficiency, 1e-9)
	require.InDelta(t, 260.0/600, f.TransactionsPerSecond, 1e-9)
	require.Contains(t, f.String(), "12.90 tpmC, efficiency 100.3%")
	require.Contains(t, f.String(), "p90 OVER THE LIMIT: PAYMENT p90 5000 ms > 5 s")
	require.NotContains(t, f.String(), "NEW_ORDER p90", "at the limit is within it")
	require.NotContains(t, f.String(), "terminals a warehouse")
	require.Empty(t, f.RampUp)
	require.Empty(t, f.Unrated)

	scaled := map[string]float64{results.CounterTPCCWarehouses: 2, results.CounterTPCCSpecPaced: 1, results.CounterTPCCTimeScale: 0.01}
	f = results.TPCCFiguresOf(scaled, time.Minute, 4, ops[:1])
	require.Zero(t, f.TpmC)
	require.InDelta(t, 100*129/(12.86*2/0.01), f.Efficiency, 1e-9)
	require.Contains(t, f.String(), "not tpmC")
	require.Contains(t, f.String(), "(the specification has 10 terminals a warehouse)")
	require.Contains(t, f.String(), "every p90 within its limit")

	unpaced := map[string]float64{results.CounterTPCCWarehouses: 1, results.CounterTPCCSpecPaced: 0}
	f = results.TPCCFiguresOf(unpaced, 10*time.Second, 4, ops)
	require.Equal(t, tpcc.Unpaced, f.Mode)
	require.Zero(t, f.TpmC)
	require.Zero(t, f.Efficiency)
	require.Contains(t, f.String(), "TPC-C unpaced: 26.0 transactions/s")
	require.NotContains(t, f.String(), "tpmC,")

	loaders := map[string]float64{results.CounterTPCCWarehouses: 1, results.CounterTPCCSpecPaced: 1, results.CounterTPCCTimeScale: 1,
		results.CounterTPCCTerminals: 10}
	f = results.TPCCFiguresOf(loaders, time.Minute, 5, ops)
	require.Equal(t, 10, f.Terminals, "two loaders of 5: the counters count the trial's")
	require.NotContains(t, f.String(), "terminals a warehouse")

	require.Nil(t, results.TPCCFiguresOf(map[string]float64{"postgres.retries": 3}, time.Minute, 4, ops))
	require.Nil(t, results.TPCCFiguresOf(spec, 0, 4, ops), "nothing measured")
}

// TestTPCCFiguresAtTheirEdges: under spec pacing, New-Orders a minute
// are a rate only over a window of at least one keying and think cycle
// (30 s for New-Order at the specification's times), and tpmC only past
// a ramp-up of at least one cycle: both sides of each; a p90 is judged
// only over transactions that completed.
func TestTPCCFiguresAtTheirEdges(t *testing.T) {
	ops := []results.Op{{Name: "NEW_ORDER", Operations: 10, Latency: results.Latency{P90: 20_000}}}
	spec := func(ramp float64) map[string]float64 {
		return map[string]float64{results.CounterTPCCWarehouses: 1, results.CounterTPCCSpecPaced: 1, results.CounterTPCCTimeScale: 1,
			results.CounterTPCCRampUp: ramp}
	}
	require.Equal(t, 30*time.Second, tpcc.LongestCycle(1))

	// A window shorter than one cycle: no rate (it read "0.0 New-Orders
	// a minute, efficiency 0.0%"); one cycle long: a rate.
	f := results.TPCCFiguresOf(spec(60), 29*time.Second, 10, ops)
	require.Contains(t, f.String(), "no New-Order rate: the measured window (29s) is shorter than one keying and think cycle (30s at this scale)")
	require.Zero(t, f.TpmC)
	require.Zero(t, f.Efficiency)
	f = results.TPCCFiguresOf(spec(60), 30*time.Second, 10, ops)
	require.Empty(t, f.Unrated)
	require.InDelta(t, 20, f.TpmC, 1e-9)

	// tpmC past a ramp-up of one cycle; within it, New-Orders a minute
	// and why it is not tpmC (a 60 s run with no warm-up read "10.00
	// tpmC").
	f = results.TPCCFiguresOf(spec(0), time.Minute, 10, ops)
	require.Zero(t, f.TpmC)
	require.Contains(t, f.String(), "TPC-C spec pacing: 10.0 New-Orders a minute, not tpmC: the window began 0s after the terminals started, within their first keying and think cycle (30s)")
	f = results.TPCCFiguresOf(spec(29.9), time.Minute, 10, ops)
	require.Zero(t, f.TpmC)
	f = results.TPCCFiguresOf(spec(30), time.Minute, 10, ops)
	require.InDelta(t, 10, f.TpmC, 1e-9)
	require.Contains(t, f.String(), "10.00 tpmC")

	// Scaled times scale the cycle: 0.3 s at a hundredth.
	scaled := spec(0.3)
	scaled[results.CounterTPCCTimeScale] = 0.01
	f = results.TPCCFiguresOf(scaled, time.Second, 10, ops)
	require.Empty(t, f.Unrated)
	require.Empty(t, f.RampUp)
	scaled[results.CounterTPCCRampUp] = 0.1
	require.Contains(t, results.TPCCFiguresOf(scaled, time.Second, 10, ops).String(), "not tpmC (the specification's times are 1)")
	require.Contains(t, results.TPCCFiguresOf(scaled, time.Second, 10, ops).String(), "a ramp-up, not steady state")

	// No p90 of nothing: it read "every p90 within its limit" over no
	// orders.
	none := []results.Op{{Name: "NEW_ORDER"}, {Name: "PAYMENT"}}
	require.Contains(t, results.TPCCFiguresOf(spec(60), time.Minute, 10, none).String(), "no transaction completed: no p90 to judge")
	payments := []results.Op{{Name: "NEW_ORDER"}, {Name: "PAYMENT", Operations: 3, Latency: results.Latency{P90: 1000}}}
	out := results.TPCCFiguresOf(spec(60), time.Minute, 10, payments).String()
	require.Contains(t, out, "every p90 within its limit (no New-Order completed: its p90 is not judged)")
}
