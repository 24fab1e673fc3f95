// Package runner owns the benchmark loop: it starts the workers, paces them
// (closed loop, or open loop at a target rate on an intended-start schedule),
// enforces operation-count and time limits, separates warm-up from the
// measured phase, collects interval results every second and stops
// gracefully when its context is cancelled.
//
// Workloads only say what the next operation is and drivers only perform
// it; every latency is taken here, the same way for every database.
package runner
