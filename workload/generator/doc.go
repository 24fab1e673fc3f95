// Package generator implements YCSB's number generators: the choosers behind
// request distributions, field and scan lengths, and key sequences.
//
// Every draw takes the caller's *rand.Rand, so each worker owns its random
// stream and a run is reproducible from its seed. Draws do not allocate.
// Generators that keep state between draws (Zipfian with a changing item
// count, SkewedLatest) belong to one worker; the shared sequences (Counter,
// AcknowledgedCounter, Sequential) are safe for concurrent use.
//
// The algorithms and constants are YCSB's, so that a distribution named in a
// YCSB workload file picks keys the same way here.
package generator

import "math/rand/v2"

// Int draws integers.
type Int interface {
	Next(r *rand.Rand) int64
}

// LastValuer reports the last value of a sequence that is known to exist.
type LastValuer interface {
	Last() int64
}
