package workload

import (
	"math"
	"strings"

	"github.com/dbarena/dbarena/properties/core"
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
	}{{core.HotspotDataFraction, c.HotspotDataFraction}, {core.HotspotOpnFraction, c.HotspotOpnFraction}, {core.ExponentialFrac, c.ExponentialFrac}}
	for _, f := range fractions {
		if !(f.v >= 0 && f.v <= 1) {
			return c.errorf(f.key, "%g: want a fraction in [0, 1]", f.v)
		}
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
	}
	sum := 0.0
	for _, p := range ps {
		if !(p.v >= 0 && p.v <= 1) {
			return c.errorf(p.key, "%g: want a proportion in [0, 1]", p.v)
		}
		sum += p.v
	}
	if math.Abs(sum-1) > proportionTolerance {
		// Name the proportion the user most likely edited: the one set last
		// on the command line or in a file is unknown here, so name them all.
		return c.errorf(core.ReadProportion, "operation proportions (read %g + update %g + insert %g + scan %g + readmodifywrite %g + delete %g) sum to %g: want 1",
			c.ReadProportion, c.UpdateProportion, c.InsertProportion, c.ScanProportion, c.ReadModifyWriteProportion, c.DeleteProportion, sum)
	}
	return nil
}
