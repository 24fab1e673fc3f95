package cost

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// listPrices are DynamoDB's us-east-1 prices written out here, so these
// tests check the rules, not the catalogue's data.
var listPrices = DynamoDBPrices{Region: "us-east-1",
	WriteRequestUnitsPerMillion: 0.625, ReadRequestUnitsPerMillion: 0.125,
	WCUHour: 0.00065, RCUHour: 0.00013, StorageGBMonth: 0.25}

// TestUnits checks the rounding at each boundary of the rules: a write
// unit per started KB (1,024 bytes), a read unit per started 4 KB.
func TestUnits(t *testing.T) {
	for name, tc := range map[string]struct {
		bytes                    int
		write, txWrite           float64
		strong, eventual, txRead float64
	}{
		"1 byte":            {1, 1, 2, 1, 0.5, 2},
		"exactly 1 KB":      {1024, 1, 2, 1, 0.5, 2},
		"1 KB + 1 byte":     {1025, 2, 4, 1, 0.5, 2},
		"2.5 KB":            {2560, 3, 6, 1, 0.5, 2},
		"exactly 4 KB":      {4096, 4, 8, 1, 0.5, 2},
		"4 KB + 1 byte":     {4097, 5, 10, 2, 1, 4},
		"exactly 8 KB":      {8192, 8, 16, 2, 1, 4},
		"8 KB + 1 byte":     {8193, 9, 18, 3, 1.5, 6},
		"400 KB, the limit": {400 * 1024, 400, 800, 100, 50, 200},
	} {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.write, WriteUnits(tc.bytes, Strong))
			require.Equal(t, tc.write, WriteUnits(tc.bytes, Eventual), "consistency is a read matter")
			require.Equal(t, tc.txWrite, WriteUnits(tc.bytes, Transactional))
			require.Equal(t, tc.strong, ReadUnits(tc.bytes, Strong))
			require.Equal(t, tc.eventual, ReadUnits(tc.bytes, Eventual))
			require.Equal(t, tc.txRead, ReadUnits(tc.bytes, Transactional))
		})
	}
}

// TestDynamoDBWrites is the worked example: 1,000 writes/s of 2.5 KB
// items, 100 million of them.
//
//	units:       ceil(2,560 / 1,024) = 3 WCU a write -> 3,000 WCU/s
//	on-demand:   3,000 x 2,628,000 s = 7,884,000,000 WRU
//	             = 7,884 million x $0.625 = $4,927.50
//	provisioned: ceil(3,000 / 0.7) = ceil(4,285.7) = 4,286 WCU
//	             x $0.00065 x 730 h = $2,033.707
//	             + the 1 RCU a table must have: 1 x $0.00013 x 730 = $0.0949
//	storage:     1e8 x (2,560 + 100) B / 2^30 = 247.73 GB x $0.25 = $61.93
func TestDynamoDBWrites(t *testing.T) {
	b, err := DynamoDB(&listPrices, DynamoDBUsage{WritesPerSec: 1_000, ItemBytes: 2_560,
		Consistency: Strong, Items: 100_000_000})
	require.NoError(t, err)
	require.False(t, b.Measured)
	require.Equal(t, "estimated from DynamoDB's capacity-unit rules: 2560-byte items, strong reads, "+
		"1 read and 3 write units per operation", b.Basis)
	require.Equal(t, 3.0, b.WriteUnitsPerOp)
	require.Equal(t, 3_000.0, b.WCU)
	require.Zero(t, b.RCU)
	require.InDelta(t, 7_884_000_000.0, b.WriteRequestUnits, 1e-3)
	require.InDelta(t, 7_884*0.625, b.OnDemand, 1e-9)
	require.InDelta(t, 4_927.50, b.OnDemand, 1e-9)
	require.Equal(t, int64(4_286), b.ProvisionedWCU)
	require.Equal(t, int64(1), b.ProvisionedRCU)
	require.InDelta(t, 4_286*0.00065*730+1*0.00013*730, b.Provisioned, 1e-9)
	require.InDelta(t, 2_033.8019, b.Provisioned, 1e-9)
	wantGB := 1e8 * (2_560 + 100) / float64(1<<30)
	require.InDelta(t, wantGB, b.StorageGB, 1e-9)
	require.InDelta(t, 247.73, b.StorageGB, 0.005)
	require.InDelta(t, wantGB*0.25, b.Storage, 1e-9)
	require.InDelta(t, 4_927.50+wantGB*0.25, b.OnDemandTotal(), 1e-9)
	require.InDelta(t, 2_033.8019+wantGB*0.25, b.ProvisionedTotal(), 1e-9)
}

// TestDynamoDBMix prices YCSB workload A (50% reads, 50% updates) at
// 10,000 ops/s on 1,090-byte records (10 fields of 100 bytes plus names
// and key), reads eventually consistent, 100 million records.
//
//	reads:  5,000/s x ceil(1,090 / 4,096) = 1 x 0.5 = 2,500 RCU/s
//	writes: 5,000/s x ceil(1,090 / 1,024) = 2     = 10,000 WCU/s
//	on-demand: 2,500 x 2.628e6 / 1e6 = 6,570 M RRU x $0.125 = $821.25
//	         + 10,000 x 2.628e6 / 1e6 = 26,280 M WRU x $0.625 = $16,425
//	provisioned: ceil(2,500 / 0.7) = 3,572 RCU, ceil(10,000 / 0.7) = 14,286 WCU:
//	             (3,572 x $0.00013 + 14,286 x $0.00065) x 730 = $7,117.6898
//	storage: 1e8 x 1,190 B / 2^30 = 110.83 GB x $0.25
func TestDynamoDBMix(t *testing.T) {
	b, err := DynamoDB(&listPrices, DynamoDBUsage{OpsPerSec: 10_000, Mix: Mix{Read: 0.5, Write: 0.5},
		ItemBytes: 1_090, Consistency: Eventual, Items: 100_000_000})
	require.NoError(t, err)
	require.Equal(t, 2_500.0, b.RCU)
	require.Equal(t, 10_000.0, b.WCU)
	require.InDelta(t, 821.25+16_425, b.OnDemand, 1e-9)
	require.Equal(t, int64(3_572), b.ProvisionedRCU)
	require.Equal(t, int64(14_286), b.ProvisionedWCU)
	require.InDelta(t, (3_572*0.00013+14_286*0.00065)*730, b.Provisioned, 1e-9)
	require.InDelta(t, 7_117.6898, b.Provisioned, 1e-9)
	require.InDelta(t, 1e8*1_190/float64(1<<30)*0.25, b.Storage, 1e-9)
}

// TestDynamoDBTransactional prices YCSB workload F (50% reads, 50%
// read-modify-writes) at 1,000 ops/s in transactions on 4,097-byte
// items: 1,000 reads/s x ceil(4,097 / 4,096) = 2 x 2 = 4,000 RCU/s and
// 500 writes/s x ceil(4,097 / 1,024) = 5 x 2 = 5,000 WCU/s. At 50%
// utilisation: 8,000 RCU and 10,000 WCU provisioned.
func TestDynamoDBTransactional(t *testing.T) {
	b, err := DynamoDB(&listPrices, DynamoDBUsage{OpsPerSec: 1_000, Mix: Mix{Read: 0.5, ReadModifyWrite: 0.5},
		ItemBytes: 4_097, Consistency: Transactional, Utilisation: 0.5})
	require.NoError(t, err)
	require.Equal(t, 4.0, b.ReadUnitsPerOp)
	require.Equal(t, 10.0, b.WriteUnitsPerOp)
	require.Equal(t, 4_000.0, b.RCU)
	require.Equal(t, 5_000.0, b.WCU)
	require.Equal(t, int64(8_000), b.ProvisionedRCU)
	require.Equal(t, int64(10_000), b.ProvisionedWCU)
	require.InDelta(t, (8_000*0.00013+10_000*0.00065)*730, b.Provisioned, 1e-9)
	require.Zero(t, b.Storage, "no items given")
}

// TestDynamoDBMeasured bills what DynamoDB reported consumed: 1,500,000
// RCU and 1,800,000 WCU over 10 minutes are 2,500 RCU/s and 3,000 WCU/s,
// though the rules for 1,000 writes/s of 2.5 KB say 3,000 WCU/s and no
// reads. On demand: 2,500 x 2.628 x $0.125 + 3,000 x 2.628 x $0.625.
func TestDynamoDBMeasured(t *testing.T) {
	c, err := ConsumedFrom(map[string]float64{"dynamodb.consumed_rcu": 1_500_000, "dynamodb.consumed_wcu": 1_800_000,
		"dynamodb.retries": 3}, 10*time.Minute)
	require.NoError(t, err)
	b, err := DynamoDB(&listPrices, DynamoDBUsage{WritesPerSec: 1_000, ItemBytes: 2_560, Consistency: Strong,
		Consumed: &c})
	require.NoError(t, err)
	require.True(t, b.Measured)
	require.Equal(t, "measured: 1.5e+06 RCU and 1.8e+06 WCU consumed over 10m0s, as DynamoDB reported them "+
		"(the rules estimate 0 RCU/s and 3000 WCU/s; measured 2500 and 3000)", b.Basis)
	require.Equal(t, 2_500.0, b.RCU)
	require.Equal(t, 3_000.0, b.WCU)
	require.Equal(t, 3_000.0, b.EstimatedWCU)
	require.InDelta(t, 2_500*2.628*0.125+3_000*2.628*0.625, b.OnDemand, 1e-9)
	require.Equal(t, int64(3_572), b.ProvisionedRCU) // ceil(2,500 / 0.7)

	// Measured alone, with no rates, is enough.
	b, err = DynamoDB(&listPrices, DynamoDBUsage{Consumed: &c})
	require.NoError(t, err)
	require.Equal(t, "measured: 1.5e+06 RCU and 1.8e+06 WCU consumed over 10m0s, as DynamoDB reported them", b.Basis)
	require.Zero(t, b.EstimatedWCU)
	require.InDelta(t, 5_748.75, b.OnDemand, 1e-9)

	_, err = ConsumedFrom(map[string]float64{"dynamodb.retries": 3}, time.Minute)
	require.EqualError(t, err, "consumed capacity: no dynamodb.consumed_rcu or dynamodb.consumed_wcu counter")
}

// TestDynamoDBOldPrices reproduces a study priced before AWS halved
// on-demand prices on 2024-11-01: the worked example's 7,884 million
// WRU at $1.25 are $9,855.
func TestDynamoDBOldPrices(t *testing.T) {
	cat := load(t, "dynamodb-2023.good.yaml")
	b, err := DynamoDB(cat.DynamoDB, DynamoDBUsage{WritesPerSec: 1_000, ItemBytes: 2_560, Consistency: Strong})
	require.NoError(t, err)
	require.InDelta(t, 9_855.0, b.OnDemand, 1e-9)
	require.Equal(t, "2023-06", b.Prices.Compiled)
}

func TestDynamoDBRejects(t *testing.T) {
	ok := DynamoDBUsage{ReadsPerSec: 1, ItemBytes: 100, Consistency: Strong}
	with := func(f func(*DynamoDBUsage)) DynamoDBUsage { u := ok; f(&u); return u }
	for name, tc := range map[string]struct {
		prices *DynamoDBPrices
		in     DynamoDBUsage
		want   []string
	}{
		"no prices":   {nil, ok, []string{"the price catalogue has no DynamoDB prices"}},
		"no workload": {&listPrices, DynamoDBUsage{}, []string{"no workload"}},
		"rates and mix": {&listPrices, with(func(u *DynamoDBUsage) { u.OpsPerSec = 5 }),
			[]string{"not both"}},
		"negative reads": {&listPrices, with(func(u *DynamoDBUsage) { u.ReadsPerSec = -1 }),
			[]string{"reads -1 per second: want 0 or more"}},
		"mix not 1": {&listPrices, DynamoDBUsage{OpsPerSec: 10, Mix: Mix{Read: 0.5, Write: 0.4}, ItemBytes: 1, Consistency: Strong},
			[]string{"shares sum to 0.9, want 1"}},
		"mix without ops": {&listPrices, DynamoDBUsage{Mix: Mix{Read: 1}, ItemBytes: 1, Consistency: Strong},
			[]string{"ops 0 per second"}},
		"zero item": {&listPrices, with(func(u *DynamoDBUsage) { u.ItemBytes = 0 }),
			[]string{"item size 0 bytes: want 1 to 409600 (DynamoDB's 400 KB limit)"}},
		"item too big": {&listPrices, with(func(u *DynamoDBUsage) { u.ItemBytes = 400*1024 + 1 }),
			[]string{"item size 409601 bytes"}},
		"no consistency": {&listPrices, with(func(u *DynamoDBUsage) { u.Consistency = "" }),
			[]string{`consistency "": want "strong", "eventual" or "transactional"`}},
		"utilisation": {&listPrices, with(func(u *DynamoDBUsage) { u.Utilisation = 70 }),
			[]string{"utilisation 70: want a share in (0, 1]"}},
		"negative items": {&listPrices, with(func(u *DynamoDBUsage) { u.Items = -1 }), []string{"items -1"}},
		"no duration": {&listPrices, DynamoDBUsage{Consumed: &Consumed{RCU: 1}},
			[]string{"consumed capacity over 0s: want a measured duration above 0"}},
		"negative consumed": {&listPrices, DynamoDBUsage{Consumed: &Consumed{WCU: math.Inf(1), Duration: time.Second}},
			[]string{"consumed capacity 0 RCU, +Inf WCU"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := DynamoDB(tc.prices, tc.in)
			require.Error(t, err)
			require.ErrorContains(t, err, "dynamodb bill: ")
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
		})
	}
}

// TestDynamoDBBuiltinPrices checks the catalogue's DynamoDB prices reach
// the bill: the worked example's $4,927.50 on demand.
func TestDynamoDBBuiltinPrices(t *testing.T) {
	cat, err := Default()
	require.NoError(t, err)
	b, err := DynamoDB(cat.DynamoDB, DynamoDBUsage{WritesPerSec: 1_000, ItemBytes: 2_560, Consistency: Strong})
	require.NoError(t, err)
	require.InDelta(t, 4_927.50, b.OnDemand, 1e-9)
	require.Equal(t, "2025-06", b.Prices.Compiled)
}
