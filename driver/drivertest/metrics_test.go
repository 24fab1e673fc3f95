package drivertest_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/driver/drivertest"
)

// metricName is the form every database metric's name takes.
var metricName = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)+$`)

// testMetrics reads the database's own metrics before and after a small
// workload, on a DB of their own as the experiment opens one: the
// figures targets names are there, every ratio's part and whole are in
// the same reading, and the workload moved the counter it names.
func testMetrics(t *testing.T, d drivers.Info, tg target, props map[string]string) {
	ctx := context.Background()
	db, err := d.Open(ctx, driver.Params{Props: props, Workers: 1})
	require.NoError(t, err)
	defer db.Close()
	mr, ok := db.(driver.MetricsReader)
	if tg.metrics == nil {
		require.False(t, ok, "%s reads database metrics: name them in targets[%q].metrics", d.Name, d.Name)
		t.Skip("the driver reads no database metrics")
	}
	require.True(t, ok, "targets[%q].metrics names figures but the driver is no driver.MetricsReader", d.Name)
	// A database that does not exist yet has nothing to read: create it
	// as a load would.
	if sm, ok := db.(driver.SchemaManager); ok {
		require.NoError(t, sm.CreateSchema(ctx, driver.Schema{Table: "metrics_probe", Fields: []string{"field0"}}))
	}
	before := readMetrics(t, mr)
	o := tg.suites[0].opts
	o.Open, o.Prefix, o.Props, o.Records = d.Open, d.Prefix, merge(props, tg.suites[0].props), 100
	drivertest.Run(t, o)
	after := readMetrics(t, mr)
	for _, name := range tg.metrics {
		require.Contains(t, after, name, "after a workload")
	}
	for name := range after {
		first, _, _ := strings.Cut(name, "_")
		require.Contains(t, d.Metrics, first, "%s: the first word of %s is spelled for people in the driver table's Metrics", d.Name, name)
	}
	// A counter a fresh server has not started yet (FerretDB's, before
	// its first insert) counts from 0.
	require.Greater(t, after[tg.grows].Value, before[tg.grows].Value, "%s after a workload", tg.grows)
}

// readMetrics reads once and checks the reading's form; it returns the
// metrics by name (of the first host, for a cluster's).
func readMetrics(t *testing.T, mr driver.MetricsReader) map[string]driver.Metric {
	t.Helper()
	ms, err := mr.ReadMetrics(context.Background())
	require.NoError(t, err)
	byHost := map[string]map[string]driver.Metric{}
	out := map[string]driver.Metric{}
	for _, m := range ms {
		require.Regexp(t, metricName, m.Name)
		if byHost[m.Host] == nil {
			byHost[m.Host] = map[string]driver.Metric{}
		}
		require.NotContains(t, byHost[m.Host], m.Name, "twice in one reading")
		byHost[m.Host][m.Name] = m
		if _, ok := out[m.Name]; !ok {
			out[m.Name] = m
		}
	}
	for host, ms := range byHost {
		for _, m := range ms {
			if m.Kind != driver.MetricRatio {
				continue
			}
			part, whole := ms[m.Part], ms[m.Whole]
			require.NotEmpty(t, part.Name, "%s: part %s not in the reading of host %q", m.Name, m.Part, host)
			require.NotEmpty(t, whole.Name, "%s: whole %s not in the reading of host %q", m.Name, m.Whole, host)
			require.Equal(t, part.Kind, whole.Kind, "%s divides a %v by a %v", m.Name, part.Kind, whole.Kind)
		}
	}
	return out
}
