// Package cost turns benchmark results into price-performance, as
// published database studies did by hand: a bare-metal versus cloud
// study scored throughput per dollar from 0 to 100; a ScyllaDB versus
// DynamoDB study priced DynamoDB from its capacity-unit rules and sized
// every system to run at 75% of what it sustained; a Postgres versus
// ScyllaDB study set the throughput a bigger cluster gained against the
// cost it added.
//
// The pieces:
//
//   - A price catalogue shipped as data (prices.yaml, embedded): on-demand
//     prices of the instance types those studies used and DynamoDB's, each
//     dated and sourced. The prices are indicative and must be checked;
//     LoadCatalogue adds or replaces entries from a user's file, decoded
//     strictly so a misspelt key is an error, not a zero price.
//   - MonthlyCost prices a deployment's resources for a 730-hour month.
//   - Score gives each target's ops/s per dollar, cost per million
//     operations and a 0-100 score, and latency x dollar; Scaling weighs
//     a scaled deployment against its base.
//   - ToServe sizes and prices the units a target throughput needs at a
//     planned utilisation.
//   - DynamoDB prices a workload under on-demand and provisioned capacity,
//     from the capacity-unit rules or from measured consumed capacity.
//
// Every figure is USD, every month HoursPerMonth (730) hours.
//
// A typical use:
//
//	cat, err := cost.Default()
//	...
//	monthly, err := cost.MonthlyCost(cat, []cost.Resource{{Instance: "i4i.xlarge", Count: 3}})
//	...
//	results, err := cost.Score([]cost.Entry{
//		{Name: "scylla", Throughput: 120_000, MonthlyCost: monthly, LatencyMs: 4.1},
//		{Name: "postgres", Throughput: 30_000, MonthlyCost: pgMonthly, LatencyMs: 9.8},
//	})
package cost
