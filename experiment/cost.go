package experiment

import (
	"fmt"

	"github.com/dbarena/dbarena/analysis/cost"
	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/workload"
)

// costOf prices a target for the manifest: its resources' monthly cost,
// or DynamoDB's prices with the item size and count of its first step's
// workload, which a bill needs.
func costOf(t *spec.Target, cat *cost.Catalogue, steps []*spec.Step) (*results.TargetCost, error) {
	if t.Cost == nil || cat == nil {
		return nil, nil
	}
	tc := &results.TargetCost{Compiled: cat.Compiled, Sources: cat.Sources}
	if len(t.Cost.Resources) > 0 {
		var rs []cost.Resource
		for _, r := range t.Cost.Resources {
			res := cost.Resource{Instance: r.Instance, Count: r.Count, ExtraHourly: r.ExtraHourly}
			unit, err := cost.MonthlyCost(cat, []cost.Resource{{Instance: r.Instance, Count: 1, ExtraHourly: r.ExtraHourly}})
			if err != nil {
				return nil, fmt.Errorf("target %s: cost: %w", t.Name, err)
			}
			tc.Resources = append(tc.Resources, results.CostResource{Instance: r.Instance, Count: r.Count, ExtraHourly: r.ExtraHourly, UnitMonthlyUSD: unit})
			rs = append(rs, res)
		}
		m, err := cost.MonthlyCost(cat, rs)
		if err != nil {
			return nil, fmt.Errorf("target %s: cost: %w", t.Name, err)
		}
		tc.MonthlyUSD = m
	}
	if t.Cost.DynamoDB && cat.DynamoDB != nil {
		p := cat.DynamoDB
		tc.DynamoDB = &results.DynamoDBPrices{Region: p.Region, WriteRequestUnitsPerMillion: p.WriteRequestUnitsPerMillion,
			ReadRequestUnitsPerMillion: p.ReadRequestUnitsPerMillion, WCUHour: p.WCUHour, RCUHour: p.RCUHour, StorageGBMonth: p.StorageGBMonth}
		if len(steps) > 0 {
			if wcfg, _, err := workload.ParseConfig(steps[0].Properties, drivers.Prefixes()); err == nil {
				tc.ItemBytes, tc.Items = itemBytes(wcfg), wcfg.RecordCount
			}
		}
	}
	return tc, nil
}

// itemBytes is a YCSB record's size as DynamoDB counts it: attribute
// names and values, the key attribute included.
func itemBytes(c workload.Config) int {
	n := len("YCSB_KEY") + len(workload.KeyName(c.RecordCount, c.InsertOrder == workload.InsertHashed, c.ZeroPadding))
	for _, f := range c.FieldNames() {
		n += len(f) + int(c.FieldLength)
	}
	return n
}
