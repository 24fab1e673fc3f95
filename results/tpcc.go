package results

import (
	"fmt"
	"strings"
	"time"

	"github.com/dbarena/dbarena/measure"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/workload/tpcc"
)

// The counters a TPC-C run's row holds besides the driver's: its scale
// and pacing, from which TPCCFiguresOf names its figures.
const (
	CounterTPCCWarehouses = core.TPCCWarehouses
	CounterTPCCSpecPaced  = "tpcc.spec_paced"
	CounterTPCCTimeScale  = core.TPCCTimeScale
	// CounterTPCCTerminals is the trial's terminals across its loaders
	// (a row's threads are each loader's).
	CounterTPCCTerminals = "tpcc.terminals"
	// CounterTPCCRampUp is the warm-up that ran before the measured
	// window, in seconds: spec-paced terminals start together, and their
	// first cycle is a ramp-up, not a steady rate.
	CounterTPCCRampUp = "tpcc.rampup_s"
	// CounterTPCCRolledBack counts the measured window's New-Orders
	// rolled back by their unused item, as the specification asks of
	// about 1% of them: done, and counted apart.
	CounterTPCCRolledBack = "tpcc.rolled_back"
	// CounterTPCCLoaded is the warehouses a TPC-C load loaded (with the
	// items): its row's figure, where an operations rate ("0 ops/s",
	// one warehouse in 4 s) says nothing.
	CounterTPCCLoaded = "tpcc.loaded_warehouses"
	// CounterLedgerDeclined counts the measured window's ledger
	// transfers declined because the payer would go below the floor.
	CounterLedgerDeclined = "ledger.declined"
)

// IsTPCCSetting reports whether a counter is one of a TPC-C trial's own
// settings above, not a count the driver kept.
func IsTPCCSetting(name string) bool {
	switch name {
	case CounterTPCCWarehouses, CounterTPCCSpecPaced, CounterTPCCTimeScale, CounterTPCCTerminals, CounterTPCCRampUp:
		return true
	}
	return false
}

// TPCCLoadOf says a TPC-C load's row in its own terms, "1 warehouse
// (and the items) in 4.6s", and false for any other row.
func TPCCLoadOf(t *Trial) (string, bool) {
	n, ok := t.Counters[CounterTPCCLoaded]
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%s (and the items) in %s", warehouses(int(n)), t.Duration.Round(100*time.Millisecond)), true
}

// CounterSection is the section of the YCSB text a row's counter
// belongs to: a TPC-C or ledger trial's own settings and counts are the
// workload's (TPCC, LEDGER), the others the driver's (DRIVER).
func CounterSection(name string) string {
	switch {
	case IsTPCCSetting(name) || strings.HasPrefix(name, "tpcc."):
		return "TPCC"
	case strings.HasPrefix(name, "ledger."):
		return "LEDGER"
	}
	return "DRIVER"
}

// TPCCFigures are a TPC-C run's figures, named as its mode allows: tpmC
// only for spec pacing at the specification's keying and think times;
// an unpaced run is transactions per second and never tpmC.
type TPCCFigures struct {
	Mode       tpcc.Mode `json:"mode"`
	Warehouses int       `json:"warehouses"`
	Terminals  int       `json:"terminals"`
	// TimeScale is the spec mode's scale of keying and think times.
	TimeScale float64 `json:"timescale,omitempty"`
	// TransactionsPerSecond counts the five transactions, completed
	// (a New-Order rolled back by its unused item included).
	TransactionsPerSecond float64 `json:"transactions_per_s"`
	NewOrdersPerMinute    float64 `json:"new_orders_per_minute"`
	// TpmC is NewOrdersPerMinute when it is tpmC (spec pacing at scale
	// 1), else 0.
	TpmC float64 `json:"tpmC,omitempty"`
	// Efficiency is, under spec pacing, the New-Orders a minute as a
	// percentage of the most the terminals' times allow (12.86 a
	// warehouse at scale 1, divided by the scale).
	Efficiency float64 `json:"efficiency_pct,omitempty"`
	// P90 is each transaction's 90th percentile against its limit
	// (clause 5.2.5.4), for the types that completed.
	P90 []P90Verdict `json:"p90"`
	// Unrated says why, under spec pacing, the New-Orders a minute are
	// no rate: a window shorter than one keying and think cycle holds
	// a terminal's one transaction or none ("" when rated).
	Unrated string `json:"unrated,omitempty"`
	// RampUp says why the window is not steady state: it began before
	// every terminal's first cycle ended ("" when it did not).
	RampUp string `json:"ramp_up,omitempty"`
	// RolledBack is how many of the window's New-Orders rolled back by
	// their unused item (-1: not counted, a result from before the
	// count); RolledBackPct their share of the New-Orders done.
	RolledBack    int64   `json:"new_orders_rolled_back"`
	RolledBackPct float64 `json:"new_orders_rolled_back_pct"`
}

// P90Verdict is one transaction's 90th percentile response time against
// the specification's limit.
type P90Verdict struct {
	Name       string  `json:"name"`
	P90Ms      float64 `json:"p90_ms"`
	LimitS     float64 `json:"limit_s"`
	Operations int64   `json:"operations"`
}

// Over says whether the percentile is above the limit.
func (v P90Verdict) Over() bool { return v.P90Ms > v.LimitS*1000 }

// OpOf is a measured series as a row's operation type: operations done
// and failed, and the latency of every one.
func OpOf(r *measure.SeriesResult) Op {
	return Op{Name: r.Name, Operations: r.OK() + r.ErrorCount(), Errors: r.ErrorCount(),
		Latency: LatencyOf(measure.StatsOf(r.Latency()))}
}

// TPCCFiguresOf names a TPC-C run's figures from its counters (the
// scale and pacing the trial recorded), the measured phase's length,
// its terminals (unless the counters count them) and its operation
// types; nil for a run that is not TPC-C's.
func TPCCFiguresOf(counters map[string]float64, d time.Duration, terminals int, ops []Op) *TPCCFigures {
	w, ok := counters[CounterTPCCWarehouses]
	if !ok || w < 1 || d <= 0 {
		return nil
	}
	if n, ok := counters[CounterTPCCTerminals]; ok {
		terminals = int(n)
	}
	f := &TPCCFigures{Mode: tpcc.Unpaced, Warehouses: int(w), Terminals: terminals}
	byName := map[string]Op{}
	for _, o := range ops {
		byName[o.Name] = o
	}
	var done int64
	for _, k := range tpcc.Kinds() {
		o, ok := byName[k.Name()]
		if !ok || o.Operations == 0 {
			continue // no p90 of nothing
		}
		done += o.Operations - o.Errors
		f.P90 = append(f.P90, P90Verdict{Name: o.Name, P90Ms: o.Latency.P90 / 1000, LimitS: k.P90Limit().Seconds(), Operations: o.Operations})
	}
	no := byName[tpcc.NewOrder.Name()]
	f.RolledBack = -1
	if n, ok := counters[CounterTPCCRolledBack]; ok {
		f.RolledBack = int64(n)
		if ok := no.Operations - no.Errors; ok > 0 {
			f.RolledBackPct = 100 * n / float64(ok)
		}
	}
	f.TransactionsPerSecond = float64(done) / d.Seconds()
	f.NewOrdersPerMinute = float64(no.Operations-no.Errors) / d.Minutes()
	if counters[CounterTPCCSpecPaced] == 1 {
		f.Mode = tpcc.Spec
		f.TimeScale = counters[CounterTPCCTimeScale]
		if f.TimeScale <= 0 {
			f.TimeScale = 1
		}
		cycle := tpcc.LongestCycle(f.TimeScale)
		ramp := time.Duration(counters[CounterTPCCRampUp] * float64(time.Second))
		switch {
		case d < cycle:
			f.Unrated = fmt.Sprintf("the measured window (%s) is shorter than one keying and think cycle (%s at this scale): a terminal completes one transaction in it, or none",
				d.Round(time.Millisecond), cycle.Round(time.Millisecond))
			f.NewOrdersPerMinute = 0
		case ramp < cycle:
			f.RampUp = fmt.Sprintf("the window began %s after the terminals started, within their first keying and think cycle (%s): a ramp-up, not steady state; warm up at least one cycle (run.warmup)",
				ramp.Round(time.Millisecond), cycle.Round(time.Millisecond))
		}
		if f.Unrated == "" {
			f.Efficiency = 100 * f.NewOrdersPerMinute / (tpcc.MaxTpmCPerWarehouse * w / f.TimeScale)
			if f.TimeScale == 1 && f.RampUp == "" {
				f.TpmC = f.NewOrdersPerMinute
			}
		}
	}
	return f
}

// String says the figures in one line, named by the mode.
func (f *TPCCFigures) String() string {
	var s string
	switch {
	case f.Unrated != "":
		s = fmt.Sprintf("TPC-C spec pacing: no New-Order rate: %s; %s, %d terminals", f.Unrated, warehouses(f.Warehouses), f.Terminals)
	case f.Mode == tpcc.Spec && f.TimeScale == 1 && f.RampUp != "":
		s = fmt.Sprintf("TPC-C spec pacing: %.1f New-Orders a minute, not tpmC: %s; %s, %d terminals",
			f.NewOrdersPerMinute, f.RampUp, warehouses(f.Warehouses), f.Terminals)
	case f.Mode == tpcc.Spec && f.TpmC > 0:
		s = fmt.Sprintf("TPC-C spec pacing: %.2f tpmC, efficiency %.1f%% (of %.2f a warehouse), %s, %d terminals",
			f.TpmC, f.Efficiency, tpcc.MaxTpmCPerWarehouse, warehouses(f.Warehouses), f.Terminals)
	case f.Mode == tpcc.Spec:
		s = fmt.Sprintf("TPC-C spec pacing at %g of its times: %.1f New-Orders a minute, efficiency %.1f%% of the scaled bound; not tpmC (the specification's times are 1), %s, %d terminals",
			f.TimeScale, f.NewOrdersPerMinute, f.Efficiency, warehouses(f.Warehouses), f.Terminals)
	default:
		s = fmt.Sprintf("TPC-C unpaced: %.1f transactions/s (%.1f New-Orders a minute; not tpmC: no keying or think times), %s, %d terminals",
			f.TransactionsPerSecond, f.NewOrdersPerMinute, warehouses(f.Warehouses), f.Terminals)
	}
	if f.Mode == tpcc.Spec && f.Terminals != tpcc.DistrictsPerWarehouse*f.Warehouses {
		s += fmt.Sprintf(" (the specification has %d terminals a warehouse)", tpcc.DistrictsPerWarehouse)
	}
	if f.Mode == tpcc.Spec && f.TimeScale != 1 && f.RampUp != "" {
		s += "; " + f.RampUp
	}
	if f.RolledBack >= 0 {
		s += fmt.Sprintf("; %d New-Orders rolled back by their unused item (%.1f%%, the specification's 1%%)", f.RolledBack, f.RolledBackPct)
	}
	var over []string
	newOrders := false
	for _, v := range f.P90 {
		newOrders = newOrders || v.Name == tpcc.NewOrder.Name()
		if v.Over() {
			over = append(over, fmt.Sprintf("%s p90 %.0f ms > %g s", v.Name, v.P90Ms, v.LimitS))
		}
	}
	switch {
	case len(f.P90) == 0:
		return s + "; no transaction completed: no p90 to judge"
	case len(over) > 0:
		s += "; p90 OVER THE LIMIT: " + strings.Join(over, ", ")
	default:
		s += "; every p90 within its limit"
	}
	if !newOrders {
		s += " (no New-Order completed: its p90 is not judged)"
	}
	return s
}

// Short is the figures a verdict line holds: the rate named by the
// mode, New-Order's p90 against its limit and the New-Orders rolled
// back ("52.0 tx/s, 1,404 New-Orders a minute (unpaced, not tpmC),
// New-Order p90 12.1 ms (limit 5 s), 1.0% rolled back").
func (f *TPCCFigures) Short() string {
	var s string
	switch {
	case f.Unrated != "":
		s = "no New-Order rate (a window shorter than one keying and think cycle)"
	case f.TpmC > 0:
		s = fmt.Sprintf("%.1f tpmC (efficiency %.1f%%)", f.TpmC, f.Efficiency)
	case f.Mode == tpcc.Spec:
		s = fmt.Sprintf("%.1f New-Orders a minute (spec pacing, not tpmC)", f.NewOrdersPerMinute)
	default:
		s = fmt.Sprintf("%.1f tx/s, %.1f New-Orders a minute (unpaced, not tpmC)", f.TransactionsPerSecond, f.NewOrdersPerMinute)
	}
	judged := false
	for _, v := range f.P90 {
		if v.Name != tpcc.NewOrder.Name() {
			continue
		}
		judged = true
		s += fmt.Sprintf(", New-Order p90 %.1f ms (limit %g s)", v.P90Ms, v.LimitS)
		if v.Over() {
			s += " OVER THE LIMIT"
		}
	}
	if !judged {
		s += ", no New-Order completed"
	}
	for _, v := range f.P90 {
		if v.Name != tpcc.NewOrder.Name() && v.Over() {
			s += fmt.Sprintf(", %s p90 %.0f ms OVER its %g s", v.Name, v.P90Ms, v.LimitS)
		}
	}
	if f.RolledBack >= 0 {
		s += fmt.Sprintf(", %.1f%% rolled back", f.RolledBackPct)
	}
	return s
}

// warehouses is "1 warehouse", "2 warehouses".
func warehouses(n int) string {
	if n == 1 {
		return "1 warehouse"
	}
	return fmt.Sprintf("%d warehouses", n)
}
