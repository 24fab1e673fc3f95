package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/analysis/cost"
	"github.com/dbarena/dbarena/analysis/sizing"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/internal/bounds"
	"github.com/dbarena/dbarena/results"
)

// sizeFlags are the options of dbarena size.
type sizeFlags struct {
	throughput      float64
	p99             string
	headroom        string
	prices          string
	perCore, perGiB string
	sizes           string
	level           float64
	confirm         bool
	confirmDir      string
}

func newSizeCommand(st *State) *cobra.Command {
	var f sizeFlags
	var format *formatValue
	cmd := &cobra.Command{
		Use:   "size RESULTS... --throughput OPS",
		Short: "The cheapest size that serves a throughput at the latency objective, from rate searches over sizes",
		Long: `Read the rate searches (run: {until: slo}) of one or more results directories,
usually one experiment over the matrix axis size, and answer per database and
workload: the cheapest size whose capacity at the objective covers the
throughput with the headroom, its monthly cost and cost per million
operations, how sure that is, and why the next cheaper size fails.

A size measured serves when a rate at or above the need met the objective.
With three or more sizes measured, capacity is fitted against cores
(Amdahl's law from three, the Universal Scalability Law from four) to
predict the sizes of --sizes (by default 1.5, 2, 3 and 4 times the largest
measured, when none measured serves); a predicted size serves only when its
whole prediction interval lies above the need, and each measured size's
error when predicted from the others (held out) is printed. Sizes whose
deciding probe was client-bound, host-saturated, not steady, lost a loader
or failed are refused and named.

Sizes are priced from the price catalogue: a machine type times its nodes,
or cores and memory at the per-vCPU and per-GiB rates of --per-core and
--per-gib (GCP N2D by default). Without --p99 the searches' own objective
stands; with it every probe is judged anew.`,
		Example: `  dbarena size dbarena-results/sizes-20261128-101500 --throughput 5000 --p99 5ms --headroom 30%
  dbarena size results/ --throughput 20000 --sizes 2,4,8 --prices my-prices.yaml
  dbarena size results/ --throughput 5000 --format json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(errors.New("size: want one or more results directories"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSize(cmd.Context(), st, &f, format, args)
		},
	}
	fl := cmd.Flags()
	fl.Float64Var(&f.throughput, "throughput", 0, "operations per second to serve (required)")
	fl.StringVar(&f.p99, "p99", "", "judge every probe by p99 <= this latency, such as 5ms (default: each search's objective)")
	fl.StringVar(&f.headroom, "headroom", "0", "spare capacity asked for, such as 30% or 0.3: the need is throughput x (1 + headroom)")
	fl.StringVar(&f.prices, "prices", "", "a prices file laid over the built-in catalogue")
	fl.StringVar(&f.perCore, "per-core", sizing.DefaultPerCore, "catalogue entry whose price per vCPU prices a size of cores")
	fl.StringVar(&f.perGiB, "per-gib", sizing.DefaultPerGiB, "catalogue entry whose price per GiB prices a size's memory")
	fl.StringVar(&f.sizes, "sizes", "", "cores of sizes not measured to predict, such as 2,4,8 (default: 1.5, 2, 3 and 4 times the largest measured)")
	fl.Float64Var(&f.level, "level", 0.9, "level of the prediction intervals")
	fl.BoolVar(&f.confirm, "confirm", false, "deploy each answer's size as its experiment file describes it, run at the throughput, and say whether the objective held (exit 1 if not)")
	fl.StringVar(&f.confirmDir, "confirm-results", "", "results directory of the confirming run (default: RESULTS-confirm-SIZE)")
	format = addFormatFlag(cmd)
	return cmd
}

// runSize answers `dbarena size`: reads the results directories, decides
// each database and workload's size, prints the answers and, with
// --confirm, runs them.
func runSize(ctx context.Context, st *State, f *sizeFlags, format *formatValue, args []string) error {
	ask, slo, cands, err := f.parse()
	if err != nil {
		return usageError(fmt.Errorf("size: %w", err))
	}
	if f.confirm && f.confirmDir != "" {
		// The confirming run makes its results directory: one already
		// there would be refused only after the answers were read.
		if _, err := os.Lstat(f.confirmDir); err == nil {
			return usageError(fmt.Errorf("size: --confirm-results %s: already exists; name a new directory for the confirming run", f.confirmDir))
		}
	}
	cat, err := loadPrices(f.prices)
	if err != nil {
		return usageError(fmt.Errorf("size: %w", err))
	}
	if err := checkPricedBy(cat, f.perCore, f.perGiB); err != nil {
		return usageError(fmt.Errorf("size: %w", err))
	}
	var data []*results.Data
	for _, dir := range args {
		d, err := results.Read(dir)
		if err != nil {
			return usageError(fmt.Errorf("size: %w", err))
		}
		for _, w := range d.Warnings {
			st.Logger.Warn(w, "dir", dir)
		}
		data = append(data, d)
	}
	pr := sizing.Pricing{Catalogue: cat, PerCore: f.perCore, PerGiB: f.perGiB}
	groups, err := sizing.Read(data, slo, pr)
	if err != nil {
		return usageError(fmt.Errorf("size: %w", err))
	}
	var out []sizeResult
	for i := range groups {
		g := &groups[i]
		gask := ask
		gask.Unit = g.Unit
		a, err := sizing.Decide(g.Sizes, g.Candidates(cands, pr, gask), gask)
		if err != nil {
			return usageError(fmt.Errorf("size: %s: %w", g.Database, err))
		}
		out = append(out, sizeResult{group: g, answer: a})
	}
	if format.json() {
		err = writeJSON(st.Stdout, sizeJSON(out))
	} else {
		err = writeSizes(st.Stdout, out)
	}
	if err != nil {
		return err
	}
	var none []string
	for _, r := range out {
		if r.answer.Outcome != sizing.Answered {
			none = append(none, fmt.Sprintf("%s at %s (%s)", r.group.Database, r.group.Workload, r.answer.Outcome))
		}
	}
	if f.confirm && len(none) < len(out) {
		cst := st
		if format.json() {
			// stdout holds the JSON alone.
			c := *st
			c.Stdout = st.Stderr
			cst = &c
		}
		if err := confirmAll(ctx, cst, f, out, data, slo); err != nil {
			return err
		}
	}
	if len(none) > 0 {
		// The answers are printed; the exit status says one is missing,
		// for a script that would otherwise read on as if answered.
		return &exitError{code: ExitFailure, err: fmt.Errorf("size: no answer for %s: see its answer line", strings.Join(none, ", "))}
	}
	return nil
}

// parse checks the flags and turns them into the ask, the objective to
// judge by (nil: the searches' own) and the cores of candidate sizes.
func (f *sizeFlags) parse() (sizing.Ask, *results.SLO, []float64, error) {
	var errs []error
	if !(f.throughput >= bounds.MinRate && f.throughput <= bounds.MaxRate) {
		errs = append(errs, fmt.Errorf("--throughput %v: want the operations (or TPC-C transactions) per second to serve, from %g to %g", f.throughput, bounds.MinRate, bounds.MaxRate))
	}
	h, err := spec.ParseShare(f.headroom)
	if err != nil || h < 0 || h > 10 {
		errs = append(errs, fmt.Errorf("--headroom %q: want a share of spare capacity such as 30%% or 0.3, from 0 to 1000%%", f.headroom))
	}
	if !(f.level > 0 && f.level < 1) {
		errs = append(errs, fmt.Errorf("--level %v: want a level between 0 and 1, such as 0.9", f.level))
	}
	var slo *results.SLO
	if f.p99 != "" {
		d, err := spec.ParseDuration(f.p99)
		if err != nil || d < time.Microsecond || d > time.Hour {
			// Under a microsecond no database answers, and the
			// histograms' resolution is a microsecond at that scale;
			// over an hour they do not record.
			errs = append(errs, fmt.Errorf("--p99 %q: want a latency such as 5ms or 800us, from 1us to 1h", f.p99))
		} else {
			slo = &results.SLO{Bounds: []results.SLOBound{{Percentile: "p99", MaxMs: float64(d) / float64(time.Millisecond)}}}
		}
	}
	var cands []float64
	if f.sizes != "" {
		for _, s := range strings.Split(f.sizes, ",") {
			c, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || !(c > 0 && c <= bounds.MaxCores) {
				errs = append(errs, fmt.Errorf("--sizes: %q: want cores above 0 and at most %d, such as 2,4,8", s, bounds.MaxCores))
				continue
			}
			cands = append(cands, c)
		}
	}
	return sizing.Ask{Throughput: f.throughput, Headroom: h, Level: f.level}, slo, cands, errors.Join(errs...)
}

// checkPricedBy refuses a --per-core or --per-gib entry the catalogue
// does not hold, or one without the vCPUs or memory to price by, before
// any size is priced by it.
func checkPricedBy(cat *cost.Catalogue, perCore, perGiB string) error {
	var errs []error
	for _, f := range []struct {
		flag, name, what string
		per              func(cost.Instance) float64
	}{
		{"--per-core", perCore, "vCPUs", func(in cost.Instance) float64 { return float64(in.VCPUs) }},
		{"--per-gib", perGiB, "memory", func(in cost.Instance) float64 { return in.MemoryGiB }},
	} {
		in, err := cat.Instance(f.name)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", f.flag, err))
		case !(f.per(in) > 0):
			errs = append(errs, fmt.Errorf("%s %s: the catalogue entry has no %s to price by", f.flag, f.name, f.what))
		}
	}
	return errors.Join(errs...)
}

// sizeResult is one group and its answer.
type sizeResult struct {
	group  *sizing.Group
	answer *sizing.Answer
}

// writeSizes prints each group's answer in a sentence, its options in a
// table, the fit with its held-out errors, refusals and notes.
func writeSizes(w io.Writer, out []sizeResult) error {
	var b strings.Builder
	for i, r := range out {
		g, a := r.group, r.answer
		if i > 0 {
			b.WriteString("\n")
		}
		u := g.Unit
		fmt.Fprintf(&b, "%s, workload %s%s, %s: need %s %s (%s %s", g.Database, g.Workload, paramSuffix(g.Params), g.Objective,
			results.FormatOps(a.Need), u.Rate(), results.FormatOps(a.Ask.Throughput), u.Rate())
		if a.Ask.Headroom > 0 {
			fmt.Fprintf(&b, " + %.0f%% headroom", 100*a.Ask.Headroom)
		}
		b.WriteString(")\n")
		fmt.Fprintf(&b, "  answer: %s\n", a.Sentence(g))
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  size\tcores\tcapacity %s\tbracket or interval\tsource\t$/month\t$/M %s\tserves\n", u.Rate(), u.Short())
		for j, o := range a.Options {
			mark := map[bool]string{true: "yes", false: "no"}[o.Serves]
			if j == a.Choice {
				mark += " <- answer"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", o.Label, num(o.Cores, "%g"), ops(o.Capacity), bracket(o),
				o.Source, num(o.Monthly, "%.2f"), num(o.PerMillion, "%.3g"), mark)
		}
		for _, m := range a.Refused {
			// Measured too: listed, its figures not used (why below).
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.Label, num(m.Cores, "%g"), ops(m.Rate), "-",
				sizing.SourceMeasured, num(m.Monthly, "%.2f"), "-", "refused")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if a.Fit != nil {
			fmt.Fprintf(&b, "  fit over cores: %s, λ %s %s per %g cores, σ %.3g, κ %.3g, R² %.3f\n", a.Fit.Model, results.FormatOps(a.Fit.Lambda), u.Rate(), a.Fit.Unit, a.Fit.Sigma, a.Fit.Kappa, a.Fit.R2)
			if len(a.HeldOut) > 0 {
				var parts []string
				for _, h := range a.HeldOut {
					parts = append(parts, fmt.Sprintf("%s %+.1f%%", h.Label, 100*h.Error))
				}
				fmt.Fprintf(&b, "  held out (each size predicted from the others): %s; largest %.1f%%\n", strings.Join(parts, ", "), 100*a.MaxHeldOut)
			}
		}
		for _, m := range a.Refused {
			fmt.Fprintf(&b, "  refused: %s: %s\n", m.Label, m.Refusal)
		}
		for _, n := range append(append([]string(nil), g.Notes...), a.Notes...) {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// paramSuffix is a matrix point as " (k=v, ...)", empty for none.
func paramSuffix(ps []results.Param) string {
	if len(ps) == 0 {
		return ""
	}
	var parts []string
	for _, p := range ps {
		parts = append(parts, p.Key+"="+p.Value)
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// num formats v, or "-" for NaN.
func num(v float64, f string) string {
	if math.IsNaN(v) || v == 0 && f == "%g" {
		return "-"
	}
	return fmt.Sprintf(f, v)
}

// ops formats a rate, or "-".
func ops(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return results.FormatOps(v)
}

// bracket is a measured size's rate met to the rate missed, or a
// predicted one's interval.
func bracket(o sizing.Option) string {
	switch {
	case math.IsNaN(o.Lo):
		return "-"
	case math.IsNaN(o.Hi):
		return ops(o.Lo) + " met, none missed"
	case o.Source == sizing.SourceMeasured:
		return ops(o.Lo) + " met, " + ops(o.Hi) + " missed"
	}
	return ops(math.Max(o.Lo, 0)) + " to " + ops(o.Hi)
}

// sizeJSONGroup is one group's answer as --format json prints it; null
// stands for a figure not known.
type sizeJSONGroup struct {
	Database  string          `json:"database"`
	Workload  string          `json:"workload"`
	Params    []results.Param `json:"params,omitempty"`
	Objective string          `json:"objective"`
	// Unit is what every rate of the group counts: "ops", or "tx" for
	// TPC-C's transactions (the field names keep "ops" for both).
	Unit       results.Unit `json:"unit"`
	Throughput float64      `json:"throughput_ops_sec"`
	Headroom   float64      `json:"headroom"`
	Need       float64      `json:"need_ops_sec"`
	Answer     string       `json:"answer"`
	// Outcome is "answered", "above every size" or "could not judge".
	Outcome sizing.Outcome    `json:"outcome"`
	Choice  *string           `json:"choice"`
	Cheaper *string           `json:"next_cheaper"`
	Options []sizeJSONOption  `json:"options"`
	Fit     *sizeJSONFit      `json:"fit,omitempty"`
	HeldOut []sizing.HeldOut  `json:"held_out,omitempty"`
	Refused []sizeJSONRefusal `json:"refused,omitempty"`
	Notes   []string          `json:"notes,omitempty"`
}

type sizeJSONOption struct {
	Size       string   `json:"size"`
	Cores      *float64 `json:"cores"`
	Capacity   *float64 `json:"capacity_ops_sec"`
	Low        *float64 `json:"low_ops_sec"`
	High       *float64 `json:"high_ops_sec"`
	Source     string   `json:"source"`
	Monthly    *float64 `json:"monthly_usd"`
	PerMillion *float64 `json:"usd_per_million_ops"`
	Serves     bool     `json:"serves"`
	Why        string   `json:"why"`
}

type sizeJSONFit struct {
	Model string `json:"model"`
	// Unit is the cores of N = 1, Lambda the throughput there.
	Unit   float64 `json:"unit_cores"`
	Lambda float64 `json:"lambda_ops_sec"`
	Sigma  float64 `json:"sigma"`
	Kappa  float64 `json:"kappa"`
	Level  float64 `json:"interval_level"`
}

type sizeJSONRefusal struct {
	Size string `json:"size"`
	Why  string `json:"why"`
}

func sizeJSON(out []sizeResult) []sizeJSONGroup {
	var js []sizeJSONGroup
	for _, r := range out {
		g, a := r.group, r.answer
		j := sizeJSONGroup{Database: g.Database, Workload: g.Workload, Params: g.Params, Objective: g.Objective, Unit: results.Unit(g.Unit.Short()),
			Throughput: a.Ask.Throughput, Headroom: a.Ask.Headroom, Need: a.Need, Answer: a.Sentence(g), Outcome: a.Outcome, HeldOut: a.HeldOut,
			Notes: append(append([]string(nil), g.Notes...), a.Notes...)}
		if a.Choice >= 0 {
			j.Choice = &a.Options[a.Choice].Label
		}
		if a.Cheaper >= 0 {
			j.Cheaper = &a.Options[a.Cheaper].Label
		}
		for _, o := range a.Options {
			j.Options = append(j.Options, sizeJSONOption{Size: o.Label, Cores: finiteOrNil(o.Cores), Capacity: finiteOrNil(o.Capacity), Low: finiteOrNil(o.Lo), High: finiteOrNil(o.Hi),
				Source: o.Source, Monthly: finiteOrNil(o.Monthly), PerMillion: finiteOrNil(o.PerMillion), Serves: o.Serves, Why: o.Why})
		}
		if a.Fit != nil {
			j.Fit = &sizeJSONFit{Model: a.Fit.Model, Unit: a.Fit.Unit, Lambda: a.Fit.Lambda, Sigma: a.Fit.Sigma, Kappa: a.Fit.Kappa, Level: a.Ask.Level}
		}
		for _, m := range a.Refused {
			j.Refused = append(j.Refused, sizeJSONRefusal{Size: m.Label, Why: m.Refusal})
		}
		js = append(js, j)
	}
	return js
}

// confirmAll confirms every answer found, one run each, and fails when
// one did not hold, could not be judged (its figures the client's or the
// machine's) or there was nothing to confirm.
func confirmAll(ctx context.Context, st *State, f *sizeFlags, out []sizeResult, data []*results.Data, slo *results.SLO) error {
	var failed, unjudged []string
	n := 0
	for _, r := range out {
		if r.answer.Choice < 0 {
			continue
		}
		var d *results.Data
		for _, x := range data {
			if x.Dir == r.group.Dir {
				d = x
			}
		}
		choice := r.answer.Options[r.answer.Choice]
		dir := f.confirmDir
		if dir == "" || n > 0 {
			dir = strings.TrimSuffix(r.group.Dir, "/") + "-confirm-" + choice.Label
		}
		n++
		got, err := confirm(ctx, st, confirmation{data: d, group: r.group, choice: choice, ask: r.answer.Ask, slo: slo}, dir)
		if err != nil {
			return fmt.Errorf("size --confirm: %s: %w", r.group.Database, err)
		}
		switch got {
		case sizing.NotConfirmed:
			failed = append(failed, r.group.Database+" at "+choice.Label)
		case sizing.Unjudged:
			unjudged = append(unjudged, r.group.Database+" at "+choice.Label)
		}
	}
	switch {
	case n == 0:
		return &exitError{code: ExitFailure, err: errors.New("size --confirm: no size serves, so there is nothing to confirm")}
	case len(failed) > 0:
		return &exitError{code: ExitFailure, err: fmt.Errorf("size --confirm: not confirmed: %s", strings.Join(failed, ", "))}
	case len(unjudged) > 0:
		return &exitError{code: ExitFailure, err: fmt.Errorf("size --confirm: could not confirm (the client or the machine made the figures; confirm again on a quieter machine): %s", strings.Join(unjudged, ", "))}
	}
	return nil
}
