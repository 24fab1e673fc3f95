package cost

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// DynamoDB's capacity-unit rules, from the Developer Guide's "Read/write
// capacity mode" and "Item sizes and formats" pages
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/capacity-mode.html,
// .../CapacityUnitCalculations.html). On-demand request units follow the
// same rules as provisioned capacity units.
const (
	// WriteUnitBytes: one write unit writes an item of up to 1 KB; a
	// larger item takes one more unit per started KB.
	WriteUnitBytes = 1024
	// ReadUnitBytes: one read unit is one strongly consistent read of up
	// to 4 KB (two eventually consistent ones); larger items take one
	// more per started 4 KB.
	ReadUnitBytes = 4096
	// MaxItemBytes is DynamoDB's item size limit, 400 KB.
	MaxItemBytes = 400 * 1024
	// ItemOverheadBytes is the storage DynamoDB bills per item on top of
	// its data ("plus a per-item storage overhead of 100 bytes", pricing
	// page and Developer Guide, "Item sizes").
	ItemOverheadBytes = 100
	// BytesPerGB is the GB of storage billing: AWS bills a GB-month of
	// 2^30 bytes.
	BytesPerGB = 1 << 30
	// DefaultProvisionedUtilisation is the share of provisioned capacity
	// a table is planned to use: 70%, the target utilisation DynamoDB
	// auto scaling sets by default.
	DefaultProvisionedUtilisation = 0.70
)

// Counter names under which the dynamodb driver records the capacity
// the service reported consumed (ReturnConsumedCapacity=TOTAL).
const (
	CounterConsumedRCU = "dynamodb.consumed_rcu"
	CounterConsumedWCU = "dynamodb.consumed_wcu"
)

// Consistency is how reads (and, for Transactional, writes) are made.
type Consistency string

// Consistencies and what they cost per started 4 KB of a read: strong 1
// unit, eventual half a unit, transactional 2 units (and transactional
// writes 2 units per started KB instead of 1).
const (
	Strong        Consistency = "strong"
	Eventual      Consistency = "eventual"
	Transactional Consistency = "transactional"
)

// Mix is the share of each kind of operation, summing to 1, as a YCSB
// workload sets them: workload A is {Read: 0.5, Write: 0.5}, F is
// {Read: 0.5, ReadModifyWrite: 0.5}.
type Mix struct {
	// Write counts inserts, updates and deletes: each writes the whole
	// item, as an UpdateItem is charged for the larger of the item's
	// size before and after, not for the attributes it changes.
	Read, Write float64
	// ReadModifyWrite is a read then a write of the same item.
	ReadModifyWrite float64
}

// Consumed is the capacity a run consumed, as the dynamodb driver's
// counters record it, over the measured Duration.
type Consumed struct {
	RCU, WCU float64
	Duration time.Duration
}

// ConsumedFrom reads a Consumed from the dynamodb driver's counters.
func ConsumedFrom(counters map[string]float64, d time.Duration) (Consumed, error) {
	rcu, okR := counters[CounterConsumedRCU]
	wcu, okW := counters[CounterConsumedWCU]
	if !okR && !okW {
		return Consumed{}, fmt.Errorf("consumed capacity: no %s or %s counter", CounterConsumedRCU, CounterConsumedWCU)
	}
	return Consumed{RCU: rcu, WCU: wcu, Duration: d}, nil
}

// DynamoDBUsage is a workload to price on DynamoDB. Give the rates as
// ReadsPerSec and WritesPerSec, or as OpsPerSec and a Mix.
type DynamoDBUsage struct {
	ReadsPerSec, WritesPerSec float64
	OpsPerSec                 float64
	Mix                       Mix
	// ItemBytes is the item size as DynamoDB counts it: attribute names
	// plus values. A YCSB record of 10 fields of 100 bytes, with its key
	// and field names, is just over 1 KB, so each write costs 2 units.
	ItemBytes   int
	Consistency Consistency
	// Items is the number of items stored (0: no storage priced).
	Items int64
	// Utilisation is the share of provisioned capacity used, in (0, 1];
	// 0 means DefaultProvisionedUtilisation.
	Utilisation float64
	// Consumed, when set, is measured capacity: the bill uses it instead
	// of the rule-based estimate, which then needs no rates.
	Consumed *Consumed
}

// DynamoDBBill is a month of DynamoDB in on-demand and provisioned
// capacity modes. Units are per second unless named per month.
type DynamoDBBill struct {
	// Basis says where RCU and WCU come from: measured consumption or
	// the capacity-unit rules.
	Basis    string
	Measured bool
	// ReadUnitsPerOp and WriteUnitsPerOp are the rules' units for one
	// read and one write of ItemBytes; EstimatedRCU and EstimatedWCU the
	// rules' units per second (all 0 when no rates were given).
	ReadUnitsPerOp, WriteUnitsPerOp float64
	EstimatedRCU, EstimatedWCU      float64
	// RCU and WCU are the units per second billed: measured if given,
	// else estimated.
	RCU, WCU float64
	// ReadRequestUnits and WriteRequestUnits are on-demand request units
	// per month: RCU (WCU) x SecondsPerMonth. OnDemand is their price.
	ReadRequestUnits, WriteRequestUnits float64
	OnDemand                            float64
	// ProvisionedRCU and ProvisionedWCU are ceil(RCU (WCU) /
	// Utilisation), at least 1 as a provisioned table must have.
	// Provisioned is their price for HoursPerMonth hours.
	Utilisation                    float64
	ProvisionedRCU, ProvisionedWCU int64
	Provisioned                    float64
	// StorageGB is Items x (ItemBytes + ItemOverheadBytes) / BytesPerGB;
	// Storage its price for a month.
	StorageGB, Storage float64
	Prices             DynamoDBPrices
}

// OnDemandTotal is the on-demand monthly bill: requests plus storage.
func (b *DynamoDBBill) OnDemandTotal() float64 { return b.OnDemand + b.Storage }

// ProvisionedTotal is the provisioned monthly bill: capacity plus
// storage.
func (b *DynamoDBBill) ProvisionedTotal() float64 { return b.Provisioned + b.Storage }

// DynamoDB prices a workload on DynamoDB under both capacity modes.
// Provisioned capacity is sized for the average rate: a workload with
// peaks needs more, or auto scaling, whose lag the average does not see.
func DynamoDB(prices *DynamoDBPrices, u DynamoDBUsage) (*DynamoDBBill, error) {
	if prices == nil {
		return nil, errors.New("dynamodb bill: the price catalogue has no DynamoDB prices")
	}
	if u.Utilisation == 0 {
		u.Utilisation = DefaultProvisionedUtilisation
	}
	reads, writes, err := u.validate()
	if err != nil {
		return nil, fmt.Errorf("dynamodb bill: %w", err)
	}
	b := &DynamoDBBill{Utilisation: u.Utilisation, Prices: *prices}
	if reads > 0 || writes > 0 {
		b.ReadUnitsPerOp = ReadUnits(u.ItemBytes, u.Consistency)
		b.WriteUnitsPerOp = WriteUnits(u.ItemBytes, u.Consistency)
		b.EstimatedRCU, b.EstimatedWCU = reads*b.ReadUnitsPerOp, writes*b.WriteUnitsPerOp
	}
	if c := u.Consumed; c != nil {
		b.Measured = true
		b.RCU, b.WCU = c.RCU/c.Duration.Seconds(), c.WCU/c.Duration.Seconds()
		b.Basis = fmt.Sprintf("measured: %g RCU and %g WCU consumed over %v, as DynamoDB reported them",
			c.RCU, c.WCU, c.Duration)
		if reads > 0 || writes > 0 {
			b.Basis += fmt.Sprintf(" (the rules estimate %g RCU/s and %g WCU/s; measured %g and %g)",
				b.EstimatedRCU, b.EstimatedWCU, b.RCU, b.WCU)
		}
	} else {
		b.RCU, b.WCU = b.EstimatedRCU, b.EstimatedWCU
		b.Basis = fmt.Sprintf("estimated from DynamoDB's capacity-unit rules: %d-byte items, %s reads, "+
			"%g read and %g write units per operation", u.ItemBytes, u.Consistency, b.ReadUnitsPerOp, b.WriteUnitsPerOp)
	}
	b.ReadRequestUnits = b.RCU * SecondsPerMonth
	b.WriteRequestUnits = b.WCU * SecondsPerMonth
	b.OnDemand = b.ReadRequestUnits/1e6*prices.ReadRequestUnitsPerMillion +
		b.WriteRequestUnits/1e6*prices.WriteRequestUnitsPerMillion
	b.ProvisionedRCU = int64(max(1, ceilUnits(b.RCU/u.Utilisation)))
	b.ProvisionedWCU = int64(max(1, ceilUnits(b.WCU/u.Utilisation)))
	b.Provisioned = (float64(b.ProvisionedRCU)*prices.RCUHour + float64(b.ProvisionedWCU)*prices.WCUHour) * HoursPerMonth
	b.StorageGB = float64(u.Items) * float64(u.ItemBytes+ItemOverheadBytes) / BytesPerGB
	b.Storage = b.StorageGB * prices.StorageGBMonth
	return b, nil
}

// WriteUnits is the write units (capacity or request) one write of an
// item of itemBytes takes: one per started KB, twice that in a
// transaction.
func WriteUnits(itemBytes int, c Consistency) float64 {
	units := float64(ceilDiv(itemBytes, WriteUnitBytes))
	if c == Transactional {
		return 2 * units
	}
	return units
}

// ReadUnits is the read units one read of an item of itemBytes takes:
// one per started 4 KB when strongly consistent, half when eventually
// consistent, twice in a transaction.
func ReadUnits(itemBytes int, c Consistency) float64 {
	units := float64(ceilDiv(itemBytes, ReadUnitBytes))
	switch c {
	case Eventual:
		return units / 2
	case Transactional:
		return 2 * units
	}
	return units
}

// ceilDiv is ceil(n / d) for n, d > 0, and at least 1: even the
// smallest item takes a whole unit.
func ceilDiv(n, d int) int { return max(1, (n+d-1)/d) }

// validate checks the usage and returns its reads and writes per second.
func (u DynamoDBUsage) validate() (reads, writes float64, err error) {
	var errs []error
	rates := u.ReadsPerSec != 0 || u.WritesPerSec != 0
	mixed := u.OpsPerSec != 0 || u.Mix != (Mix{})
	switch {
	case rates && mixed:
		errs = append(errs, errors.New("give reads and writes per second, or ops per second and a mix, not both"))
	case mixed:
		reads, writes, err = u.fromMix()
		errs = append(errs, err)
	case rates:
		reads, writes = u.ReadsPerSec, u.WritesPerSec
		for _, f := range []struct {
			name string
			v    float64
		}{{"reads", reads}, {"writes", writes}} {
			if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
				errs = append(errs, fmt.Errorf("%s %v per second: want 0 or more", f.name, f.v))
			}
		}
	case u.Consumed == nil:
		errs = append(errs, errors.New("no workload: give reads and writes per second, ops per second and a mix, or measured consumed capacity"))
	}
	if rates || mixed || u.Items != 0 {
		if u.ItemBytes <= 0 || u.ItemBytes > MaxItemBytes {
			errs = append(errs, fmt.Errorf("item size %d bytes: want 1 to %d (DynamoDB's 400 KB limit)", u.ItemBytes, MaxItemBytes))
		}
	}
	switch u.Consistency {
	case Strong, Eventual, Transactional:
	default:
		if rates || mixed {
			errs = append(errs, fmt.Errorf("consistency %q: want %q, %q or %q", u.Consistency, Strong, Eventual, Transactional))
		}
	}
	if u.Items < 0 {
		errs = append(errs, fmt.Errorf("items %d: want 0 or more", u.Items))
	}
	if !(u.Utilisation > 0 && u.Utilisation <= 1) {
		errs = append(errs, fmt.Errorf("utilisation %v: want a share in (0, 1]", u.Utilisation))
	}
	if c := u.Consumed; c != nil {
		if c.Duration <= 0 {
			errs = append(errs, fmt.Errorf("consumed capacity over %v: want a measured duration above 0", c.Duration))
		}
		if c.RCU < 0 || c.WCU < 0 || math.IsNaN(c.RCU+c.WCU) || math.IsInf(c.RCU+c.WCU, 0) {
			errs = append(errs, fmt.Errorf("consumed capacity %v RCU, %v WCU: want 0 or more", c.RCU, c.WCU))
		}
	}
	return reads, writes, errors.Join(errs...)
}

// fromMix splits OpsPerSec by the mix: a read-modify-write is one read
// and one write.
func (u DynamoDBUsage) fromMix() (reads, writes float64, err error) {
	m := u.Mix
	var errs []error
	if !positive(u.OpsPerSec) {
		errs = append(errs, fmt.Errorf("ops %v per second: want a number above 0", u.OpsPerSec))
	}
	if m.Read < 0 || m.Write < 0 || m.ReadModifyWrite < 0 {
		errs = append(errs, fmt.Errorf("mix %+v: shares must be 0 or more", m))
	} else if sum := m.Read + m.Write + m.ReadModifyWrite; math.Abs(sum-1) > 1e-9 {
		errs = append(errs, fmt.Errorf("mix %+v: shares sum to %v, want 1", m, sum))
	}
	reads = u.OpsPerSec * (m.Read + m.ReadModifyWrite)
	writes = u.OpsPerSec * (m.Write + m.ReadModifyWrite)
	return reads, writes, errors.Join(errs...)
}
