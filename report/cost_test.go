package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

func TestPricePerformance(t *testing.T) {
	fx := fullFixture()
	fx.targets[0].Cost = &results.TargetCost{MonthlyUSD: 200, Compiled: "2025-06", Sources: []string{"https://cloud.google.com/compute/vm-instance-pricing"}}
	fx.targets[1].Cost = &results.TargetCost{MonthlyUSD: 300, Compiled: "2025-06"}
	d := fx.write(t)
	var buf bytes.Buffer
	require.NoError(t, Render(&buf, d))
	html := buf.String()
	i := strings.Index(html, `<section id="price-performance">`)
	require.GreaterOrEqual(t, i, 0)
	sec := html[i : i+strings.Index(html[i:], "</section>")]
	requireHas(t, sec, "price catalogue compiled 2025-06 (https://cloud.google.com/compute/vm-instance-pricing)")
	// Workload a: postgres 12,300 ops/s for $200 = 61.5 ops/s per $, a
	// million operations for 200 / (12,300 x 2,628,000) x 1e6 = $0.006187;
	// cassandra 6,850 for $300 = 22.8, score 22.8 / 61.5 = 37. To serve
	// 12,300 ops/s at 75%: postgres ceil(1.33) = 2 x $200, cassandra
	// ceil(12,300 / 5,137.5) = 3 x $300.
	a := sec[strings.Index(sec, "<h3>a</h3>"):strings.Index(sec, "<h3>b</h3>")]
	requireHas(t, a, "<th>to serve 12,300 ops/s</th>")
	requireHas(t, a, `<tr class="best"><td>postgres</td><td class="num">$200.00</td><td class="num">12,300</td><td class="num">61.5</td><td class="num">$0.006187</td><td class="num">100</td>`)
	requireHas(t, a, `<td>2 x = $400.00 a month</td>`)
	requireHas(t, a, `<tr><td>cassandra</td><td class="num">$300.00</td><td class="num">6,850</td><td class="num">22.8</td>`)
	requireHas(t, a, `<td class="num">37</td>`)
	requireHas(t, a, `<td>3 x = $900.00 a month</td>`)

	// Unpriced experiments have no section.
	buf.Reset()
	require.NoError(t, Render(&buf, fullFixture().write(t)))
	require.NotContains(t, buf.String(), `id="price-performance"`)
}

func TestDynamoDBBillInReport(t *testing.T) {
	fx := fullFixture()
	fx.targets[1].Cost = &results.TargetCost{Compiled: "2025-06", ItemBytes: 2560, Items: 1_000_000,
		DynamoDB: &results.DynamoDBPrices{Region: "us-east-1", WriteRequestUnitsPerMillion: 0.625, ReadRequestUnitsPerMillion: 0.125,
			WCUHour: 0.00065, RCUHour: 0.00013, StorageGBMonth: 0.25}}
	d := fx.write(t)
	var buf bytes.Buffer
	require.NoError(t, Render(&buf, d))
	html := buf.String()
	sec := html[strings.Index(html, `<section id="price-performance">`):]
	requireHas(t, sec, "cassandra as DynamoDB: on demand $")
	requireHas(t, sec, "estimated from DynamoDB&#39;s capacity-unit rules: 2560-byte items, eventual reads")
}

func TestDynamoDBBillFromConsumedCapacity(t *testing.T) {
	fx := fullFixture()
	fx.targets[1].Cost = &results.TargetCost{Compiled: "2025-06", ItemBytes: 2560,
		DynamoDB: &results.DynamoDBPrices{Region: "us-east-1", WriteRequestUnitsPerMillion: 0.625, ReadRequestUnitsPerMillion: 0.125,
			WCUHour: 0.00065, RCUHour: 0.00013, StorageGBMonth: 0.25}}
	d := fx.write(t)
	for i := range d.Trials {
		if tr := &d.Trials[i]; tr.Target == "cassandra" && tr.Kind == results.KindRun {
			tr.Counters = map[string]float64{"dynamodb.consumed_rcu": 12000, "dynamodb.consumed_wcu": 24000}
		}
	}
	var buf bytes.Buffer
	require.NoError(t, Render(&buf, d))
	html := buf.String()
	sec := html[strings.Index(html, `<section id="price-performance">`):]
	// Each repetition consumed 12,000 RCU and 24,000 WCU over its 10 s
	// from start to end: 1,200 RCU/s and 2,400 WCU/s, billed instead of
	// the rules' estimate.
	requireHas(t, sec, "measured: 24000 RCU and 48000 WCU consumed over 20s, as DynamoDB reported them")
	requireHas(t, sec, "measured 1200 and 2400)")
}

// TestPriceBestOnlyWhereEstablished: the cost table highlights the top
// target of a row only where its lead per dollar is established; at
// equal prices, b's 1.1x [0.9x, 1.3x] is not, and one repetition has no
// interval.
func TestPriceBestOnlyWhereEstablished(t *testing.T) {
	priced := func(reps int) string {
		fx := fullFixture()
		fx.targets[0].Cost = &results.TargetCost{MonthlyUSD: 200, Compiled: "2025-06"}
		fx.targets[1].Cost = &results.TargetCost{MonthlyUSD: 200, Compiled: "2025-06"}
		for _, target := range []string{"postgres", "cassandra"} {
			for wl, rates := range fx.rates[target] {
				fx.rates[target][wl] = rates[:reps]
			}
		}
		var buf bytes.Buffer
		require.NoError(t, Render(&buf, fx.write(t)))
		html := buf.String()
		return html[strings.Index(html, `<section id="price-performance">`):]
	}
	sec := priced(2)
	for wl, best := range map[string]string{"a": `<tr class="best"><td>postgres</td>`, "b": "", "c": `<tr class="best"><td>postgres</td>`} {
		from := strings.Index(sec, "<h3>"+wl+"</h3>")
		part := sec[from : from+strings.Index(sec[from:], "</table>")]
		if best == "" {
			require.NotContains(t, part, `class="best"`, "workload %s", wl)
			requireHas(t, part, `<tr><td>cassandra</td>`, "cassandra leads b per dollar, not distinguishably")
			continue
		}
		requireHas(t, part, best, "workload "+wl)
	}
	require.NotContains(t, priced(1), `class="best"`, "one repetition: no interval, no lead")
}

// TestTPCCPricedPerTransaction: a TPC-C row's price is per million
// transactions, its throughput in tx/s; the other rows keep ops.
func TestTPCCPricedPerTransaction(t *testing.T) {
	fx := fullFixture()
	fx.targets[0].Cost = &results.TargetCost{MonthlyUSD: 200, Compiled: "2025-06"}
	fx.targets[1].Cost = &results.TargetCost{MonthlyUSD: 300, Compiled: "2025-06"}
	d := fx.write(t)
	for i := range d.Trials {
		if tr := &d.Trials[i]; tr.Workload == "b" && tr.Kind == results.KindRun {
			tr.Counters = map[string]float64{results.CounterTPCCWarehouses: 1, results.CounterTPCCSpecPaced: 0}
		}
	}
	var buf bytes.Buffer
	require.NoError(t, Render(&buf, d))
	html := buf.String()
	i := strings.Index(html, `<section id="price-performance">`)
	require.GreaterOrEqual(t, i, 0)
	sec := html[i : i+strings.Index(html[i:], "</section>")]
	a := sec[strings.Index(sec, "<h3>a</h3>"):strings.Index(sec, "<h3>b</h3>")]
	b := sec[strings.Index(sec, "<h3>b</h3>"):strings.Index(sec, "<h3>c</h3>")]
	requireHas(t, a, "<th>per million ops</th>")
	requireHas(t, b, "<th>tx/s per $</th><th>per million tx</th>")
	require.Contains(t, b, " tx/s</th>")
	require.NotContains(t, b, "per million ops")
	requireHas(t, html, `<tr class="note"><td></td><td colspan="22">TPC-C unpaced: `)
	// The verdict's sentence of each row counts in the row's unit.
	requireHas(t, html, "b: cassandra 10,000 tx/s")
	requireHas(t, html, "a: postgres 12,300 ops/s")
}
