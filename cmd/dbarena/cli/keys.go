package cli

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/internal/keystats"
	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/workload"
)

type keysFlags struct {
	format  *formatValue
	dist    string
	records int64
	draws   int64
	top     []int64
	csv     string
	seed    uint64
	props   []string
	files   []string
}

func newKeysCommand(st *State) *cobra.Command {
	f := &keysFlags{}
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Show how a request distribution spreads operations over records",
		Long: `Draw keys exactly as a run's reads and updates would and print how skewed
the distribution is: the share of draws that hit the k most popular records
and the share that hit the most popular fractions of the records.

Other workload properties (hotspotdatafraction, exponential.percentile...)
can be given with -p or -P.

Memory grows with the records drawn, not with --records: YCSB's
1,000,000,000 records cost nothing until drawn. --draws is at most
100,000,000 (about 10 s, and up to 4 GiB when every draw hits a new
record).`,
		Example: `  dbarena keys --distribution zipfian --records 1000000 --draws 10000000
  dbarena keys --distribution hotspot -p hotspotdatafraction=0.1 -p hotspotopnfraction=0.9 --csv ranks.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runKeys(st, f) },
	}
	f.format = addFormatFlag(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.dist, "distribution", "zipfian", "request distribution: uniform, zipfian, hotspot, latest, sequential, exponential")
	fl.Int64Var(&f.records, "records", 1_000_000, "number of records (recordcount)")
	fl.Int64Var(&f.draws, "draws", 10_000_000, "number of keys to draw")
	fl.Int64SliceVar(&f.top, "top", []int64{1, 10, 100, 1000, 10000}, "top-k record counts to report")
	fl.StringVar(&f.csv, "csv", "", "also write rank,frequency for every drawn record to this CSV file, - for stdout (the text then goes to stderr)")
	fl.Uint64Var(&f.seed, "seed", 1, "random seed")
	fl.StringArrayVarP(&f.files, "workload-file", "P", nil, "YCSB property file")
	fl.StringArrayVarP(&f.props, "property", "p", nil, "property as key=value")
	registerFlagCompletion(cmd, "distribution", completeDistribution)
	registerFlagCompletion(cmd, "property", completeProperty)
	registerFlagCompletion(cmd, "workload-file", completeWorkloadFile)
	return cmd
}

// keysJSON is what keys --format json prints: the distribution drawn
// and its keystats.Report.
type keysJSON struct {
	Distribution string `json:"distribution"`
	Seed         uint64 `json:"seed"`
	keystats.Report
}

func runKeys(st *State, f *keysFlags) error {
	if f.format.json() && f.csv == "-" {
		return usageError(fmt.Errorf("keys: --format json and --csv - both print on stdout: write the CSV to a file"))
	}
	if f.draws < 1 || f.records < 1 {
		return usageError(fmt.Errorf("keys: --records and --draws must be at least 1 (got %d and %d)", f.records, f.draws))
	}
	if f.draws > keystats.MaxDraws {
		return usageError(fmt.Errorf("keys: --draws %d: at most %d", f.draws, keystats.MaxDraws))
	}
	for _, k := range f.top {
		if k < 1 {
			return usageError(fmt.Errorf("keys: --top %d: want record counts of at least 1", k))
		}
	}
	p, err := loadProperties(st.Stderr, f.files, f.props)
	if err != nil {
		return usageError(err)
	}
	src := properties.Source{File: "--distribution"}
	p.Set(core.RequestDistribution, f.dist, src)
	p.Set(core.RecordCount, strconv.FormatInt(f.records, 10), properties.Source{File: "--records"})
	p.Set(core.OperationCount, strconv.FormatInt(f.draws, 10), properties.Source{File: "--draws"})
	// Reads only: with inserts in the mix the zipfian key space grows.
	p.Set(core.ReadProportion, "1", src)
	for _, k := range []string{core.UpdateProportion, core.InsertProportion, core.ScanProportion, core.ReadModifyWrite, core.DeleteProportion, core.TransferProportion} {
		p.Set(k, "0", src)
	}
	cfg, warnings, err := workload.ParseConfig(p, drivers.Prefixes())
	if err != nil {
		return usageError(err)
	}
	for _, w := range warnings {
		st.Logger.Warn(w.String())
	}
	wl, err := workload.New(cfg)
	if err != nil {
		return usageError(err)
	}
	wk, err := wl.NewWorker(0, f.seed)
	if err != nil {
		return usageError(err)
	}
	counts, err := keystats.New(f.records, f.draws)
	if err != nil {
		return usageError(fmt.Errorf("keys: %w", err))
	}
	base := cfg.InsertStart
	for i := int64(0); i < f.draws; i++ {
		counts.Add(wk.NextKeyNum() - base)
	}
	ranked := counts.Ranked()
	rep := keystats.Summarize(ranked, f.records, counts.Draws(), f.top)
	if f.format.json() {
		if err := writeJSON(st.Stdout, keysJSON{Distribution: string(cfg.RequestDistribution), Seed: f.seed, Report: rep}); err != nil {
			return err
		}
	} else {
		text, err := textWriter(st, output{"--csv", f.csv})
		if err != nil {
			return err
		}
		fmt.Fprintf(text, "distribution %s (seed %d)\n", cfg.RequestDistribution, f.seed)
		if err := rep.Write(text); err != nil {
			return err
		}
	}
	if f.csv == "" {
		return nil
	}
	out, closeCSV, err := openOutput(st, f.csv, nil)
	if err != nil {
		return usageError(fmt.Errorf("keys: --csv: %w", err))
	}
	if err := keystats.WriteCSV(out, ranked); err != nil {
		closeCSV()
		return fmt.Errorf("keys: write %s: %w", f.csv, err)
	}
	return closeCSV()
}
