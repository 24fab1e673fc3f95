package compare

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/results"
)

// comparability lists what differs between the runs in a way that
// changes the numbers for reasons other than the system under test:
// threads, target rate, records loaded, the targets' database, version,
// provider and size, the load generator's CPUs. Seeds are not compared:
// each repetition has its own seed anyway, so the samples already cover
// that variation.
func comparability(a, b *results.Data, ga, gb grouped) []string {
	var out []string
	if same(a, b) {
		out = append(out, fmt.Sprintf("A and B are the same run (%s, started %s): every change is 0 by construction; compare two runs",
			a.Dir, a.Manifest.Start.Format(time.RFC3339)))
	}
	for _, s := range []struct {
		side string
		d    *results.Data
	}{{"A", a}, {"B", b}} {
		if st := s.d.Manifest.Status; st != results.StatusCompleted {
			out = append(out, fmt.Sprintf("%s did not complete (status %q): %d of %d steps ran", s.side, st,
				s.d.Manifest.CompletedSteps, s.d.Manifest.PlannedSteps))
		}
		for _, w := range s.d.Warnings {
			out = append(out, s.side+": "+w)
		}
	}
	out = append(out, targetDiffs(a.Manifest.Targets, b.Manifest.Targets)...)
	if ca, cb := a.Manifest.Loader.CPUs, b.Manifest.Loader.CPUs; ca != cb && ca > 0 && cb > 0 {
		out = append(out, fmt.Sprintf("load generator CPUs differ: %d in A, %d in B", ca, cb))
	}

	var byKey keyed
	for _, k := range ga.order {
		tb, ok := gb.trials[k]
		if !ok {
			continue
		}
		ta := ga.trials[k]
		if x, y := distinct(ta, threadsOf), distinct(tb, threadsOf); x != y {
			byKey.add(fmt.Sprintf("threads differ: %s in A, %s in B", x, y), k)
		}
		if x, y := distinct(ta, rateOf), distinct(tb, rateOf); x != y {
			byKey.add(fmt.Sprintf("target rate differs: %s in A, %s in B", x, y), k)
		}
	}
	la, lb := group(a.Trials, results.KindLoad), group(b.Trials, results.KindLoad)
	for _, k := range la.order {
		x, y := distinct(completed(la.trials[k]), recordsOf), distinct(completed(lb.trials[k]), recordsOf)
		if x != "" && y != "" && x != y {
			byKey.add(fmt.Sprintf("records loaded differ: %s in A, %s in B (a different recordcount?)", x, y), k)
		}
	}
	return append(out, byKey.lines()...)
}

// targetDiffs compares the targets both manifests name.
func targetDiffs(a, b []results.TargetInfo) []string {
	var out []string
	for _, ta := range a {
		i := slices.IndexFunc(b, func(t results.TargetInfo) bool { return t.Name == ta.Name })
		if i < 0 {
			continue
		}
		tb := b[i]
		fields := []struct{ what, x, y string }{
			{"database", ta.Database, tb.Database},
			{"version", ta.Version, tb.Version},
			{"provider", ta.Provider, tb.Provider},
			{"driver", ta.Driver, tb.Driver},
			{"nodes", strconv.Itoa(ta.Nodes), strconv.Itoa(tb.Nodes)},
			{"CPU limit", limit(ta.CPUs, ""), limit(tb.CPUs, "")},
			{"memory limit", limit(float64(ta.MemoryBytes)/(1<<30), " GiB"), limit(float64(tb.MemoryBytes)/(1<<30), " GiB")},
		}
		for _, f := range fields {
			if f.x != f.y {
				out = append(out, fmt.Sprintf("target %s: %s differs: %s in A, %s in B", ta.Name, f.what, orUnknown(f.x), orUnknown(f.y)))
			}
		}
	}
	return out
}

func limit(v float64, unit string) string {
	if v == 0 {
		return "none"
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + unit
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func threadsOf(t *results.Trial) string { return strconv.Itoa(t.Threads) }

func rateOf(t *results.Trial) string {
	if t.TargetRate == 0 {
		return "unthrottled"
	}
	return strconv.FormatFloat(t.TargetRate, 'f', -1, 64) + " ops/s"
}

func recordsOf(t *results.Trial) string { return strconv.FormatInt(t.Operations, 10) }

func completed(trials []results.Trial) []results.Trial {
	var out []results.Trial
	for _, t := range trials {
		if t.Status == results.StatusCompleted {
			out = append(out, t)
		}
	}
	return out
}

// distinct is the sorted set of f over trials as "8" or "8/16".
func distinct(trials []results.Trial, f func(*results.Trial) string) string {
	var vs []string
	for i := range trials {
		if v := f(&trials[i]); !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	// Shorter first puts "8" before "16", as a reader counts.
	slices.SortFunc(vs, func(x, y string) int {
		return cmp.Or(cmp.Compare(len(x), len(y)), strings.Compare(x, y))
	})
	return strings.Join(vs, "/")
}

// keyed gathers warnings that hold for several keys into one line each,
// so that a run whose every trial had other threads warns once, not once
// per workload.
type keyed struct {
	order []string
	keys  map[string][]Key
}

func (w *keyed) add(msg string, k Key) {
	if w.keys == nil {
		w.keys = map[string][]Key{}
	}
	if _, ok := w.keys[msg]; !ok {
		w.order = append(w.order, msg)
	}
	w.keys[msg] = append(w.keys[msg], k)
}

// maxKeysNamed bounds the keys a warning names; the rest are counted.
const maxKeysNamed = 4

func (w *keyed) lines() []string {
	var out []string
	for _, msg := range w.order {
		ks := w.keys[msg]
		names := make([]string, 0, maxKeysNamed)
		for _, k := range ks[:min(len(ks), maxKeysNamed)] {
			names = append(names, k.String())
		}
		list := strings.Join(names, "; ")
		if len(ks) > maxKeysNamed {
			list += fmt.Sprintf(" and %d more", len(ks)-maxKeysNamed)
		}
		out = append(out, fmt.Sprintf("%s (%s)", msg, list))
	}
	return out
}

// same says whether a and b are one run read twice: the same directory,
// or copies of it (the same start and trials).
func same(a, b *results.Data) bool {
	if a.Dir != "" && b.Dir != "" {
		if x, err := filepath.Abs(a.Dir); err == nil {
			if y, err := filepath.Abs(b.Dir); err == nil && x == y {
				return true
			}
		}
	}
	return !a.Manifest.Start.IsZero() && a.Manifest.Start.Equal(b.Manifest.Start) && len(a.Trials) == len(b.Trials) &&
		a.Manifest.Experiment == b.Manifest.Experiment
}
