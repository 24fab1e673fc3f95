package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dbarena/dbarena/results"
)

// designView is the report's account of how the comparison was made:
// what each database and the load generator ran on, how the databases
// were warmed, how many threads and why, and what every trial did. Each
// line says what was done, from the manifest, and why it matters for a
// fair comparison.
type designView struct {
	Lines []designLine
}

// designLine is one point of the design: a label and what was done.
type designLine struct{ Label, Text string }

// designSection describes the run's design; nil when the manifest says
// nothing of it (a directory written before it was recorded, and no
// pinned or calibrated target).
func designSection(m *results.Manifest, trials []results.Trial) *designView {
	v := &designView{}
	add := func(label, text string) {
		if text != "" {
			v.Lines = append(v.Lines, designLine{label, text})
		}
	}
	add("Cores", coresLine(m))
	add("Target warm-up", prewarmLine(m))
	add("Threads", threadsLine(m))
	add("Each trial", trialLine(m.Run))
	add("Order", orderLine(m, trials))
	if len(v.Lines) == 0 {
		return nil
	}
	return v
}

// coresLine says what each local database and the load generator ran
// on: "postgres on core 1, the load generator on core 0 (1 CPU (cfs
// quota ...), cgroup v1)"; for databases that shared the machine's
// cores with the client, that they did.
func coresLine(m *results.Manifest) string {
	var parts, shared []string
	for i := range m.Targets {
		t := &m.Targets[i]
		switch {
		case len(t.DatabaseCores) > 0:
			parts = append(parts, fmt.Sprintf("%s on %s of its own, the load generator on %s (%s)",
				t.Name, coreList(t.DatabaseCores), coreList(t.LoaderCores), orDash(t.Limits)))
		case t.Provider == "local":
			shared = append(shared, t.Name)
		}
	}
	out := strings.Join(parts, "; ")
	if len(parts) > 0 {
		out += ": neither took CPU from the other, and each database's limit is its own."
		if r := m.Run; r != nil && r.Together && len(parts) > 1 {
			out += " The databases were deployed side by side on those cores, each paused (its processes stopped) while another was measured, so that its background work fell on its own trials."
		}
	}
	if len(shared) > 0 {
		if out != "" {
			out += " "
		}
		out += fmt.Sprintf("%s shared this machine's cores with the load generator (no deploy.pin): where the machine saturated, the trials say so (host-saturated).",
			strings.Join(shared, ", "))
	}
	return out
}

// coreList writes "core 1" or "cores 2-3".
func coreList(cores []int) string {
	if len(cores) == 0 {
		return "no core"
	}
	names := make([]string, len(cores))
	for i, c := range cores {
		names[i] = fmt.Sprint(c)
	}
	if len(cores) == 1 {
		return "core " + names[0]
	}
	return "cores " + strings.Join(names, ", ")
}

// prewarmLine says how each target warmed up before its first trial.
func prewarmLine(m *results.Manifest) string {
	var parts []string
	for i := range m.Targets {
		t := &m.Targets[i]
		pw := t.Prewarm
		if pw == nil {
			continue
		}
		took := fmtSeconds(float64(len(pw.Blocks)) * pw.BlockSeconds)
		var rates []string
		for _, x := range pw.Blocks {
			rates = append(rates, fmtRate(x))
		}
		state := "warm after " + took
		if !pw.Settled {
			state = "still moving at the limit, " + took
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s ops/s)", t.Name, state, strings.Join(rates, ", ")))
	}
	if len(parts) == 0 {
		return ""
	}
	var first *results.Prewarm
	for i := range m.Targets {
		if first = m.Targets[i].Prewarm; first != nil {
			break
		}
	}
	// Manifests written before the window was recorded used three
	// blocks within 5%.
	n, spread := first.SettleBlocks, first.Spread
	if n == 0 {
		n, spread = 3, 0.05
	}
	return fmt.Sprintf("before its first trial, each database ran workload %s with %d workers, few enough to leave a JIT compiler CPU, in %s blocks, until %d blocks in a row agreed within %.0f%%: %s. A JIT still compiling would otherwise make the later trials faster than the first.",
		first.Workload, first.Threads, fmtSeconds(first.BlockSeconds), n, 100*spread, strings.Join(parts, "; "))
}

// threadsLine says how many workers each target's trials ran and why.
func threadsLine(m *results.Manifest) string {
	var parts []string
	for i := range m.Targets {
		c := m.Targets[i].Calibration
		if c == nil {
			continue
		}
		most := 0.0
		var ramp []string
		for _, p := range c.Points {
			most = max(most, p.Throughput)
			ramp = append(ramp, fmt.Sprintf("%d: %s", p.Threads, fmtRate(p.Throughput)))
		}
		parts = append(parts, fmt.Sprintf("%s %d (ramp on workload %s, ops/s by threads: %s)", m.Targets[i].Name, c.Threads, c.Workload, strings.Join(ramp, ", ")))
	}
	if len(parts) > 0 {
		out := "calibrated per database: the fewest workers reaching 95% of the most throughput a ramp of 1, 2, 4 ... found, so that each database is as busy as more workers would make it without the queueing they would add: " +
			strings.Join(parts, "; ") + "."
		if r := m.Run; r != nil && r.CommonThreads > 0 {
			out += fmt.Sprintf(" Every target then ran %d workers, the most any calibration chose: each figure, latency too, is read at the same concurrency.", r.CommonThreads)
		}
		return out
	}
	if r := m.Run; r != nil && r.Threads > 0 {
		return fmt.Sprintf("%d for every trial, as the experiment set them.", r.Threads)
	}
	return ""
}

// trialLine says what every trial did: its warm-up, its window and the
// repetitions.
func trialLine(r *results.RunDesign) string {
	if r == nil {
		return ""
	}
	var parts []string
	switch {
	case r.WarmupSteady:
		w := fmt.Sprintf("warmed up until its throughput was steady (the last 5 seconds within 10%%, at most %s)", fmtSeconds(r.WarmupSeconds))
		if r.RepeatWarmupSeconds > 0 {
			w += fmt.Sprintf("; repetitions after the first followed on the warm database and warmed up %s, those after a reload until steady again", fmtSeconds(r.RepeatWarmupSeconds))
		}
		parts = append(parts, w)
	case r.WarmupSeconds > 0:
		parts = append(parts, fmt.Sprintf("warmed up %s", fmtSeconds(r.WarmupSeconds)))
	default:
		parts = append(parts, "had no warm-up")
	}
	if r.DurationSeconds > 0 {
		parts = append(parts, fmt.Sprintf("measured %s", fmtSeconds(r.DurationSeconds)))
	}
	switch {
	case r.RepetitionsAuto:
		parts = append(parts, fmt.Sprintf("ran in rounds until every workload's comparison was decided, at least %d, within a budget of %s (%s)", r.Repetitions, fmtSeconds(r.BudgetSeconds), orDash(r.Stopped)))
	case r.Repetitions > 1:
		parts = append(parts, fmt.Sprintf("ran %d times, so every ratio has a confidence interval and a lead counts only where it excludes 1x", r.Repetitions))
	default:
		parts = append(parts, "ran once: no interval says how sure a ratio is")
	}
	return strings.Join(parts, "; ") + "."
}

// fmtSeconds writes 6 as "6s", 1.5 as "1.5s", 90 as "1m30s".
func fmtSeconds(s float64) string {
	if s >= 60 {
		m := int(s) / 60
		rest := s - float64(60*m)
		if rest == 0 {
			return fmt.Sprintf("%dm", m)
		}
		return fmt.Sprintf("%dm%gs", m, rest)
	}
	return fmt.Sprintf("%gs", s)
}

// orderLine says in what order the repetitions ran: in rounds drawn
// from the seed, the targets side by side or one after another, and
// each round's order as it ran ("round 1: c (cassandra, postgres), a
// (postgres, cassandra); round 2: ...").
func orderLine(m *results.Manifest, trials []results.Trial) string {
	r := m.Run
	if r == nil || r.Order == "" {
		return ""
	}
	if r.Order != "rounds" {
		return "each target's repetitions back to back (run.order: sequential, or a sweep or search whose steps follow each other)."
	}
	out := fmt.Sprintf("in rounds: each round ran every target's trial of every workload once, in an order drawn from seed %d (Randomized Multiple Interleaved Trials), so that a machine that drifts moves every target alike", m.Seed)
	switch {
	case r.Together:
		out += "; the targets were deployed side by side, and each workload's trials of the targets ran next to each other"
	case r.Apart != "":
		out += "; the targets ran one after another: " + r.Apart
	}
	rounds := map[int][]*results.Trial{}
	var keys []int
	for i := range trials {
		t := &trials[i]
		if t.Kind != results.KindRun || t.Repetition < 1 {
			continue
		}
		if _, ok := rounds[t.Repetition]; !ok {
			keys = append(keys, t.Repetition)
		}
		rounds[t.Repetition] = append(rounds[t.Repetition], t)
	}
	slices.Sort(keys)
	var ran []string
	for _, k := range keys {
		ts := rounds[k]
		slices.SortFunc(ts, func(a, b *results.Trial) int { return a.Start.Compare(b.Start) })
		var seq []string
		for _, t := range ts {
			seq = append(seq, t.Workload+"·"+t.Target)
		}
		ran = append(ran, fmt.Sprintf("round %d: %s", k, strings.Join(seq, ", ")))
	}
	if len(ran) > 0 {
		out += ". As it ran: " + strings.Join(ran, "; ")
	}
	return out + "."
}
