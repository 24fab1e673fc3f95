package driver

import "context"

// NativeStatser is implemented by databases that expose cheap figures of
// their own worth putting next to the benchmark's: PostgreSQL's
// buffer-cache hit ratio, Cassandra's cache hit ratios. Names are
// snake_case with the database as prefix ("pg_buffer_hit_ratio"); ratios
// are fractions in [0, 1]. Reading them must cost little: it runs after
// every trial.
type NativeStatser interface {
	NativeStats(ctx context.Context) (map[string]float64, error)
}
