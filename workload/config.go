package workload

import (
	"fmt"
	"strconv"
	"time"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/workload/generator"
)

// Distribution names a YCSB distribution.
type Distribution string

// Distributions YCSB accepts for requests, field lengths and scan lengths.
const (
	DistUniform     Distribution = "uniform"
	DistZipfian     Distribution = "zipfian"
	DistHotspot     Distribution = "hotspot"
	DistLatest      Distribution = "latest"
	DistSequential  Distribution = "sequential"
	DistExponential Distribution = "exponential"
	DistConstant    Distribution = "constant"
)

// InsertOrder is how record numbers become keys.
type InsertOrder string

// Insert orders.
const (
	// InsertHashed spreads keys by hashing the record number (YCSB default).
	InsertHashed InsertOrder = "hashed"
	// InsertOrdered keeps keys in record-number order.
	InsertOrdered InsertOrder = "ordered"
)

// Config is YCSB's CoreWorkload configuration. Field names follow the
// property names; ParseConfig documents the defaults.
type Config struct {
	Table                   string
	RecordCount             int64
	OperationCount          int64
	InsertStart             int64
	InsertCount             int64 // 0: recordcount - insertstart
	FieldCount              int
	FieldNamePrefix         string
	FieldLength             int64
	MinFieldLength          int64
	FieldLengthDistribution Distribution
	ReadAllFields           bool
	WriteAllFields          bool

	ReadProportion            float64
	UpdateProportion          float64
	InsertProportion          float64
	ScanProportion            float64
	ReadModifyWriteProportion float64
	DeleteProportion          float64

	RequestDistribution    Distribution
	ZipfianConstant        float64
	HotspotDataFraction    float64
	HotspotOpnFraction     float64
	ExponentialPercentile  float64
	ExponentialFrac        float64
	MinScanLength          int64
	MaxScanLength          int64
	ScanLengthDistribution Distribution
	InsertOrder            InsertOrder
	ZeroPadding            int
	DataIntegrity          bool
	InsertionRetryLimit    int
	InsertionRetryInterval time.Duration

	// sources remembers where each property came from, for errors.
	sources map[string]properties.Source
}

// EffectiveInsertCount is insertcount, or recordcount - insertstart when it
// was not set.
func (c Config) EffectiveInsertCount() int64 {
	if c.InsertCount > 0 {
		return c.InsertCount
	}
	return c.RecordCount - c.InsertStart
}

// FieldNames returns prefix0 .. prefix(fieldcount-1).
func (c Config) FieldNames() []string {
	out := make([]string, c.FieldCount)
	for i := range out {
		out[i] = c.FieldNamePrefix + strconv.Itoa(i)
	}
	return out
}

// DefaultConfig returns YCSB's CoreWorkload defaults.
func DefaultConfig() Config {
	return Config{
		Table: "usertable", FieldCount: 10, FieldNamePrefix: "field", FieldLength: 100, MinFieldLength: 1,
		FieldLengthDistribution: DistConstant, ReadAllFields: true,
		ReadProportion: 0.95, UpdateProportion: 0.05,
		RequestDistribution: DistUniform, ZipfianConstant: generator.ZipfianConstant,
		HotspotDataFraction: 0.2, HotspotOpnFraction: 0.8,
		ExponentialPercentile: 95, ExponentialFrac: 0.8571428571,
		MinScanLength: 1, MaxScanLength: 1000, ScanLengthDistribution: DistUniform,
		InsertOrder: InsertHashed, ZeroPadding: 1, InsertionRetryInterval: 3 * time.Second,
	}
}

// ParseConfig reads the CoreWorkload properties from p, applies defaults
// and validates the result. It also returns a warning for every property
// it does not know, unless the property's prefix (before the first '.') is
// one of driverPrefixes: drivers read those themselves.
func ParseConfig(p *properties.Set, driverPrefixes []string) (Config, []Warning, error) {
	c := DefaultConfig()
	c.sources = make(map[string]properties.Source)
	for _, k := range p.Keys() {
		_, src, _ := p.Lookup(k)
		c.sources[k] = src
	}
	if err := parseFields(p, &c); err != nil {
		return Config{}, nil, err
	}
	if err := c.Validate(); err != nil {
		return Config{}, nil, err
	}
	return c, unknownWarnings(p, driverPrefixes), nil
}

func parseFields(p *properties.Set, c *Config) error {
	c.Table = p.String(core.Table, c.Table)
	c.FieldNamePrefix = p.String(core.FieldNamePrefix, c.FieldNamePrefix)
	c.FieldLengthDistribution = Distribution(p.String(core.FieldLengthDistribution, string(c.FieldLengthDistribution)))
	c.RequestDistribution = Distribution(p.String(core.RequestDistribution, string(c.RequestDistribution)))
	c.ScanLengthDistribution = Distribution(p.String(core.ScanLengthDistribution, string(c.ScanLengthDistribution)))
	c.InsertOrder = InsertOrder(p.String(core.InsertOrder, string(c.InsertOrder)))
	var err error
	ints := []struct {
		key string
		dst *int64
	}{
		{core.RecordCount, &c.RecordCount}, {core.OperationCount, &c.OperationCount}, {core.InsertStart, &c.InsertStart},
		{core.InsertCount, &c.InsertCount}, {core.FieldLength, &c.FieldLength}, {core.MinFieldLength, &c.MinFieldLength},
		{core.MinScanLength, &c.MinScanLength}, {core.MaxScanLength, &c.MaxScanLength},
	}
	for _, f := range ints {
		if *f.dst, err = p.Int64(f.key, *f.dst); err != nil {
			return err
		}
	}
	smallInts := []struct {
		key string
		dst *int
	}{{core.FieldCount, &c.FieldCount}, {core.ZeroPadding, &c.ZeroPadding}, {core.InsertionRetryLimit, &c.InsertionRetryLimit}}
	for _, f := range smallInts {
		if *f.dst, err = p.Int(f.key, *f.dst); err != nil {
			return err
		}
	}
	floats := []struct {
		key string
		dst *float64
	}{
		{core.ReadProportion, &c.ReadProportion}, {core.UpdateProportion, &c.UpdateProportion},
		{core.InsertProportion, &c.InsertProportion}, {core.ScanProportion, &c.ScanProportion},
		{core.ReadModifyWrite, &c.ReadModifyWriteProportion}, {core.DeleteProportion, &c.DeleteProportion},
		{core.ZipfianConstant, &c.ZipfianConstant}, {core.HotspotDataFraction, &c.HotspotDataFraction},
		{core.HotspotOpnFraction, &c.HotspotOpnFraction}, {core.ExponentialPercentile, &c.ExponentialPercentile},
		{core.ExponentialFrac, &c.ExponentialFrac},
	}
	for _, f := range floats {
		if *f.dst, err = p.Float(f.key, *f.dst); err != nil {
			return err
		}
	}
	bools := []struct {
		key string
		dst *bool
	}{{core.ReadAllFields, &c.ReadAllFields}, {core.WriteAllFields, &c.WriteAllFields}, {core.DataIntegrity, &c.DataIntegrity}}
	for _, f := range bools {
		if *f.dst, err = p.Bool(f.key, *f.dst); err != nil {
			return err
		}
	}
	// YCSB gives the retry interval in whole seconds; a Go duration
	// ("500ms") is read too.
	c.InsertionRetryInterval, err = p.Duration(core.InsertionRetryInterval, c.InsertionRetryInterval)
	return err
}

// errorf returns an error naming the property and where it was set.
func (c Config) errorf(key, format string, args ...any) error {
	where := "default"
	if src, ok := c.sources[key]; ok {
		where = src.String()
	}
	return fmt.Errorf("%s: property %q: %s", where, key, fmt.Sprintf(format, args...))
}
