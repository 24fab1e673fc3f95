package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/merge"
)

func newMergeCommand(st *State) *cobra.Command {
	var (
		out, jsonOut string
		window       time.Duration
		offsets      []string
		format       func() error
	)
	cmd := &cobra.Command{
		Use:   "merge FILE.hlog|DIR...",
		Short: "Merge several loaders' HdrHistogram logs into one series and summary",
		Long: `Merge the per-second HdrHistogram interval logs (--hdr-log) of several loader
processes that shared one run (dbarena ycsb run --loader I/N --run-id ID
--start-at TIME) into one cluster-wide series: intervals are put into common
time windows and their histograms added per operation, never averaged, so
the merged percentiles are those of every operation any loader measured.
A directory stands for the .hlog files in it. --offset corrects a loader
whose clock was off: FILE=+30ms means its clock read 30 ms ahead.`,
		Example: `  dbarena merge loader-*.hlog
  dbarena merge --out merged.hlog --json merged.json --offset loader-2.hlog=+42ms results/`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(errors.New("merge: want at least one .hlog file or directory"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if window <= 0 {
				return usageError(fmt.Errorf("merge: --window %s: want a positive duration such as 1s", window))
			}
			if err := format(); err != nil {
				return err
			}
			text, err := textWriter(st, output{"--out", out}, output{"--json", jsonOut})
			if err != nil {
				return err
			}
			inputs, err := mergeInputs(args, offsets)
			if err != nil {
				return usageError(err)
			}
			r, err := merge.Merge(inputs, merge.Options{Window: window})
			if err != nil {
				return usageError(err)
			}
			if out != "" {
				if err := writeFile(st, out, func(w io.Writer) error {
					return r.WriteLog(w, fmt.Sprintf("dbarena %s; merged from %d loaders; values in nanoseconds", Version, len(inputs)))
				}); err != nil {
					return &exitError{code: ExitFailure, err: fmt.Errorf("merge: %w", err)}
				}
			}
			if jsonOut != "" {
				if err := writeFile(st, jsonOut, func(w io.Writer) error { return writeJSON(w, mergeSummary(r)) }); err != nil {
					return &exitError{code: ExitFailure, err: fmt.Errorf("merge: %w", err)}
				}
			}
			writeMerge(text, r)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&out, "out", "", "write the merged interval log to this file, - for stdout (the text then goes to stderr)")
	fl.StringVar(&jsonOut, "json", "", "write the merged summary as JSON to this file, - for stdout (the text then goes to stderr)")
	fl.DurationVar(&window, "window", time.Second, "length of the merged intervals")
	format = addStdoutFormat(cmd, "json")
	fl.StringArrayVar(&offsets, "offset", nil, "FILE=DURATION: that loader's clock minus the reference clock; repeatable")
	return cmd
}

// mergeInputs lists the logs the arguments name (a directory stands for
// its .hlog files), each with the clock offset --offset gives it.
func mergeInputs(args, offsets []string) ([]merge.Input, error) {
	byPath := map[string]time.Duration{}
	for _, o := range offsets {
		path, d, ok := strings.Cut(o, "=")
		dur, err := time.ParseDuration(strings.TrimPrefix(d, "+"))
		if !ok || err != nil {
			return nil, fmt.Errorf("merge: --offset %q: want FILE=DURATION such as loader-1.hlog=+30ms", o)
		}
		if dur < -maxClockOffset || dur > maxClockOffset {
			return nil, fmt.Errorf("merge: --offset %q: want a clock offset within ±%s", o, maxClockOffset)
		}
		byPath[filepath.Clean(path)] = dur
	}
	var inputs []merge.Input
	for _, a := range args {
		files, err := hlogFiles(a)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		for _, f := range files {
			inputs = append(inputs, merge.Input{Path: f, Offset: byPath[filepath.Clean(f)]})
			delete(byPath, filepath.Clean(f))
		}
	}
	for p := range byPath {
		return nil, fmt.Errorf("merge: --offset names %s, which is not among the logs merged", p)
	}
	return inputs, nil
}

// maxClockOffset bounds --offset: clocks a day apart are a wrong date,
// not an offset to correct, and larger values moved the merged run
// centuries back.
const maxClockOffset = 24 * time.Hour

// hlogFiles is a file, or the .hlog files of a directory, sorted.
func hlogFiles(arg string) ([]string, error) {
	fi, err := os.Stat(arg)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []string{arg}, nil
	}
	files, err := filepath.Glob(filepath.Join(arg, "*.hlog"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no .hlog files in the directory", arg)
	}
	sort.Strings(files)
	return files, nil
}

// writeFile writes a file ("-": st.Stdout) through a buffer, reporting
// the first error.
func writeFile(st *State, path string, write func(io.Writer) error) error {
	w, closeFile, err := openOutput(st, path, st.Stdout)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	err = write(bw)
	return errors.Join(err, bw.Flush(), closeFile())
}

// mergedJSON is the merged summary as JSON.
type mergedJSON struct {
	Start   time.Time      `json:"start"`
	End     time.Time      `json:"end"`
	Loaders []merge.Loader `json:"loaders"`
	Flags   []string       `json:"flags,omitempty"`
	Ops     []merge.Op     `json:"operations"`
}

func mergeSummary(r *merge.Result) mergedJSON {
	return mergedJSON{Start: r.Start, End: r.End, Loaders: r.Loaders, Flags: r.Flags, Ops: r.Summary()}
}

// writeMerge prints the loaders, the flags and a YCSB-style summary.
func writeMerge(w io.Writer, r *merge.Result) {
	fmt.Fprintf(w, "Merged %d loaders over %s (%s to %s), %s windows:\n", len(r.Loaders),
		r.End.Sub(r.Start).Round(time.Millisecond), r.Start.UTC().Format(time.RFC3339Nano), r.End.UTC().Format(time.RFC3339Nano), r.Window)
	for _, l := range r.Loaders {
		var total int64
		for _, c := range l.Counts {
			total += c
		}
		fmt.Fprintf(w, "  %s: %d intervals, %s from the start, %d values, clock offset %s\n",
			l.Name, l.Intervals, l.First.Sub(r.Start).Round(time.Millisecond), total, l.Offset)
	}
	for _, f := range r.Flags {
		fmt.Fprintf(w, "warning: %s\n", f)
	}
	for _, op := range r.Summary() {
		fmt.Fprintf(w, "[%s], Operations, %d\n", op.Tag, op.Count)
		fmt.Fprintf(w, "[%s], Throughput(ops/sec), %.1f\n", op.Tag, op.Throughput)
		for _, q := range []struct {
			name string
			v    float64
		}{{"AverageLatency(us)", op.Mean}, {"MinLatency(us)", op.Min}, {"50thPercentileLatency(us)", op.P50},
			{"90thPercentileLatency(us)", op.P90}, {"95thPercentileLatency(us)", op.P95}, {"99thPercentileLatency(us)", op.P99},
			{"99.9PercentileLatency(us)", op.P999}, {"MaxLatency(us)", op.Max}} {
			fmt.Fprintf(w, "[%s], %s, %.1f\n", op.Tag, q.name, q.v)
		}
	}
}

// newClockCommand answers clock-offset probes: for every line read it
// prints its wall clock in nanoseconds since the epoch. The experiment
// runs it through each loader's command prefix (ssh host, ip netns exec
// ns) to measure that host's clock offset.
func newClockCommand(st *State) *cobra.Command {
	return &cobra.Command{
		Use:    "clock",
		Short:  "Answer clock-offset probes: print the wall clock (ns since the epoch) for every line read",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			sc := bufio.NewScanner(st.Stdin)
			for sc.Scan() {
				if _, err := io.WriteString(st.Stdout, strconv.FormatInt(time.Now().UnixNano(), 10)+"\n"); err != nil {
					return &exitError{code: ExitFailure, err: fmt.Errorf("clock: %w", err)}
				}
			}
			return nil
		},
	}
}
