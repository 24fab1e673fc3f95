// Package littles applies Little's law, L = lambda W, to load generation:
// a closed-loop worker has one operation in flight, so reaching a
// throughput at a given mean latency takes at least throughput x latency
// workers. Too few, and the benchmark measures the client, not the
// database: the ScyllaDB/DynamoDB study met exactly that with loaders that
// had too few threads.
package littles

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Concurrency is the mean number of operations in flight at a throughput
// (operations per second) and mean latency.
func Concurrency(throughput float64, latency time.Duration) float64 {
	return throughput * latency.Seconds()
}

// MaxThroughput is the most a closed loop of threads can issue at a mean
// latency: each thread completes one operation per latency.
func MaxThroughput(threads int, latency time.Duration) float64 {
	if latency <= 0 {
		return math.Inf(1)
	}
	return float64(threads) / latency.Seconds()
}

// Plan sizes the load generation for a target throughput.
type Plan struct {
	Throughput float64
	Latency    time.Duration
	// Concurrency is Little's L: operations in flight on average.
	Concurrency float64
	// Headroom multiplies the threads asked for (1.5 = 50% more), since
	// latency under load is higher than at rest and varies.
	Headroom float64
	// Threads is the recommended total: ceil(Concurrency x Headroom).
	Threads int
	// ThreadsPerLoader, when set, splits Threads over Loaders machines.
	ThreadsPerLoader int
	Loaders          int
	// Given is the thread count the user has (0: not given), and
	// Reachable the throughput it can reach at this latency.
	Given     int
	Reachable float64
}

// Size plans the threads (and loader machines) a throughput needs.
// threads is what the user has (0: unknown), perLoader how many threads
// one loader runs well (0: one loader).
func Size(throughput float64, latency time.Duration, headroom float64, threads, perLoader int) (*Plan, error) {
	var errs []error
	if !(throughput > 0) || math.IsInf(throughput, 0) {
		errs = append(errs, fmt.Errorf("throughput %v: want a positive number of operations per second", throughput))
	}
	if latency <= 0 {
		errs = append(errs, fmt.Errorf("latency %v: want a positive mean latency such as 2ms", latency))
	}
	if !(headroom >= 1) || math.IsInf(headroom, 1) {
		errs = append(errs, fmt.Errorf("headroom %v: want 1 or more (1.5 = 50%% more threads than the minimum)", headroom))
	}
	if threads < 0 || perLoader < 0 {
		errs = append(errs, errors.New("threads and threads per loader: want 0 (not given) or more"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	p := &Plan{Throughput: throughput, Latency: latency, Headroom: headroom, Given: threads,
		Concurrency: Concurrency(throughput, latency), ThreadsPerLoader: perLoader, Loaders: 1}
	// float64(math.MaxInt64) is 2^63: a count below it converts exactly
	// enough; one at or above it would wrap to -9223372036854775808.
	need := math.Ceil(p.Concurrency*headroom - 1e-9)
	if !(need < math.MaxInt64) {
		return nil, fmt.Errorf("throughput %v ops/s at %v with headroom %v needs %.3g threads: more than a thread count can hold (%d); check the units",
			throughput, latency, headroom, need, int64(math.MaxInt64))
	}
	p.Threads = max(int(need), 1)
	if perLoader > 0 {
		p.Loaders = p.Threads / perLoader
		if p.Threads%perLoader != 0 {
			p.Loaders++
		}
	}
	if threads > 0 {
		p.Reachable = MaxThroughput(threads, latency)
	}
	return p, nil
}

// String explains the plan in a few lines.
func (p *Plan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s ops/s at %s mean latency keeps %.1f operations in flight (Little's law: L = throughput x latency).\n",
		group(p.Throughput), p.Latency, p.Concurrency)
	fmt.Fprintf(&b, "A closed loop needs at least %d threads; with %.0f%% headroom for latency under load: %d threads",
		int(math.Ceil(p.Concurrency-1e-9)), (p.Headroom-1)*100, p.Threads)
	if p.ThreadsPerLoader > 0 {
		fmt.Fprintf(&b, ", i.e. %d loader(s) of %d threads", p.Loaders, p.ThreadsPerLoader)
	}
	b.WriteString(".\n")
	if p.Given > 0 {
		verdict := "enough"
		if p.Reachable < p.Throughput {
			verdict = "too few: the run would measure the client, not the database"
		}
		fmt.Fprintf(&b, "With %d threads: at most %s ops/s at this latency; %s.\n", p.Given, group(p.Reachable), verdict)
	}
	return b.String()
}

// group formats a rate with thousands separators.
func group(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
