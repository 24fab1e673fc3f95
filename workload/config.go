package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/workload/generator"
	"github.com/dbarena/dbarena/workload/tpcc"
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
	// Kind is the workload's kind (core.WorkloadKind; KindCore by default).
	Kind                    Kind
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
	TransferProportion        float64

	// Ledger is the accounts' balances when transfers run.
	Ledger Ledger
	// TPCC is TPC-C's scale and mix (tpcc.warehouses, tpcc.mix).
	TPCC TPCC

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

// Ledger is what the ledger's accounts hold: each is loaded with Balance
// in its first field, a transfer moves 1 to MaxAmount from one account to
// another, and one that would take its payer below Floor is declined.
// The balances then always sum to the loaded accounts times Balance.
type Ledger struct {
	Balance, Floor, MaxAmount int64
	// AuditEvery is how often the run sums every balance in one
	// snapshot, where the driver can take one (0: never).
	AuditEvery time.Duration
}

// TPCC is TPC-C's scale, mix and pacing: with Warehouses set the
// workload is TPC-C (package tpcc), its load units are the item table
// (key 0) and the warehouses (keys 1 to Warehouses), and its run draws
// the five transactions from Mix, paced as Mode says.
type TPCC struct {
	Warehouses int64
	Mix        tpcc.Mix
	Mode       tpcc.Mode
	// TimeScale scales the spec mode's keying and think times (1, the
	// specification's, by default).
	TimeScale float64
}

// TpmC says whether the run's New-Orders a minute are tpmC: spec pacing
// at the specification's times.
func (t TPCC) TpmC() bool { return t.Mode == tpcc.Spec && t.TimeScale == 1 }

// IsTPCC reports whether the workload is TPC-C.
func (c Config) IsTPCC() bool { return c.Kind == KindTPCC }

// IsLedger reports whether the workload is a ledger: its records are
// accounts, their first field a balance, and transfers move balance
// between them.
func (c Config) IsLedger() bool { return c.Kind == KindLedger }

// BalanceField is the field that holds an account's balance.
func (c Config) BalanceField() string { return c.FieldNamePrefix + "0" }

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
		Kind: KindCore, Table: "usertable", FieldCount: 10, FieldNamePrefix: "field", FieldLength: 100, MinFieldLength: 1,
		FieldLengthDistribution: DistConstant, ReadAllFields: true,
		ReadProportion: 0.95, UpdateProportion: 0.05,
		RequestDistribution: DistUniform, ZipfianConstant: generator.ZipfianConstant,
		HotspotDataFraction: 0.2, HotspotOpnFraction: 0.8,
		ExponentialPercentile: 95, ExponentialFrac: 0.8571428571,
		MinScanLength: 1, MaxScanLength: 1000, ScanLengthDistribution: DistUniform,
		InsertOrder: InsertHashed, ZeroPadding: 1, InsertionRetryInterval: 3 * time.Second,
		Ledger: Ledger{Balance: 1000, Floor: 0, MaxAmount: 100, AuditEvery: 5 * time.Second},
		TPCC:   TPCC{Mix: tpcc.DefaultMix(), Mode: tpcc.Unpaced, TimeScale: 1},
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
	kind, err := KindOf(p)
	if err != nil {
		return Config{}, nil, err
	}
	c.Kind = kind
	if err := parseFields(p, &c); err != nil {
		return Config{}, nil, err
	}
	if err := c.parseTPCC(p); err != nil {
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
		{core.LedgerBalance, &c.Ledger.Balance}, {core.LedgerFloor, &c.Ledger.Floor}, {core.LedgerMaxAmount, &c.Ledger.MaxAmount},
		{core.TPCCWarehouses, &c.TPCC.Warehouses},
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
		{core.TransferProportion, &c.TransferProportion}, {core.ZipfianConstant, &c.ZipfianConstant}, {core.HotspotDataFraction, &c.HotspotDataFraction},
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
	if c.Ledger.AuditEvery, err = p.Duration(core.LedgerAuditInterval, c.Ledger.AuditEvery); err != nil {
		return err
	}
	// YCSB gives the retry interval in whole seconds; a Go duration
	// ("500ms") is read too.
	c.InsertionRetryInterval, err = p.Duration(core.InsertionRetryInterval, c.InsertionRetryInterval)
	return err
}

// parseTPCC reads TPC-C's mix and, for a TPC-C workload, sets what
// follows from its scale: its load units (the item table and each
// warehouse: recordcount is warehouses + 1) and no YCSB operations but
// those the properties ask for (YCSB's default of 95% reads does not
// apply; Validate refuses any asked for).
func (c *Config) parseTPCC(p *properties.Set) error {
	if v, _, ok := p.Lookup(core.TPCCMix); ok {
		parts := strings.Split(v, ",")
		if len(parts) != len(c.TPCC.Mix) {
			return c.errorf(core.TPCCMix, "%q: want %d shares, of New-Order, Payment, Order-Status, Delivery and Stock-Level (45,43,4,4,4)", v, len(c.TPCC.Mix))
		}
		for i, s := range parts {
			f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
				return c.errorf(core.TPCCMix, "%q: share %d is %q; want a number >= 0", v, i+1, s)
			}
			c.TPCC.Mix[i] = f
		}
	}
	if v, _, ok := p.Lookup(core.TPCCMode); ok {
		m, err := tpcc.ParseMode(strings.TrimSpace(v))
		if err != nil {
			return c.errorf(core.TPCCMode, "%v", err)
		}
		c.TPCC.Mode = m
	}
	if v, _, ok := p.Lookup(core.TPCCTimeScale); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(f > 0 && f <= 1) {
			return c.errorf(core.TPCCTimeScale, "%q: want a number in (0, 1] that scales the keying and think times (1: the specification's; below 1 the result is not tpmC)", v)
		}
		c.TPCC.TimeScale = f
	}
	if !c.IsTPCC() {
		return nil
	}
	if _, given := c.sources[core.TPCCWarehouses]; !given {
		c.TPCC.Warehouses = 1
	}
	c.RecordCount = c.TPCC.Warehouses + 1
	for _, o := range []struct {
		key string
		dst *float64
	}{{core.ReadProportion, &c.ReadProportion}, {core.UpdateProportion, &c.UpdateProportion}} {
		if _, given := c.sources[o.key]; !given {
			*o.dst = 0
		}
	}
	return nil
}

// errorf returns an error naming the property and where it was set.
func (c Config) errorf(key, format string, args ...any) error {
	where := "default"
	if src, ok := c.sources[key]; ok {
		where = src.String()
	}
	return fmt.Errorf("%s: property %q: %s", where, key, fmt.Sprintf(format, args...))
}
