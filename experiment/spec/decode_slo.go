package spec

import (
	"math"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/analysis/objective"
)

// SLO is a latency objective: the report says which steps of a sweep met
// it and the highest throughput that did ("max sustainable throughput at
// SLO").
type SLO struct {
	// Bounds are the percentiles bounded, in the file's order.
	Bounds []SLOBound
	// Achieved is the share of a step's target rate it must reach to
	// count as keeping up (rate-limited steps only).
	Achieved float64
}

// SLOBound bounds one latency percentile.
type SLOBound struct {
	// Percentile is one of objective.Percentiles.
	Percentile string
	Max        time.Duration
}

// slo decodes the slo section; nil when absent.
func (d *decoder) slo(n *yaml.Node) *SLO {
	if n == nil {
		return nil
	}
	f, ok := d.mapping(n, "slo", sectionKeys("slo"))
	if !ok {
		return nil
	}
	s := &SLO{Achieved: objective.DefaultAchieved}
	given := 0
	for _, p := range objective.Percentiles() {
		v := f.get(p)
		if v == nil {
			continue
		}
		given++
		str, ok := d.scalar(v, "slo."+p, "a duration")
		if !ok {
			continue
		}
		if max, err := ParseDuration(str); err == nil && max > 0 {
			s.Bounds = append(s.Bounds, SLOBound{Percentile: p, Max: max})
		} else {
			d.errorf(v, "slo."+p, "want a positive duration such as 10ms or 500us, got %q", str)
		}
	}
	if v := f.get("achieved"); v != nil {
		if a, ok := d.scalar(v, "slo.achieved", "a fraction"); ok {
			x, err := strconv.ParseFloat(a, 64)
			if err != nil || !(x > 0 && x <= 1) {
				d.errorf(v, "slo.achieved", "want a fraction in (0, 1] of the target rate a step must reach (0.95: within 5%%), got %q", a)
			} else {
				s.Achieved = x
			}
		}
	}
	if given == 0 {
		d.errorf(n, "slo", "want at least one latency bound, such as p99: 10ms (keys: p50, p90, p95, p99, p999)")
		return nil
	}
	if len(s.Bounds) < given {
		return nil // the bad bounds were reported
	}
	return s
}

// goal decodes the load to size for: a throughput above 0 and an
// optional headroom (a share: 20% or 0.2, at most 1000%).
func (d *decoder) goal(n *yaml.Node) *Goal {
	if n == nil {
		return nil
	}
	f, ok := d.mapping(n, "goal", sectionKeys("goal"))
	if !ok {
		return nil
	}
	g := &Goal{}
	if v := f.get("throughput"); v == nil {
		d.errorf(n, "goal", "want a throughput to serve in ops/s, such as {throughput: 5000, headroom: 20%%}")
	} else if str, ok := d.scalar(v, "goal.throughput", "a rate"); ok {
		x, err := strconv.ParseFloat(str, 64)
		if err != nil || !(x > 0) || math.IsInf(x, 0) {
			d.errorf(v, "goal.throughput", "want operations per second above 0, got %q", str)
		}
		g.Throughput = x
	}
	if v := f.get("headroom"); v != nil {
		if str, ok := d.scalar(v, "goal.headroom", "a share"); ok {
			h, err := ParseShare(str)
			if err != nil || h > 10 {
				d.errorf(v, "goal.headroom", "want spare capacity as a share such as 20%% or 0.2, from 0 to 1000%%, got %q", str)
			}
			g.Headroom = h
		}
	}
	return g
}
