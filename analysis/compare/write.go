package compare

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
)

// Write prints the report as text: a table of every change, then the
// notes on each key, the keys measured in one run only, and the warnings.
func (r *Report) Write(w io.Writer) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "A: %s\nB: %s\n", r.A, r.B)
	if len(r.Changes) == 0 {
		buf.WriteString("\nNo trials were measured in both runs: nothing to compare.\n")
	} else {
		level := r.Changes[0].Level
		fmt.Fprintf(&buf, "Values are mean ± standard deviation (repetitions); change is (B - A) / A with its %s%% Welch confidence interval.\n\n", pct(level))
		if err := r.writeTable(&buf, level); err != nil {
			return err
		}
	}
	r.writeNotes(&buf)
	writeKeys(&buf, "Only in A (not compared):", r.OnlyInA)
	writeKeys(&buf, "Only in B (not compared):", r.OnlyInB)
	if len(r.Warnings) > 0 {
		buf.WriteString("\nWarnings:\n")
		for _, s := range r.Warnings {
			fmt.Fprintf(&buf, "  %s\n", s)
		}
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write comparison: %w", err)
	}
	return nil
}

func (r *Report) writeTable(buf *bytes.Buffer, level float64) error {
	tw := tabwriter.NewWriter(buf, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "TARGET\tWORKLOAD\tPARAMS\tMETRIC\tA\tB\tCHANGE\t%s%% CI\tVERDICT\n", pct(level))
	var prev *Key
	for i := range r.Changes {
		c := &r.Changes[i]
		target, workload, params := c.Key.Target, c.Key.Workload, c.Key.Params
		if prev != nil && *prev == c.Key {
			// The key is printed once, on its first metric's row.
			target, workload, params = "", "", ""
		} else if params == "" {
			params = "-"
		}
		prev = &c.Key
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s %s\t%s\t%s\t%s\t%s\t%s\n", target, workload, params,
			c.Metric, c.Metric.Unit(), summary(c.A), summary(c.B), change(c.Delta), ci(c), c.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write comparison: %w", err)
	}
	return nil
}

// writeNotes prints each key's notes once: most hold for every metric of
// the key, and those that do not name their metric. A missing interval
// is left to the table's row, so that a run of single repetitions does
// not print one note per metric and key.
func (r *Report) writeNotes(buf *bytes.Buffer) {
	var lines []string
	var seen []string
	for i := range r.Changes {
		c := &r.Changes[i]
		if i > 0 && r.Changes[i-1].Key != c.Key {
			seen = seen[:0]
		}
		for _, n := range c.Notes {
			if n == oneRepNote(c) {
				continue
			}
			if !slices.Contains(seen, n) {
				seen = append(seen, n)
				lines = append(lines, fmt.Sprintf("  %s: %s\n", c.Key, n))
			}
		}
	}
	if len(lines) > 0 {
		buf.WriteString("\nNotes:\n")
		buf.WriteString(strings.Join(lines, ""))
	}
}

func writeKeys(buf *bytes.Buffer, title string, keys []Key) {
	if len(keys) == 0 {
		return
	}
	fmt.Fprintf(buf, "\n%s\n", title)
	for _, k := range keys {
		fmt.Fprintf(buf, "  %s\n", k)
	}
}

// summary is "1234 ± 56 (3)": mean, standard deviation, repetitions.
func summary(s Summary) string {
	switch s.N {
	case 0:
		return "- (0)"
	case 1:
		return fmt.Sprintf("%s (1)", num(s.Mean, s.Mean))
	}
	return fmt.Sprintf("%s ± %s (%d)", num(s.Mean, s.Mean), num(s.StdDev, s.Mean), s.N)
}

// num prints v with decimals suited to the magnitude of ref, so that a
// mean and its standard deviation line up: 45123, 350.2, 8.75.
func num(v, ref float64) string {
	switch ref = math.Abs(ref); {
	case ref >= 100:
		return fmt.Sprintf("%.0f", v)
	case ref >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func change(d float64) string {
	if math.IsNaN(d) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100*d)
}

func ci(c *Change) string {
	switch {
	case !math.IsNaN(c.Low):
		return fmt.Sprintf("[%+.1f%%, %+.1f%%]", 100*c.Low, 100*c.High)
	case c.Verdict == VerdictFewRepetitions && !math.IsNaN(c.Delta):
		return "too few repetitions for an interval"
	}
	return "-"
}

// pct is a level as a percentage: 95, 99.9.
func pct(level float64) string { return fmt.Sprintf("%.4g", 100*level) }
