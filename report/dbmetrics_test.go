package report

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/results"
)

// TestDBMetricsFigure: a metric that moved gets a panel on the
// experiment's clock, in its target's colour, below the throughput and
// p99; one that stayed still does not; without metrics there is no
// figure.
func TestDBMetricsFigure(t *testing.T) {
	d := fullFixture().write(t)
	s := summarize(d)
	require.Nil(t, dbMetricsFigure(d, s, newTimeline(d), "database-metrics"), "no dbmetrics.csv rows")

	var trial *results.Trial
	for i := range d.Trials {
		if d.Trials[i].Target == "postgres" && d.Trials[i].Kind == results.KindRun {
			trial = &d.Trials[i]
			break
		}
	}
	require.NotNil(t, trial)
	for i := range 5 {
		at := trial.Start.Add(time.Duration(i+1) * time.Second)
		d.DB = append(d.DB,
			results.DBMetric{Time: at, Trial: trial.ID, Host: "pg-host", Database: "postgres", Metric: "pg_cache_hit_ratio", Value: 0.9 + 0.01*float64(i)},
			results.DBMetric{Time: at, Trial: trial.ID, Host: "pg-host", Database: "postgres", Metric: "pg_deadlocks_per_s", Value: 0},
			results.DBMetric{Time: at, Trial: trial.ID, Host: "pg-host", Database: "postgres", Metric: "pg_commits_per_s", Value: 1000 + float64(i)})
	}
	f := dbMetricsFigure(d, s, newTimeline(d), "database-metrics")
	require.NotNil(t, f)
	var labels []string
	for _, p := range f.panels {
		labels = append(labels, p.Y.Label.Text)
	}
	require.Equal(t, []string{"ops/s", "p99 (ms)", "pg_cache_hit_ratio", "pg_commits_per_s"}, labels,
		"the ratio first; the metric that did not move is left out")
	res := resourceFigure(d, s, newTimeline(d), "resources")
	require.Equal(t, res.panels[0].X.Min, f.panels[2].X.Min, "the same clock as the resources figure")
	require.Equal(t, res.panels[0].X.Max, f.panels[2].X.Max)
	c := chartOf(f)
	require.Equal(t, "postgres", c.Panels[2].Series[0].Label, "drawn in its target's colour")
}
