package cost_test

import (
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/analysis/cost"
)

// Pricing two deployments from the built-in catalogue, with one price
// replaced by an override file, and scoring their price-performance.
func ExampleScore() {
	cat, err := cost.LoadCatalogue(strings.NewReader(`
compiled: "2025-07-01"
sources: [https://example.com/our-quote]
instances:
  i4i.xlarge: {provider: aws, region: us-east-1, vcpus: 4, memory_gib: 32, local_nvme_gb: 937, hourly_usd: 0.25}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	scylla, err := cost.MonthlyCost(cat, []cost.Resource{{Instance: "i4i.xlarge", Count: 3}})
	if err != nil {
		fmt.Println(err)
		return
	}
	postgres, err := cost.MonthlyCost(cat, []cost.Resource{{Instance: "r5.xlarge", Count: 1, ExtraHourly: 0.08}})
	if err != nil {
		fmt.Println(err)
		return
	}
	results, err := cost.Score([]cost.Entry{
		{Name: "scylla", Throughput: 150_000, MonthlyCost: scylla, LatencyMs: 3},
		{Name: "postgres", Throughput: 40_000, MonthlyCost: postgres, LatencyMs: 8},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		fmt.Printf("%-8s $%7.2f/month %6.1f ops/s per $ $%.5f per million ops score %5.1f (#%d) latency x $ score %5.1f (#%d)\n",
			r.Name, r.MonthlyCost, r.OpsPerDollar, r.CostPerMillion, r.Score, r.Rank, r.LatencyScore, r.LatencyRank)
	}
	// Output:
	// scylla   $ 547.50/month  274.0 ops/s per $ $0.00139 per million ops score 100.0 (#1) latency x $ score 100.0 (#1)
	// postgres $ 242.36/month  165.0 ops/s per $ $0.00231 per million ops score  60.2 (#2) latency x $ score  84.7 (#2)
}

// Sizing a cluster for a target at 75% of the measured per-node
// capacity.
func ExampleToServe() {
	p, err := cost.ToServe(cost.Demand{Target: 1_000_000, Capacity: 100_000, UnitMonthly: 751.17, MinUnits: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d nodes, $%.2f a month, running at %.1f%%\n", p.Units, p.Monthly, 100*p.Load)
	// Output:
	// 14 nodes, $10516.38 a month, running at 71.4%
}

// DynamoDB's bill for 1,000 writes/s of 2.5 KB items.
func ExampleDynamoDB() {
	cat, err := cost.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := cost.DynamoDB(cat.DynamoDB, cost.DynamoDBUsage{
		WritesPerSec: 1_000, ItemBytes: 2_560, Consistency: cost.Strong, Items: 100_000_000})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b.Basis)
	fmt.Printf("on demand:   %.0f WCU/s -> $%.2f + storage $%.2f = $%.2f\n", b.WCU, b.OnDemand, b.Storage, b.OnDemandTotal())
	fmt.Printf("provisioned: %d WCU at %.0f%% -> $%.2f + storage $%.2f = $%.2f\n",
		b.ProvisionedWCU, 100*b.Utilisation, b.Provisioned, b.Storage, b.ProvisionedTotal())
	// Output:
	// estimated from DynamoDB's capacity-unit rules: 2560-byte items, strong reads, 1 read and 3 write units per operation
	// on demand:   3000 WCU/s -> $4927.50 + storage $61.93 = $4989.43
	// provisioned: 4286 WCU at 70% -> $2033.80 + storage $61.93 = $2095.73
}
