// Package measure records operation latencies into HdrHistograms and turns
// them into interval and cumulative results.
//
// Recording is striped: each worker writes to the stripe its id maps to, under
// that stripe's own mutex, so there is no lock shared by all workers on the
// hot path. Once per interval a collector swaps every stripe's active
// histograms for spare ones and merges the swapped-out set, so memory depends
// on the number of stripes and series, never on the length of the run or the
// number of operations.
//
// Every latency is recorded in nanoseconds. Under a target rate two latencies
// are kept per operation: service time (from the moment the operation was
// actually issued) and response time (from the moment the schedule intended it
// to be issued). Response time is free of coordinated omission; service time
// is what a tool without that correction reports.
package measure
