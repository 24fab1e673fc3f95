package report

import (
	"fmt"
	"github.com/dbarena/dbarena/analysis/decide"
	"strings"

	"github.com/dbarena/dbarena/analysis/cost"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/workload"
)

// costView is the report's price-performance section.
type costView struct {
	Note string
	Rows []costRowView
}

// costRowView is one workload row's price-performance.
type costRowView struct {
	Label string
	// Unit is what the row's throughput counts: "ops", or "tx" for
	// TPC-C's transactions, so that its price is per million
	// transactions.
	Unit string
	// Demand is the row's best throughput, which every target is sized
	// to serve at the planned utilisation.
	Demand string
	Cells  []costCellView
	Notes  []string
}

// costCellView is one priced target in one row.
type costCellView struct {
	Target, Monthly, Rate, OpsPerDollar, PerMillion string
	Score, LatencyScore, ToServe                    string
	Best                                            bool
}

// serveUtilisation is the share of measured capacity a deployment is
// sized to run at for "cost to serve": the ScyllaDB/DynamoDB study's 75%.
const serveUtilisation = cost.DefaultUtilisation

// costSection prices every row for the targets the experiment priced;
// nil when it priced none.
func costSection(d *results.Data, s *summary) *costView {
	info := map[string]*results.TargetInfo{}
	var compiled string
	var sources []string
	for i := range d.Manifest.Targets {
		t := &d.Manifest.Targets[i]
		if t.Cost != nil {
			info[t.Name] = t
			if compiled == "" {
				compiled, sources = t.Cost.Compiled, t.Cost.Sources
			}
		}
	}
	if len(info) == 0 {
		return nil
	}
	v := &costView{Note: fmt.Sprintf("Monthly costs are for 730 hours at on-demand list prices from the price catalogue compiled %s (%s). They are indicative: check them against the providers' pages, and override them with a prices file. DynamoDB is billed from each trial's measured reads and writes by its capacity-unit rules.",
		orDash(compiled), strings.Join(sources, ", "))}
	for _, r := range s.rows {
		cr := costRowView{Label: r.label, Unit: rowUnit(r).Short()}
		var entries []cost.Entry
		var names []string
		var cells []*cell
		demand := 0.0
		for ti, name := range s.targets {
			c := &r.cells[ti]
			t := info[name]
			if t == nil || c.n == 0 || !finite(c.mean) || c.mean <= 0 {
				continue
			}
			monthly := t.Cost.MonthlyUSD
			if t.Cost.DynamoDB != nil {
				bill, err := dynamoBill(t, c)
				if err != nil {
					cr.Notes = append(cr.Notes, fmt.Sprintf("%s: %v", name, err))
					continue
				}
				monthly += bill.OnDemandTotal()
				cr.Notes = append(cr.Notes, fmt.Sprintf("%s as DynamoDB: on demand $%s a month, provisioned at %.0f%% $%s (%d RCU, %d WCU), storage $%s; %s",
					name, fmtUSD(bill.OnDemandTotal()), 100*bill.Utilisation, fmtUSD(bill.ProvisionedTotal()), bill.ProvisionedRCU, bill.ProvisionedWCU, fmtUSD(bill.Storage), bill.Basis))
			}
			if monthly <= 0 {
				continue
			}
			entries = append(entries, cost.Entry{Name: name, Throughput: c.mean, MonthlyCost: monthly, LatencyMs: c.lat.P99 / 1e3})
			names = append(names, name)
			cells = append(cells, c)
			demand = max(demand, c.mean)
		}
		if len(entries) == 0 {
			continue
		}
		scored, err := cost.Score(entries)
		if err != nil {
			cr.Notes = append(cr.Notes, err.Error())
			v.Rows = append(v.Rows, cr)
			continue
		}
		cr.Demand = fmtRate(demand)
		for i, res := range scored {
			cell := costCellView{Target: names[i], Monthly: "$" + fmtUSD(res.MonthlyCost), Rate: fmtRate(res.Throughput),
				OpsPerDollar: fmt.Sprintf("%.1f", res.OpsPerDollar), PerMillion: "$" + fmtPrice(res.CostPerMillion),
				Score: fmt.Sprintf("%.0f", res.Score), LatencyScore: fmt.Sprintf("%.0f", res.LatencyScore),
				Best: res.Rank == 1 && perDollarLead(i, scored, cells)}
			cell.ToServe = toServe(info[names[i]], res, demand)
			cr.Cells = append(cr.Cells, cell)
		}
		v.Rows = append(v.Rows, cr)
	}
	if len(v.Rows) == 0 {
		return nil
	}
	return v
}

// perDollarLead says whether entry i's throughput per dollar leads every
// other entry's as the verdict table's best mark must (leadOf): by more
// than tieRatio, with the interval of the throughput ratio at the
// verdict's level, scaled by the two monthly costs, above 1x. A row of one priced target has no
// lead to mark.
func perDollarLead(i int, scored []cost.Result, cells []*cell) bool {
	if len(scored) < 2 {
		return false
	}
	for j := range scored {
		if j == i {
			continue
		}
		if scored[i].OpsPerDollar < tieRatio*scored[j].OpsPerDollar {
			return false
		}
		// per dollar, i over j is (throughput i / j) x (cost j / i),
		// its interval at the level of the verdict's leads
		lo, _, ok := decide.RatioInterval(cells[j].throughput(), cells[i].throughput(), levelOf(decide.Rule{}))
		if !ok || lo*scored[j].MonthlyCost/scored[i].MonthlyCost <= 1 {
			return false
		}
	}
	return true
}

// toServe says what serving demand ops/s costs a target: units of its
// deployment at serveUtilisation of the capacity it measured, or, for
// DynamoDB, its on-demand bill scaled to the demand.
func toServe(t *results.TargetInfo, res cost.Result, demand float64) string {
	if t.Cost.DynamoDB != nil {
		return fmt.Sprintf("$%s a month on demand", fmtUSD(res.MonthlyCost*demand/res.Throughput))
	}
	p, err := cost.ToServe(cost.Demand{Target: demand, Capacity: res.Throughput, Utilisation: serveUtilisation, UnitMonthly: res.MonthlyCost})
	if err != nil {
		return dash
	}
	return fmt.Sprintf("%d x = $%s a month", p.Units, fmtUSD(p.Monthly))
}

// dynamoBill prices a cell's measured operations as DynamoDB: reads
// (and scans, one item each) and writes per second, averaged over the
// repetitions.
func dynamoBill(t *results.TargetInfo, c *cell) (*cost.DynamoDBBill, error) {
	var reads, writes, secs float64
	var consumed *cost.Consumed
	for _, tr := range c.trials {
		if tr.Duration <= 0 {
			continue
		}
		// The driver's consumed capacity covers the whole trial, warm-up
		// included: its span is start to end.
		if cu, err := cost.ConsumedFrom(tr.Counters, tr.End.Sub(tr.Start)); err == nil && cu.Duration > 0 {
			if consumed == nil {
				consumed = &cost.Consumed{}
			}
			consumed.RCU += cu.RCU
			consumed.WCU += cu.WCU
			consumed.Duration += cu.Duration
		}
		secs += tr.Duration.Seconds()
		for _, op := range tr.Ops {
			switch op.Name {
			case workload.Read.String(), workload.Scan.String():
				reads += float64(op.Operations)
			case workload.Update.String(), workload.Insert.String(), workload.Delete.String():
				writes += float64(op.Operations)
			case workload.ReadModifyWrite.String():
				reads += float64(op.Operations)
				writes += float64(op.Operations)
			}
		}
	}
	if secs == 0 {
		return nil, fmt.Errorf("no measured duration to bill")
	}
	consistency := cost.Eventual
	if strings.EqualFold(t.Properties["dynamodb.consistentreads"], "true") {
		consistency = cost.Strong
	}
	p := t.Cost.DynamoDB
	return cost.DynamoDB(&cost.DynamoDBPrices{Region: p.Region, WriteRequestUnitsPerMillion: p.WriteRequestUnitsPerMillion,
		ReadRequestUnitsPerMillion: p.ReadRequestUnitsPerMillion, WCUHour: p.WCUHour, RCUHour: p.RCUHour, StorageGBMonth: p.StorageGBMonth},
		cost.DynamoDBUsage{ReadsPerSec: reads / secs, WritesPerSec: writes / secs, ItemBytes: max(t.Cost.ItemBytes, 1),
			Consistency: consistency, Items: t.Cost.Items, Consumed: consumed})
}

// fmtUSD writes dollars with cents and thousands separators.
func fmtUSD(v float64) string {
	if !finite(v) {
		return dash
	}
	whole := int64(v)
	cents := int64((v-float64(whole))*100 + 0.5)
	if cents == 100 {
		whole, cents = whole+1, 0
	}
	return fmt.Sprintf("%s.%02d", groupThousands(whole), cents)
}

// fmtPrice writes a small price with four significant digits.
func fmtPrice(v float64) string {
	if !finite(v) {
		return dash
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4g", v), "0"), ".")
}

// rowUnit is what a row's throughput counts: transactions for a TPC-C
// row, operations otherwise (results.UnitOf of its first trial).
func rowUnit(r *row) results.Unit {
	for _, c := range r.cells {
		for _, t := range c.trials {
			return results.UnitOf(t)
		}
	}
	return results.UnitOperations
}
