package workload

import (
	"math"
	"strings"

	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/workload/tpcc"
)

// proportionTolerance allows for the decimal rounding of proportions such
// as 0.33/0.33/0.34 written in files.
const proportionTolerance = 1e-9

func oneOf(d Distribution, valid ...Distribution) bool {
	for _, v := range valid {
		if d == v {
			return true
		}
	}
	return false
}

func names(valid ...Distribution) string {
	s := make([]string, len(valid))
	for i, v := range valid {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

// Validate checks the configuration. Errors name the property, where it was
// set and what was expected.
func (c Config) Validate() error {
	if _, err := LookupKind(string(c.Kind)); err != nil {
		return c.errorf(core.WorkloadKind, "%v", err)
	}
	if err := c.checkOwnSettings(); err != nil {
		return err
	}
	if err := c.validateLimits(); err != nil {
		return err
	}
	if err := c.validateCounts(); err != nil {
		return err
	}
	if err := c.validateDistributions(); err != nil {
		return err
	}
	return c.validateProportions()
}

func (c Config) validateCounts() error {
	nonNegative := []struct {
		key string
		v   int64
	}{
		{core.RecordCount, c.RecordCount}, {core.OperationCount, c.OperationCount}, {core.InsertStart, c.InsertStart},
		{core.InsertCount, c.InsertCount}, {core.InsertionRetryLimit, int64(c.InsertionRetryLimit)},
	}
	for _, n := range nonNegative {
		if n.v < 0 {
			return c.errorf(n.key, "%d: want a count >= 0", n.v)
		}
	}
	positive := []struct {
		key string
		v   int64
	}{
		{core.FieldCount, int64(c.FieldCount)}, {core.FieldLength, c.FieldLength}, {core.MinFieldLength, c.MinFieldLength},
		{core.MinScanLength, c.MinScanLength}, {core.MaxScanLength, c.MaxScanLength}, {core.ZeroPadding, int64(c.ZeroPadding)},
	}
	for _, n := range positive {
		if n.v < 1 {
			return c.errorf(n.key, "%d: want at least 1", n.v)
		}
	}
	switch {
	case c.MinFieldLength > c.FieldLength:
		return c.errorf(core.MinFieldLength, "%d is above fieldlength %d", c.MinFieldLength, c.FieldLength)
	case c.MinScanLength > c.MaxScanLength:
		return c.errorf(core.MinScanLength, "%d is above maxscanlength %d", c.MinScanLength, c.MaxScanLength)
	case c.RecordCount > 0 && c.InsertStart+c.EffectiveInsertCount() > c.RecordCount:
		return c.errorf(core.InsertCount, "insertstart %d + insertcount %d is beyond recordcount %d", c.InsertStart, c.EffectiveInsertCount(), c.RecordCount)
	case c.Table == "":
		return c.errorf(core.Table, "empty: want a table name")
	}
	return nil
}

// RequestDistributions returns the valid values of requestdistribution.
func RequestDistributions() []Distribution {
	return []Distribution{DistUniform, DistZipfian, DistHotspot, DistLatest, DistSequential, DistExponential}
}

func (c Config) validateDistributions() error {
	request := RequestDistributions()
	if !oneOf(c.RequestDistribution, request...) {
		return c.errorf(core.RequestDistribution, "unknown distribution %q: want one of %s", c.RequestDistribution, names(request...))
	}
	lengths := []Distribution{DistConstant, DistUniform, DistZipfian}
	if !oneOf(c.FieldLengthDistribution, lengths...) {
		return c.errorf(core.FieldLengthDistribution, "unknown distribution %q: want one of %s", c.FieldLengthDistribution, names(lengths...))
	}
	if !oneOf(c.ScanLengthDistribution, DistUniform, DistZipfian) {
		return c.errorf(core.ScanLengthDistribution, "unknown distribution %q: want one of uniform, zipfian", c.ScanLengthDistribution)
	}
	if c.InsertOrder != InsertHashed && c.InsertOrder != InsertOrdered {
		return c.errorf(core.InsertOrder, "%q: want hashed or ordered", c.InsertOrder)
	}
	if c.DataIntegrity && c.FieldLengthDistribution != DistConstant {
		return c.errorf(core.DataIntegrity, "true needs fieldlengthdistribution=constant (got %s): verification must know each value's length", c.FieldLengthDistribution)
	}
	fractions := []struct {
		key string
		v   float64
	}{{core.HotspotDataFraction, c.HotspotDataFraction}, {core.HotspotOpnFraction, c.HotspotOpnFraction}}
	for _, f := range fractions {
		if !(f.v >= 0 && f.v <= 1) {
			return c.errorf(f.key, "%g: want a fraction in [0, 1]", f.v)
		}
	}
	// The exponential distribution's range is recordcount times this
	// fraction: 0 leaves it no key to draw.
	if !(c.ExponentialFrac > 0 && c.ExponentialFrac <= 1) {
		return c.errorf(core.ExponentialFrac, "%g: want a fraction in (0, 1]", c.ExponentialFrac)
	}
	if !(c.ZipfianConstant > 0 && c.ZipfianConstant < 1) {
		return c.errorf(core.ZipfianConstant, "%g: want a value in (0, 1)", c.ZipfianConstant)
	}
	if !(c.ExponentialPercentile > 0 && c.ExponentialPercentile < 100) {
		return c.errorf(core.ExponentialPercentile, "%g: want a value in (0, 100)", c.ExponentialPercentile)
	}
	return nil
}

func (c Config) validateProportions() error {
	ps := []struct {
		key string
		v   float64
	}{
		{core.ReadProportion, c.ReadProportion}, {core.UpdateProportion, c.UpdateProportion},
		{core.InsertProportion, c.InsertProportion}, {core.ScanProportion, c.ScanProportion},
		{core.ReadModifyWrite, c.ReadModifyWriteProportion}, {core.DeleteProportion, c.DeleteProportion},
		{core.TransferProportion, c.TransferProportion},
	}
	sum := 0.0
	for _, p := range ps {
		if !(p.v >= 0 && p.v <= 1) {
			return c.errorf(p.key, "%g: want a proportion in [0, 1]", p.v)
		}
		if p.v > 0 && c.IsTPCC() {
			return c.errorf(p.key, "%g with tpcc.warehouses %d: TPC-C runs its own five transactions (tpcc.mix); want 0", p.v, c.TPCC.Warehouses)
		}
		sum += p.v
	}
	if c.IsTPCC() {
		return c.validateTPCC()
	}
	if math.Abs(sum-1) > proportionTolerance {
		// Name the proportion the user most likely edited: the one set last
		// on the command line or in a file is unknown here, so name them all.
		return c.errorf(core.ReadProportion, "operation proportions (read %g + update %g + insert %g + scan %g + readmodifywrite %g + delete %g + transfer %g) sum to %g: want 1",
			c.ReadProportion, c.UpdateProportion, c.InsertProportion, c.ScanProportion, c.ReadModifyWriteProportion, c.DeleteProportion, c.TransferProportion, sum)
	}
	return c.validateLedger()
}

// validateTPCC checks TPC-C's mix: a share of each transaction at or
// above 0, some above; and that a time scale comes with spec pacing,
// the only mode that has times to scale.
func (c Config) validateTPCC() error {
	if c.TPCC.Warehouses < 1 {
		return c.errorf(core.TPCCWarehouses, "%d: want a number of warehouses, at least 1", c.TPCC.Warehouses)
	}
	if c.TPCC.TimeScale != 1 && c.TPCC.Mode != tpcc.Spec {
		return c.errorf(core.TPCCTimeScale, "%g with tpcc.mode=%s: it scales spec pacing's keying and think times; set tpcc.mode=spec, or leave it out", c.TPCC.TimeScale, c.TPCC.Mode)
	}
	total := 0.0
	for _, x := range c.TPCC.Mix {
		total += x
	}
	if total <= 0 {
		return c.errorf(core.TPCCMix, "%v: no transaction has a share; want the five shares of New-Order, Payment, Order-Status, Delivery and Stock-Level, such as 45,43,4,4,4", c.TPCC.Mix)
	}
	return nil
}

// validateLedger checks a ledger's settings. Transfers keep the sum of
// the balances only if nothing else writes them: besides transfers, a
// ledger may only read.
func (c Config) validateLedger() error {
	if !c.IsLedger() {
		return nil
	}
	others := []struct {
		key string
		v   float64
	}{
		{core.UpdateProportion, c.UpdateProportion}, {core.InsertProportion, c.InsertProportion},
		{core.ScanProportion, c.ScanProportion}, {core.ReadModifyWrite, c.ReadModifyWriteProportion},
		{core.DeleteProportion, c.DeleteProportion},
	}
	for _, o := range others {
		if o.v > 0 {
			return c.errorf(o.key, "%g with transferproportion %g: a ledger's balances change only by transfers; want 0 (reads may run beside them)", o.v, c.TransferProportion)
		}
	}
	l := c.Ledger
	switch {
	case c.RecordCount > 0 && c.EffectiveInsertCount() < 2:
		return c.errorf(core.RecordCount, "%d accounts with transferproportion %g: a transfer needs two; want at least 2", c.EffectiveInsertCount(), c.TransferProportion)
	case c.DataIntegrity:
		return c.errorf(core.DataIntegrity, "true with transferproportion %g: an account's first field is its balance, not a checkable value; want false", c.TransferProportion)
	case l.MaxAmount < 1:
		return c.errorf(core.LedgerMaxAmount, "%d: want at least 1", l.MaxAmount)
	case l.Balance < l.Floor:
		return c.errorf(core.LedgerBalance, "%d is below ledger.floor %d: want accounts that start at or above their floor", l.Balance, l.Floor)
	case c.RequestDistribution == DistLatest || c.RequestDistribution == DistExponential:
		return c.errorf(core.RequestDistribution, "%s with transferproportion %g: it favours keys inserted during the run and a ledger inserts none; want uniform, zipfian, hotspot or sequential", c.RequestDistribution, c.TransferProportion)
	}
	// Every balance a run can reach, and the total, must be exact in
	// every database: below 2^50 (Redis computes in Lua's doubles). A
	// balance is at most the total, accounts x (balance + maxamount).
	limit := int64(1<<50) / max(c.RecordCount, 1)
	if l.Balance > limit || l.MaxAmount > limit || l.Floor < -limit {
		return c.errorf(core.LedgerBalance, "balance %d, maxamount %d and floor %d over %d accounts could reach 2^50, beyond what every database holds exactly: want amounts within %d",
			l.Balance, l.MaxAmount, l.Floor, c.RecordCount, limit)
	}
	return nil
}
