package driver

import "context"

// MetricKind says how a database metric's readings become figures.
type MetricKind int

// Metric kinds.
const (
	// MetricCounter is cumulative since some start (the server's, a reset):
	// figures are its per-second rate between two readings, named with
	// "_per_s" appended. A reading lower than the one before is a reset
	// and gives no figure for that interval.
	MetricCounter MetricKind = iota
	// MetricGauge is a level (bytes in memory, sessions waiting): figures are
	// the readings as they are.
	MetricGauge
	// MetricRatio is Part over Whole, two other metrics of the same
	// reading, per interval: their increases when they are counters,
	// their levels when gauges. A whole of 0 gives no figure. Over a
	// longer window a ratio is the sum of parts over the sum of wholes,
	// not a mean of ratios, so a second with few requests weighs what it
	// did.
	MetricRatio
)

// Metric is one figure a database reports about itself.
//
// Names are snake_case with the database as prefix and the unit as
// suffix where there is one: "pg_temp_bytes", "redis_used_memory_bytes",
// "cassandra_local_read_p99_ms", "pg_cache_hit_ratio" (a fraction in
// [0, 1]). A counter's figures get "_per_s" after its name.
type Metric struct {
	Name  string
	Kind  MetricKind
	Value float64
	// Host is the node the figure describes, for a database read node by
	// node (a Cassandra cluster's coordinators); "" is the database as
	// the connection sees it.
	Host string
	// Part and Whole name the metrics a MetricRatio divides (of the same Host).
	Part, Whole string
}

// MetricsReader is implemented by DBs that can read the database's own
// metrics: its cache hits and misses, lock waits, checkpoints,
// compactions, memory. The experiment opens a DB of its own for them,
// with one worker, and reads it once per sampling interval (a second),
// so a reading must be cheap for the server: a few catalogue views or
// one status command, in as few round trips as the protocol allows.
//
// A metric the server does not have (a view of another version, a table
// another fork lacks) is left out, not an error. An error is returned
// with the metrics that were read, and only says what could not be:
// the caller reports it once and keeps sampling.
type MetricsReader interface {
	ReadMetrics(ctx context.Context) ([]Metric, error)
}

// CountersAsMetrics returns a driver's own counts as database metrics: what the
// client saw of the server that the server does not report itself
// (DynamoDB's consumed capacity and throttles), named with dots as
// underscores.
func CountersAsMetrics(cs []Counter) []Metric {
	out := make([]Metric, len(cs))
	for i, c := range cs {
		out[i] = Metric{Name: underscored(c.Name), Kind: MetricCounter, Value: c.Value}
	}
	return out
}

// underscored is s with dots and dashes as underscores.
func underscored(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '.' || c == '-' {
			b[i] = '_'
		}
	}
	return string(b)
}
