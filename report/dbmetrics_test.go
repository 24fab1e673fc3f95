package report

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"

	"github.com/dbarena/dbarena/results"
)

// runTrial is the first measured trial of the target in d.
func runTrial(t *testing.T, d *results.Data, target string) *results.Trial {
	t.Helper()
	for i := range d.Trials {
		if d.Trials[i].Target == target && d.Trials[i].Kind == results.KindRun {
			return &d.Trials[i]
		}
	}
	t.Fatalf("no run of %s", target)
	return nil
}

// addMetric appends five seconds of a metric of the trial's target from
// the trial's start, the values of f(second).
func addMetric(d *results.Data, trial *results.Trial, host, metric string, f func(i int) float64) {
	for i := range 5 {
		d.DB = append(d.DB, results.DBMetric{Time: trial.Start.Add(time.Duration(i+1) * time.Second), Trial: trial.ID,
			Host: host, Database: trial.Database, Metric: metric, Value: f(i)})
	}
}

// TestDBMetricsFigure: a metric that moved gets a panel on the
// experiment's clock, titled in words, its unit on the axis and in its
// target's colour, below the throughput and p99; one that stayed still
// does not; without metrics there is no figure.
func TestDBMetricsFigure(t *testing.T) {
	d := fullFixture().write(t)
	s := summarize(d)
	require.Nil(t, dbMetricsFigure(d, s, newTimeline(d), "database-metrics"), "no dbmetrics.csv rows")

	trial := runTrial(t, d, "postgres")
	addMetric(d, trial, "pg-host", "pg_cache_hit_ratio", func(i int) float64 { return 0.9 + 0.01*float64(i) })
	addMetric(d, trial, "pg-host", "pg_deadlocks_per_s", func(int) float64 { return 0 })
	addMetric(d, trial, "pg-host", "pg_commits_per_s", func(i int) float64 { return 1000 + float64(i) })
	f := dbMetricsFigure(d, s, newTimeline(d), "database-metrics")
	require.NotNil(t, f)
	var titles, units []string
	for _, p := range f.panels {
		titles, units = append(titles, p.Title.Text), append(units, p.Y.Label.Text)
	}
	require.Equal(t, []string{"", "", "PostgreSQL cache hit ratio (5-s moving mean)", "PostgreSQL commits"}, titles,
		"the ratio first; the metric that did not move is left out")
	require.Equal(t, []string{"ops/s", "p99 (ms)", "%", "per second"}, units)
	commits := lineOf(t, f.panels[3])
	require.Equal(t, []float64{1000, 1001, 1002, 1003, 1004}, ysOf(commits), "a count per second, drawn as read")
	ratio := lineOf(t, f.panels[2])
	// The moving mean of 90, 91, 92, 93, 94 over two seconds either side.
	require.InDeltaSlice(t, []float64{91, 91.5, 92, 92.5, 93}, ysOf(ratio), 1e-9, "in percent, smoothed")
	require.Contains(t, f.Caption, "5-second moving mean")
	require.NotContains(t, f.Caption, "share of the", "every metric that moved is drawn")

	res := resourceFigure(d, s, newTimeline(d), "resources")
	require.Equal(t, res.panels[0].X.Min, f.panels[2].X.Min, "the same clock as the resources figure")
	require.Equal(t, res.panels[0].X.Max, f.panels[2].X.Max)
	c := chartOf(f)
	require.Equal(t, "postgres", c.Panels[2].Series[0].Label, "drawn in its target's colour")
	require.Equal(t, "PostgreSQL cache hit ratio (5-s moving mean)", c.Panels[2].Title, "the interactive chart has the title")
	require.Equal(t, "%", c.Panels[2].Label)
}

// lineOf is the panel's one line.
func lineOf(t *testing.T, p *panel) *plotter.Line {
	t.Helper()
	var out *plotter.Line
	for _, it := range p.items {
		if l, ok := it.(*plotter.Line); ok {
			require.Nil(t, out, "one line")
			out = l
		}
	}
	require.NotNil(t, out)
	return out
}

func ysOf(l *plotter.Line) []float64 {
	var ys []float64
	for _, xy := range l.XYs {
		ys = append(ys, xy.Y)
	}
	return ys
}

// TestDBPanelsShareOut: every target gets its turn at the panels, so a
// database of many metrics does not crowd out one of few; the panels
// come grouped by target, and a metric two targets share is one panel.
func TestDBPanelsShareOut(t *testing.T) {
	moving := func(target string) *dbSeries {
		return &dbSeries{target: target, xs: []float64{1, 2}, ys: []float64{0, 5}}
	}
	still := &dbSeries{target: "redis", xs: []float64{1, 2}, ys: []float64{3, 3}}
	metrics := func(prefix string, n int, target string) map[string][]*dbSeries {
		out := map[string][]*dbSeries{}
		for i := range n {
			out[fmt.Sprintf("%s_m%02d_per_s", prefix, i)] = []*dbSeries{moving(target)}
		}
		return out
	}
	join := func(ms ...map[string][]*dbSeries) map[string][]*dbSeries {
		out := map[string][]*dbSeries{}
		for _, m := range ms {
			for k, v := range m {
				out[k] = append(out[k], v...)
			}
		}
		return out
	}
	targets := []string{"postgres", "redis"}
	tests := []struct {
		name      string
		byMetric  map[string][]*dbSeries
		pg, redis panelCount
	}{
		{"22 and 5: redis has all of its", join(metrics("pg", 22, "postgres"), metrics("redis", 5, "redis")), panelCount{22, 11}, panelCount{5, 5}},
		{"22 and 12: half each", join(metrics("pg", 22, "postgres"), metrics("redis", 12, "redis")), panelCount{22, 8}, panelCount{12, 8}},
		{"7 and 9: all fit", join(metrics("pg", 7, "postgres"), metrics("redis", 9, "redis")), panelCount{7, 7}, panelCount{9, 9}},
		{"a metric that stayed still is no one's", join(metrics("pg", 3, "postgres"), map[string][]*dbSeries{"redis_x": {still}}), panelCount{3, 3}, panelCount{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			panels, counts := dbPanelsOf(targets, tc.byMetric)
			require.Equal(t, []panelCount{tc.pg, tc.redis}, counts)
			require.Len(t, panels, tc.pg.drawn+tc.redis.drawn)
			for i, p := range panels {
				mine := p.series[0].target
				if i > 0 {
					require.False(t, mine == "postgres" && panels[i-1].series[0].target == "redis", "grouped by target")
				}
			}
		})
	}

	// Two PostgreSQL servers report the same metrics: one panel each,
	// with both lines, and each target counts them as drawn.
	shared := map[string][]*dbSeries{}
	for i := range 20 {
		name := fmt.Sprintf("pg_m%02d_per_s", i)
		shared[name] = []*dbSeries{moving("pg-a"), moving("pg-b")}
	}
	panels, counts := dbPanelsOf([]string{"pg-a", "pg-b"}, shared)
	require.Len(t, panels, maxDBPanels)
	require.Equal(t, []panelCount{{20, 16}, {20, 16}}, counts)
	for _, p := range panels {
		require.Len(t, p.series, 2)
	}
}

// TestDBMetricsCaptionSaysWhatIsLeftOut: when the panels do not hold
// every metric that moved, the caption says how many of each target's.
func TestDBMetricsCaptionSaysWhatIsLeftOut(t *testing.T) {
	d := fullFixture().write(t)
	pg, cass := runTrial(t, d, "postgres"), runTrial(t, d, "cassandra")
	for i := range 20 {
		addMetric(d, pg, "pg-1", fmt.Sprintf("pg_m%02d_per_s", i), func(j int) float64 { return float64(j) })
	}
	for i := range 3 {
		addMetric(d, cass, "cass-1", fmt.Sprintf("cassandra_m%d", i), func(j int) float64 { return float64(j) })
	}
	f := dbMetricsFigure(d, summarize(d), newTimeline(d), "database-metrics")
	require.NotNil(t, f)
	require.Len(t, f.panels, 2+maxDBPanels)
	require.Contains(t, f.Caption, "Each target gets its share of the 16 panels: postgres 13 of 20, cassandra 3 of 3 that moved")
	require.Equal(t, "Cassandra m0", f.panels[2+13].Title.Text, "cassandra's panels after postgres'")
	require.Equal(t, "count", f.panels[2+13].Y.Label.Text)
}

// TestLookOf: a metric's title is its name in words, the database
// spelt out, and its unit is the one its name ends in.
func TestLookOf(t *testing.T) {
	tests := []struct {
		metric, title, unit string
		scale               float64
		share               bool
	}{
		{"pg_cache_hit_ratio", "PostgreSQL cache hit ratio", "%", 100, true},
		{"pg_lwlock_wait_share", "PostgreSQL LWLock wait share", "%", 100, true},
		{"pg_commits_per_s", "PostgreSQL commits", "per second", 1, false},
		{"pg_temp_bytes_per_s", "PostgreSQL temp bytes", "bytes per second", 1, false},
		{"pg_sessions_cpu", "PostgreSQL sessions CPU", "count", 1, false},
		{"pg_waiting_wal_flush_IO_WALSync", "PostgreSQL waiting WAL flush I/O WALSync", "count", 1, false},
		{"pg_wal_flush_wait_share_IO_WALSync", "PostgreSQL WAL flush wait share (I/O WALSync)", "%", 100, true},
		{"cassandra_cache_key_hit_ratio", "Cassandra cache key hit ratio", "%", 100, true},
		{"pg_share_", "PostgreSQL share", "count", 1, false},
		{"postgres_retries_per_s", "PostgreSQL driver retries", "per second", 1, false},
		{"redis_used_memory_bytes", "Redis used memory", "bytes", 1, false},
		{"redis_cpu_user_seconds_per_s", "Redis CPU user seconds", "seconds per second", 1, false},
		{"mysql_row_lock_wait_ms_per_s", "MySQL row lock wait ms", "ms per second", 1, false},
		{"mongodb_resident_mebibytes", "MongoDB resident", "MiB", 1, false},
		{"scylla_reactor_utilization_percent", "ScyllaDB reactor utilization", "%", 1, true},
		{"cql_lwt_not_applied_per_s", "CQL driver LWT not applied", "per second", 1, false},
		{"dynamodb_consumed_rcu_per_s", "DynamoDB consumed RCU", "per second", 1, false},
		{"unknowndb_queue", "Unknowndb queue", "count", 1, false},
		{"_per_s", "Per s", "count", 1, false},
		{"ratio", "Ratio", "count", 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.metric, func(t *testing.T) {
			require.Equal(t, metricLook{title: tc.title, unit: tc.unit, scale: tc.scale, share: tc.share}, lookOf(tc.metric))
		})
	}
}

// TestSmoothing: a share and a series of only 0 and 1 are drawn as a
// moving mean, a count that takes other values as read; the mean stops
// at a gap in the samples rather than reaching across it.
func TestSmoothing(t *testing.T) {
	require.True(t, zeroOne([]*dbSeries{{ys: []float64{0, 1, 1, 0}}}))
	require.False(t, zeroOne([]*dbSeries{{ys: []float64{0, 1, 2, 0}}}))
	require.False(t, zeroOne([]*dbSeries{{ys: []float64{0, 1}}, {ys: []float64{0.5}}}), "every series")

	xs := []float64{1, 2, 3, 4, 5, 20, 21}
	ys := []float64{0, 1, 0, 1, 0, 1, 1}
	require.InDeltaSlice(t, []float64{1.0 / 3, 0.5, 0.4, 0.5, 1.0 / 3, 1, 1}, movingMean(xs, ys, 2.5), 1e-12)
	require.Equal(t, ys, movingMean(xs, ys, 0.5), "a window narrower than the samples leaves them as they are")

	d := fullFixture().write(t)
	trial := runTrial(t, d, "postgres")
	addMetric(d, trial, "pg-1", "pg_sessions_lock", func(i int) float64 { return float64(i % 2) })
	addMetric(d, trial, "pg-1", "pg_sessions_active", func(i int) float64 { return float64(2 + i%3) })
	f := dbMetricsFigure(d, summarize(d), newTimeline(d), "database-metrics")
	require.NotNil(t, f)
	byTitle := map[string][]float64{}
	for _, p := range f.panels[2:] {
		byTitle[p.Title.Text] = ysOf(lineOf(t, p))
	}
	require.Equal(t, []float64{2, 3, 4, 2, 3}, byTitle["PostgreSQL sessions active"], "a count as read")
	locks := byTitle["PostgreSQL sessions lock (5-s moving mean)"]
	require.Len(t, locks, 5)
	for _, y := range locks {
		require.True(t, y > 0 && y < 1, "0 and 1 averaged: %v", locks)
	}
	require.False(t, math.IsNaN(locks[0]))
}
