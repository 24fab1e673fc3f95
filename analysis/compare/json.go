package compare

import "math"

// JSON is a Report in the form `dbarena compare --format json` prints,
// for CI jobs that archive and parse a comparison. Its field names are an
// interface: fields may be added, never renamed or given a new meaning.
// A number that does not exist (the mean of no repetitions, the interval
// of a single one, a change relative to 0) is null, never NaN, which
// JSON cannot carry.
type JSON struct {
	// A and B name the two runs (their directories).
	A string `json:"a"`
	B string `json:"b"`
	// Level is the confidence level of the intervals, such as 0.95.
	Level float64 `json:"level"`
	// Changes has one entry per key measured in both runs and metric.
	Changes []JSONChange `json:"changes"`
	// OnlyInA and OnlyInB are the keys measured in one run only.
	OnlyInA []JSONKey `json:"only_in_a"`
	OnlyInB []JSONKey `json:"only_in_b"`
	// Warnings say why the runs may not be comparable at all.
	Warnings []string `json:"warnings"`
	// Slower counts the changes judged slower: --fail-on-slower exits 3
	// when it is not 0.
	Slower int `json:"slower"`
}

// JSONKey identifies comparable trials: target, workload and matrix
// point.
type JSONKey struct {
	Target   string `json:"target"`
	Workload string `json:"workload"`
	// Params is the matrix point as "k=v;k=v", sorted by key; "" for
	// none.
	Params string `json:"params"`
}

// JSONChange is one metric of one key compared across the runs.
type JSONChange struct {
	JSONKey
	// Metric is throughput, p50, p99, p999 or mean (the latency of all
	// operation types merged); Unit is "ops/s" or "µs".
	Metric Metric   `json:"metric"`
	Unit   string   `json:"unit"`
	A      JSONSide `json:"a"`
	B      JSONSide `json:"b"`
	// Change is (mean B - mean A) / mean A as a fraction: 0.12 is +12%.
	Change *float64 `json:"change"`
	// Low and High bound Change's confidence interval at Level.
	Low  *float64 `json:"low"`
	High *float64 `json:"high"`
	// Verdict is faster, slower, "no significant difference", "not
	// enough repetitions" or "no relative change: A is 0".
	Verdict string `json:"verdict"`
	// Notes qualify the numbers: repetitions left out, errors, validity
	// flags, a missing interval.
	Notes []string `json:"notes"`
}

// JSONSide is one run's repetitions of one metric.
type JSONSide struct {
	// N is the number of repetitions with a value.
	N int `json:"n"`
	// Mean is their mean, StdDev their sample standard deviation (null
	// for fewer than two).
	Mean   *float64 `json:"mean"`
	StdDev *float64 `json:"stddev"`
}

// JSON returns r in its JSON form.
func (r *Report) JSON() JSON {
	j := JSON{A: r.A, B: r.B, Level: r.Level, Changes: []JSONChange{}, OnlyInA: jsonKeys(r.OnlyInA),
		OnlyInB: jsonKeys(r.OnlyInB), Warnings: r.Warnings, Slower: r.Slower()}
	if j.Warnings == nil {
		j.Warnings = []string{}
	}
	for _, c := range r.Changes {
		notes := c.Notes
		if notes == nil {
			notes = []string{}
		}
		j.Changes = append(j.Changes, JSONChange{
			JSONKey: jsonKey(c.Key), Metric: c.Metric, Unit: c.Metric.Unit(),
			A: jsonSide(c.A), B: jsonSide(c.B),
			Change: number(c.Delta), Low: number(c.Low), High: number(c.High),
			Verdict: c.Verdict, Notes: notes,
		})
	}
	return j
}

// Slower counts the changes judged slower.
func (r *Report) Slower() int {
	n := 0
	for _, c := range r.Changes {
		if c.Verdict == VerdictSlower {
			n++
		}
	}
	return n
}

func jsonKey(k Key) JSONKey { return JSONKey{Target: k.Target, Workload: k.Workload, Params: k.Params} }

// jsonKeys is never nil: an empty list prints as [], which a consumer
// need not tell apart from null.
func jsonKeys(ks []Key) []JSONKey {
	out := make([]JSONKey, 0, len(ks))
	for _, k := range ks {
		out = append(out, jsonKey(k))
	}
	return out
}

func jsonSide(s Summary) JSONSide {
	return JSONSide{N: s.N, Mean: number(s.Mean), StdDev: number(s.StdDev)}
}

// number is v, or nil for NaN and the infinities.
func number(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
