// Package saturation finds where a system stops scaling in a sweep: the
// step at which adding clients stops adding throughput, the knee of the
// latency-throughput curve, the highest throughput that still meets a
// latency objective, and the latency at a stated share of the maximum
// throughput (a ScyllaDB/DynamoDB study reported everything at 75%).
package saturation

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Point is one step of a sweep: the swept value (clients, threads,
// nodes, or a target rate), the throughput reached and its latency.
type Point struct {
	// N is the swept value.
	N float64
	// X is the throughput reached (ops/s).
	X float64
	// Latency is a latency figure in milliseconds (mean or a percentile,
	// as the caller chooses).
	Latency float64
}

// Saturation says where throughput stopped growing.
type Saturation struct {
	// Index is the first point of the plateau: the last one whose step
	// still gained at least MinGain (-1: never saturated).
	Index int
	// MaxIndex is the point of highest throughput.
	MaxIndex int
	MinGain  float64
	Steps    int
}

// Saturated reports whether the last k relative gains of xs are all below
// minGain: the stopping rule of a client sweep run "until saturated".
// With fewer than k+1 values it is false.
func Saturated(xs []float64, minGain float64, k int) bool {
	if k < 1 || len(xs) < k+1 {
		return false
	}
	for i := len(xs) - k; i < len(xs); i++ {
		if gain(xs[i-1], xs[i]) >= minGain {
			return false
		}
	}
	return true
}

func gain(prev, cur float64) float64 {
	if prev <= 0 {
		return math.Inf(1)
	}
	return (cur - prev) / prev
}

// Find locates the plateau of a sweep sorted by N: the first point after
// which k consecutive steps each gain less than minGain.
func Find(pts []Point, minGain float64, k int) (Saturation, error) {
	if err := check(pts); err != nil {
		return Saturation{}, err
	}
	if k < 1 || minGain < 0 {
		return Saturation{}, fmt.Errorf("saturation: want k >= 1 and a gain threshold >= 0, got k=%d, gain=%v", k, minGain)
	}
	s := Saturation{Index: -1, MinGain: minGain, Steps: k}
	for i, p := range pts {
		if p.X > pts[s.MaxIndex].X {
			s.MaxIndex = i
		}
	}
	for i := 0; i+k < len(pts); i++ {
		flat := true
		for j := i + 1; j <= i+k; j++ {
			if gain(pts[j-1].X, pts[j].X) >= minGain {
				flat = false
				break
			}
		}
		if flat {
			s.Index = i
			break
		}
	}
	return s, nil
}

// Knee returns the index of the knee of the latency-throughput curve:
// the point of highest power, throughput divided by latency (Kleinrock's
// optimal operating point: beyond it, each extra unit of throughput costs
// more latency than it did before).
func Knee(pts []Point) (int, error) {
	if err := check(pts); err != nil {
		return 0, err
	}
	best, bestPower := -1, math.Inf(-1)
	for i, p := range pts {
		if p.Latency <= 0 || math.IsNaN(p.Latency) {
			continue
		}
		if power := p.X / p.Latency; power > bestPower {
			best, bestPower = i, power
		}
	}
	if best < 0 {
		return 0, errors.New("saturation: no point has a positive latency")
	}
	return best, nil
}

// Enough returns the index of the first point (the fewest clients, in a
// sweep sorted by N) whose throughput reaches share of the sweep's
// highest: where more clients stop adding much. A calibration that
// chooses threads uses it with 0.95.
func Enough(pts []Point, share float64) (int, error) {
	if err := check(pts); err != nil {
		return 0, err
	}
	if !(share > 0 && share <= 1) {
		return 0, fmt.Errorf("saturation: want a share in (0, 1], got %v", share)
	}
	most := 0.0
	for _, p := range pts {
		most = math.Max(most, p.X)
	}
	for i, p := range pts {
		if p.X >= share*most {
			return i, nil
		}
	}
	return len(pts) - 1, nil // unreachable: the highest point reaches it
}

// RatePoint is one step of a target-rate sweep.
type RatePoint struct {
	Target, Achieved float64
	// Latency is the figure the objective is stated on (e.g. p99, ms).
	Latency float64
}

// MaxAtSLO returns the highest throughput achieved in a step that met
// the latency objective and kept up with its target (achieved at least
// minShare of the target, e.g. 0.95), and that step's index; -1 when no
// step qualifies.
func MaxAtSLO(pts []RatePoint, sloMs, minShare float64) (float64, int) {
	best, idx := 0.0, -1
	for i, p := range pts {
		if p.Latency <= sloMs && p.Achieved >= minShare*p.Target && p.Achieved > best {
			best, idx = p.Achieved, i
		}
	}
	return best, idx
}

// LatencyAtShare interpolates the latency at share (0..1] of the sweep's
// highest throughput, linearly between the two points around it on the
// rising part of the curve (up to the maximum).
func LatencyAtShare(pts []Point, share float64) (float64, error) {
	if err := check(pts); err != nil {
		return 0, err
	}
	if !(share > 0 && share <= 1) {
		return 0, fmt.Errorf("saturation: share %v: want a fraction in (0, 1]", share)
	}
	maxI := 0
	for i, p := range pts {
		if p.X > pts[maxI].X {
			maxI = i
		}
	}
	want := share * pts[maxI].X
	rising := append([]Point(nil), pts[:maxI+1]...)
	sort.SliceStable(rising, func(i, j int) bool { return rising[i].X < rising[j].X })
	if want <= rising[0].X {
		return rising[0].Latency, nil
	}
	for i := 1; i < len(rising); i++ {
		a, b := rising[i-1], rising[i]
		if want <= b.X {
			f := (want - a.X) / (b.X - a.X)
			return a.Latency + f*(b.Latency-a.Latency), nil
		}
	}
	return rising[len(rising)-1].Latency, nil
}

func check(pts []Point) error {
	if len(pts) == 0 {
		return errors.New("saturation: no points")
	}
	for i, p := range pts {
		if math.IsNaN(p.X) || p.X < 0 || math.IsNaN(p.N) {
			return fmt.Errorf("saturation: point %d (N=%v): throughput %v is not a number >= 0", i, p.N, p.X)
		}
		if i > 0 && p.N < pts[i-1].N {
			return fmt.Errorf("saturation: points must be sorted by N; %v comes after %v", p.N, pts[i-1].N)
		}
	}
	return nil
}
