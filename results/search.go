package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Search is one search for the highest rate a target sustains at the
// objective: what its probes proved.
type Search struct {
	// ID is the plan step searched; its probes' trial IDs extend it.
	ID       string  `json:"id"`
	Target   string  `json:"target"`
	Workload string  `json:"workload"`
	Params   []Param `json:"params,omitempty"`
	// Objective is the objective met, as SLO.String writes it.
	Objective string `json:"objective"`
	// Closed is the throughput of the closed-loop probe the search
	// started from (its trial ID.closed), in operations per second.
	Closed float64 `json:"closed_ops_sec"`
	// Rate is the highest rate that met the objective (0: none did),
	// Ceiling the lowest above it that missed (0: none probed).
	Rate    float64 `json:"rate_ops_sec"`
	Ceiling float64 `json:"ceiling_ops_sec"`
	// Resolved says Ceiling is within Resolution (a fraction) of Rate.
	Resolved   bool    `json:"resolved"`
	Resolution float64 `json:"resolution"`
	// Stop says why the search ended; Notes what a reader should know.
	Stop  string   `json:"stop"`
	Notes []string `json:"notes,omitempty"`
	// Probes are in the order run.
	Probes []SearchProbe `json:"probes"`
}

// SearchProbe is one rate a search offered and what it showed.
type SearchProbe struct {
	// Trial is the probe's trial ID.
	Trial    string  `json:"trial"`
	Rate     float64 `json:"rate_ops_sec"`
	Achieved float64 `json:"achieved_ops_sec"`
	Threads  int     `json:"threads"`
	// Outcome is "met", "missed" or "unfair" (the client or machine
	// made the result, or it was not steady: probed again).
	Outcome string `json:"outcome"`
	// Why says what missed or what made it unfair.
	Why string `json:"why,omitempty"`
}

// Describe says what a search found in one sentence: "4,212 ops/s
// meets p99 <= 5 ms; 4,400 ops/s misses (p99 6.21 ms > 5 ms): resolved to
// 4.5% in 7 probes".
func (s *Search) Describe() string {
	n := len(s.Probes)
	if s.Rate == 0 && s.Ceiling == 0 {
		// Nothing met and nothing missed: every probe was unfair or
		// could not run, which says nothing of the database.
		return fmt.Sprintf("no rate could be judged at %s (%s; %d probes, none of them fair)", s.Objective, s.Stop, n)
	}
	if s.Rate == 0 {
		return fmt.Sprintf("no rate met %s (%s; %d probes, closed loop %s ops/s)", s.Objective, s.Stop, n, FormatOps(s.Closed))
	}
	out := fmt.Sprintf("highest rate at %s: %s ops/s", s.Objective, FormatOps(s.Rate))
	if s.Ceiling > 0 {
		why := ""
		for _, p := range s.Probes {
			if p.Rate == s.Ceiling && p.Outcome == "missed" {
				why = " (" + p.Why + ")"
			}
		}
		out += fmt.Sprintf("; %s ops/s missed%s", FormatOps(s.Ceiling), why)
	}
	if s.Resolved {
		return out + fmt.Sprintf(": resolved to %.1f%% in %d probes", 100*(s.Ceiling/s.Rate-1), n)
	}
	return out + fmt.Sprintf(": not resolved to %.0f%% (%s)", 100*s.Resolution, s.Stop)
}

// opsText writes a rate with thousands separators and no decimals.
func FormatOps(v float64) string {
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// CoresLabel names a number of cores as sized targets' names do:
// millicores below a whole number ("250m", "1500m"), whole cores
// otherwise ("2cpu").
func CoresLabel(c float64) string {
	if c == math.Trunc(c) {
		return fmt.Sprintf("%.0fcpu", c)
	}
	return fmt.Sprintf("%.0fm", 1000*c)
}
