package spec

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dbarena/dbarena/internal/plural"
)

// Write prints the plan for --dry-run: a line about the experiment, a
// table of the steps, a closing line with the counts and an estimate of
// the time, and the warnings. The estimate sums the runs' durations and
// warm-ups; loads and operation-count runs are of unknown length and the
// line says how many there are.
func (p *Plan) Write(w io.Writer) error {
	s := p.Spec
	seed := "chosen at run time"
	if s.Seed != 0 {
		seed = fmt.Sprint(s.Seed)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	ew := &errWriter{w: tw}
	ew.printf("experiment %s (%s): seed %s; results under %s/\n", s.Name, s.File, seed, strings.TrimSuffix(s.Results, "/"))
	ew.printf("STEP\tID\tKIND\tTARGET\tDATABASE\tDRIVER\tWORKLOAD\tPARAMS\tTHREADS\tRATE\tLENGTH\tWARM-UP\n")
	for i := range p.Steps {
		st := &p.Steps[i]
		ew.printf("%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", st.Index, st.ID, st.Kind,
			st.Target.Name, st.Target.Database, st.Target.Driver, st.Workload.Name, params(st.Params),
			threadsText(st), stepRateText(st), lengthText(st), dashIfZero(st.Warmup))
	}
	if ew.err != nil {
		return ew.err
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write plan: %w", err)
	}
	ew.w = w
	ew.printf("%s\n", p.summary())
	if line := p.orderText(); line != "" {
		ew.printf("%s\n", line)
	}
	for _, wn := range p.Warnings {
		ew.printf("warning: %s\n", wn)
	}
	return ew.err
}

// summary is the closing line: counts and the time estimate.
func (p *Plan) summary() string {
	timed, opRuns := p.estimate()
	var unknown []string
	if n := p.LoadCount(); n > 0 {
		unknown = append(unknown, plural.Count(n, "load"))
	}
	if opRuns > 0 {
		unknown = append(unknown, plural.Count(opRuns, "operation-count run"))
	}
	estimate := "unknown"
	switch {
	case timed > 0 && len(unknown) > 0:
		estimate = "at least " + durationText(timed)
	case timed > 0:
		estimate = durationText(timed)
	}
	if len(unknown) > 0 {
		estimate += " (plus " + strings.Join(unknown, " and ") + " of unknown length)"
	}
	return fmt.Sprintf("%s (%s, %s) on %s and %s; estimated time: %s",
		plural.Count(len(p.Steps), "step"), plural.Count(p.LoadCount(), "load"), plural.Count(p.RunCount(), "run"),
		plural.Count(len(p.Spec.Targets), "target"), plural.Count(len(p.Spec.Workloads), "workload"), estimate)
}

func params(kvs []KV) string {
	if len(kvs) == 0 {
		return "-"
	}
	parts := make([]string, len(kvs))
	for i, kv := range kvs {
		parts[i] = kv.Key + "=" + kv.Value
	}
	return strings.Join(parts, " ")
}

// stepRateText is a step's rate: "searched" for a rate search.
func stepRateText(st *Step) string {
	if st.Search {
		return "searched"
	}
	return rateText(st.Rate)
}

func rateText(r float64) string {
	if r == 0 {
		return "-"
	}
	return formatRate(r) + "/s"
}

func lengthText(st *Step) string {
	switch {
	case st.Kind == Load:
		return plural.Count(int(st.Operations), "record")
	case st.Operations > 0:
		return fmt.Sprintf("%d ops", st.Operations)
	case st.Search:
		return fmt.Sprintf("~%d x %s", 1+SearchProbes, durationText(st.Duration))
	}
	return durationText(st.Duration)
}

func dashIfZero(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return durationText(d)
}

// durationText drops the zero units time.Duration.String writes: "1m"
// rather than "1m0s", "2h" rather than "2h0m0s".
func durationText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// errWriter keeps the first write error so the table code stays flat.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	if _, err := fmt.Fprintf(e.w, format, args...); err != nil {
		e.err = fmt.Errorf("write plan: %w", err)
	}
}

// threadsText is a step's threads, "auto" for a calibrated count.
func threadsText(st *Step) string {
	if st.ThreadsAuto {
		return ThreadsAuto
	}
	return fmt.Sprint(st.Threads)
}

// orderText says how the repetitions run: in rounds drawn from the seed
// (and, for repetitions: auto, the budget that bounds the rounds added),
// or back to back per target; "" for one repetition.
func (p *Plan) orderText() string {
	r := p.Spec.Run
	seed := "the seed chosen at run time"
	if p.Spec.Seed != 0 {
		seed = fmt.Sprintf("seed %d", p.Spec.Seed)
	}
	switch {
	case r.RepetitionsAuto:
		head := fmt.Sprintf("repetitions: auto: the %d rounds above, in orders drawn from %s", p.Rounds(), seed)
		if timed, _ := p.estimate(); timed >= r.Budget {
			// The first rounds always run: a budget they already spend
			// adds none, and the run takes what they take.
			return fmt.Sprintf("%s; they take at least %s, the budget of %s from the start: no round is added (run.budget above %s lets rounds be added until every workload is decided)",
				head, durationText(timed), durationText(r.Budget), durationText(timed))
		}
		return fmt.Sprintf("%s, then a round at a time until every workload's comparison is decided, while another fits the budget of %s from the start (the run takes at most about %s, and trials measured again after it)",
			head, durationText(r.Budget), durationText(r.Budget))
	case r.Repetitions <= 1:
		return ""
	case r.Rounds():
		return fmt.Sprintf("order: %d rounds, each visiting every target and workload once in an order drawn from %s", p.Rounds(), seed)
	}
	return "order: each target's repetitions back to back (sequential)"
}
