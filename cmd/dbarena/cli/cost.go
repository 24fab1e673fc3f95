package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/analysis/cost"
	"github.com/dbarena/dbarena/internal/bounds"
)

// costScenario is the file of dbarena analyze cost: targets with what
// they measured (or are expected to do) and what they run on.
type costScenario struct {
	Prices      string       `yaml:"prices"`
	Utilisation float64      `yaml:"utilisation"`
	Serve       float64      `yaml:"serve"`
	Targets     []costTarget `yaml:"targets"`
}

type costTarget struct {
	Name      string `yaml:"name"`
	Resources []struct {
		Instance    string  `yaml:"instance"`
		Count       int     `yaml:"count"`
		ExtraHourly float64 `yaml:"extra_hourly"`
	} `yaml:"resources"`
	Throughput float64 `yaml:"throughput"`
	P99Ms      float64 `yaml:"p99_ms"`
	DynamoDB   *struct {
		ReadsPerSec  float64 `yaml:"reads_per_sec"`
		WritesPerSec float64 `yaml:"writes_per_sec"`
		ItemBytes    int     `yaml:"item_bytes"`
		Consistency  string  `yaml:"consistency"`
		Items        int64   `yaml:"items"`
	} `yaml:"dynamodb"`
}

// validate checks what the scenario's fields cannot say by their type:
// YAML reads .nan and .inf into a float64, and they would print as a
// demand of "NaN ops/s".
func (sc *costScenario) validate() error {
	var errs []error
	if !(sc.Serve >= 0) || math.IsInf(sc.Serve, 1) {
		errs = append(errs, fmt.Errorf("serve %v: want a throughput in ops/s, 0 or more (0: the best target's)", sc.Serve))
	}
	if !(sc.Utilisation >= 0 && sc.Utilisation <= 1) {
		errs = append(errs, fmt.Errorf("utilisation %v: want a share of capacity in (0, 1], such as 0.75 (0: the default)", sc.Utilisation))
	}
	for i, t := range sc.Targets {
		for j, r := range t.Resources {
			if r.Count < 0 {
				errs = append(errs, fmt.Errorf("targets[%d] (%s): resources[%d]: count %d: want 1 or more (0: 1)", i, t.Name, j, r.Count))
			}
		}
	}
	return errors.Join(errs...)
}

func newCostCommand(st *State) *cobra.Command {
	var format *formatValue
	var list bool
	var prices string
	cmd := &cobra.Command{
		Use:   "cost [FILE.yaml]",
		Short: "Price-performance of hand-entered scenarios: monthly cost, ops/s per dollar, 0-100 scores, DynamoDB bills",
		Long: `Price targets described in a YAML file (throughput, p99, the instances they run
on, or DynamoDB reads and writes per second) with the built-in price catalogue
or a prices file laid over it, and print each one's monthly cost, ops/s per
dollar, cost per million operations, the 0-100 price-performance scores and
what serving the best throughput at 75% of each one's capacity costs.
--list-prices prints the catalogue with its date and sources. Prices are
indicative list prices: check them before publishing.

  prices: my-prices.yaml        # optional, relative to the file
  utilisation: 0.75             # planned share of capacity for "to serve"
  serve: 200000                 # ops/s to size for (default: the best throughput)
  targets:
    - name: scylla
      resources: [{instance: i4i.xlarge, count: 3}]
      throughput: 150000
      p99_ms: 3
    - name: dynamodb
      throughput: 150000
      dynamodb: {reads_per_sec: 75000, writes_per_sec: 75000, item_bytes: 1100, consistency: eventual, items: 100000000}`,
		Example: `  dbarena analyze cost --list-prices
  dbarena analyze cost scenarios.yaml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if list && len(args) == 0 || !list && len(args) == 1 {
				return nil
			}
			return usageError(fmt.Errorf("analyze cost: want one scenario FILE.yaml, or --list-prices alone"))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if list {
				cat, err := loadPrices(prices)
				if err != nil {
					return usageError(fmt.Errorf("analyze cost: %w", err))
				}
				if format.json() {
					return writeJSON(st.Stdout, cat)
				}
				return writeCatalogue(st.Stdout, cat)
			}
			return runCost(st.Stdout, args[0], prices, format.json())
		},
	}
	format = addFormatFlag(cmd)
	cmd.Flags().BoolVar(&list, "list-prices", false, "print the price catalogue with its date and sources")
	cmd.Flags().StringVar(&prices, "prices", "", "a prices file laid over the built-in catalogue (the scenario's prices: wins)")
	return cmd
}

// loadPrices is the built-in catalogue, with file laid over it if given.
func loadPrices(file string) (*cost.Catalogue, error) {
	if file == "" {
		return cost.Default()
	}
	return cost.LoadCatalogueFile(file)
}

func writeCatalogue(w io.Writer, cat *cost.Catalogue) error {
	fmt.Fprintf(w, "Price catalogue compiled %s. %s\nSources: %v\n\n", cat.Compiled, cat.Note, cat.Sources)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "INSTANCE\tPROVIDER\tREGION\tVCPUS\tMEMORY GIB\tLOCAL NVME GB\tUSD/HOUR\tUSD/MONTH")
	for _, name := range slices.Sorted(maps.Keys(cat.Instances)) {
		in := cat.Instances[name]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%g\t%g\t%g\t%.2f\n", name, in.Provider, in.Region, in.VCPUs, in.MemoryGiB, in.LocalNVMeGB, in.HourlyUSD, in.Monthly())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if p := cat.DynamoDB; p != nil {
		fmt.Fprintf(w, "\nDynamoDB (%s): on demand $%g per million write and $%g per million read request units; provisioned $%g per WCU-hour and $%g per RCU-hour; storage $%g per GB-month\n",
			p.Region, p.WriteRequestUnitsPerMillion, p.ReadRequestUnitsPerMillion, p.WCUHour, p.RCUHour, p.StorageGBMonth)
	}
	return nil
}

func runCost(w io.Writer, file, prices string, asJSON bool) error {
	data, err := bounds.ReadFile(file, bounds.MaxFileBytes)
	if err != nil {
		return usageError(fmt.Errorf("analyze cost: %w", err))
	}
	var sc costScenario
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&sc); err != nil {
		return usageError(fmt.Errorf("analyze cost: %s: %w", file, err))
	}
	if err := sc.validate(); err != nil {
		return usageError(fmt.Errorf("analyze cost: %s: %w", file, err))
	}
	if sc.Prices != "" {
		prices = sc.Prices
		if !filepath.IsAbs(prices) {
			prices = filepath.Join(filepath.Dir(file), prices)
		}
	}
	cat, err := loadPrices(prices)
	if err != nil {
		return usageError(fmt.Errorf("analyze cost: %w", err))
	}
	if len(sc.Targets) == 0 {
		return usageError(fmt.Errorf("analyze cost: %s: targets: want at least one target", file))
	}
	entries, bills, err := costEntries(cat, sc, file)
	if err != nil {
		return usageError(fmt.Errorf("analyze cost: %w", err))
	}
	res, err := cost.Score(entries)
	if err != nil {
		return usageError(fmt.Errorf("analyze cost: %s: %w", file, err))
	}
	return writeCost(w, cat, sc, res, bills, asJSON)
}

// costEntries prices each target of the scenario: its instances and its
// DynamoDB bill (whose breakdown is returned as text). Every target's
// error is reported at once.
func costEntries(cat *cost.Catalogue, sc costScenario, file string) ([]cost.Entry, []string, error) {
	var entries []cost.Entry
	var errs []error
	var bills []string
	for i, t := range sc.Targets {
		where := fmt.Sprintf("%s: targets[%d] (%s)", file, i, t.Name)
		monthly := 0.0
		if len(t.Resources) > 0 {
			var rs []cost.Resource
			for _, r := range t.Resources {
				// A count of 0 was not given (validate refused
				// negative ones).
				rs = append(rs, cost.Resource{Instance: r.Instance, Count: max(r.Count, 1), ExtraHourly: r.ExtraHourly})
			}
			m, err := cost.MonthlyCost(cat, rs)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", where, err))
				continue
			}
			monthly += m
		}
		if d := t.DynamoDB; d != nil {
			b, err := cost.DynamoDB(cat.DynamoDB, cost.DynamoDBUsage{ReadsPerSec: d.ReadsPerSec, WritesPerSec: d.WritesPerSec,
				ItemBytes: d.ItemBytes, Consistency: cost.Consistency(d.Consistency), Items: d.Items})
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", where, err))
				continue
			}
			monthly += b.OnDemandTotal()
			bills = append(bills, fmt.Sprintf("%s as DynamoDB: on demand $%.2f a month (%.0f RCU/s, %.0f WCU/s), provisioned at %.0f%% $%.2f (%d RCU, %d WCU), storage $%.2f for %.1f GB; %s",
				t.Name, b.OnDemandTotal(), b.RCU, b.WCU, 100*b.Utilisation, b.ProvisionedTotal(), b.ProvisionedRCU, b.ProvisionedWCU, b.Storage, b.StorageGB, b.Basis))
		}
		if monthly == 0 && len(t.Resources) == 0 && t.DynamoDB == nil {
			errs = append(errs, fmt.Errorf("%s: want resources or dynamodb: what it runs on", where))
			continue
		}
		entries = append(entries, cost.Entry{Name: t.Name, Throughput: t.Throughput, MonthlyCost: monthly, LatencyMs: t.P99Ms})
	}
	return entries, bills, errors.Join(errs...)
}

// costRow is one scored target of a scenario, as the table and the
// JSON give it.
type costRow struct {
	Name           string   `json:"name"`
	MonthlyUSD     float64  `json:"monthly_usd"`
	Throughput     float64  `json:"throughput_ops_sec"`
	OpsPerDollar   float64  `json:"ops_sec_per_usd"`
	CostPerMillion float64  `json:"usd_per_million_ops"`
	Score          float64  `json:"score"`
	LatencyScore   *float64 `json:"p99_usd_score"`
	// ToServe is what serving the scenario's demand costs: instances
	// (Units at Load of their capacity) or DynamoDB on demand.
	ToServe *costServe `json:"to_serve"`
}

// costServe prices the scenario's demand on one target.
type costServe struct {
	Units      int     `json:"units,omitempty"`
	MonthlyUSD float64 `json:"monthly_usd"`
	Load       float64 `json:"load,omitempty"`
	OnDemand   bool    `json:"on_demand,omitempty"`
}

// costJSON is what analyze cost --format json prints.
type costJSON struct {
	Compiled      string    `json:"prices_compiled"`
	HoursPerMonth int       `json:"hours_per_month"`
	Demand        float64   `json:"demand_ops_sec"`
	Targets       []costRow `json:"targets"`
	DynamoDBBills []string  `json:"dynamodb_bills,omitempty"`
}

// costRows scores the scenario's targets and prices its demand on each.
func costRows(sc costScenario, res []cost.Result) (float64, []costRow) {
	demand := sc.Serve
	if demand == 0 {
		for _, r := range res {
			demand = max(demand, r.Throughput)
		}
	}
	var rows []costRow
	for i, r := range res {
		row := costRow{Name: r.Name, MonthlyUSD: r.MonthlyCost, Throughput: r.Throughput, OpsPerDollar: r.OpsPerDollar,
			CostPerMillion: r.CostPerMillion, Score: r.Score}
		if r.LatencyMs > 0 {
			row.LatencyScore = &r.LatencyScore
		}
		if sc.Targets[i].DynamoDB != nil && len(sc.Targets[i].Resources) == 0 {
			row.ToServe = &costServe{MonthlyUSD: r.MonthlyCost * demand / r.Throughput, OnDemand: true}
		} else if p, err := cost.ToServe(cost.Demand{Target: demand, Capacity: r.Throughput, Utilisation: sc.Utilisation, UnitMonthly: r.MonthlyCost}); err == nil {
			row.ToServe = &costServe{Units: p.Units, MonthlyUSD: p.Monthly, Load: p.Load}
		}
		rows = append(rows, row)
	}
	return demand, rows
}

// writeCost writes the scored targets as a table, and the DynamoDB
// bills after it, or all of it as JSON.
func writeCost(w io.Writer, cat *cost.Catalogue, sc costScenario, res []cost.Result, bills []string, asJSON bool) error {
	demand, rows := costRows(sc, res)
	if asJSON {
		return writeJSON(w, costJSON{Compiled: cat.Compiled, HoursPerMonth: cost.HoursPerMonth, Demand: demand, Targets: rows, DynamoDBBills: bills})
	}
	fmt.Fprintf(w, "Prices: catalogue compiled %s (indicative list prices; check them). A month is %d hours.\n\n", cat.Compiled, cost.HoursPerMonth)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "TARGET\tUSD/MONTH\tOPS/S\tOPS/S PER $\tUSD PER MILLION OPS\tSCORE\tP99 x $ SCORE\tTO SERVE %.0f OPS/S\n", demand)
	for _, r := range rows {
		serve := "-"
		switch {
		case r.ToServe == nil:
		case r.ToServe.OnDemand:
			serve = fmt.Sprintf("$%.2f on demand", r.ToServe.MonthlyUSD)
		default:
			serve = fmt.Sprintf("%d x = $%.2f at %.0f%%", r.ToServe.Units, r.ToServe.MonthlyUSD, 100*r.ToServe.Load)
		}
		lat := "-"
		if r.LatencyScore != nil {
			lat = fmt.Sprintf("%.1f", *r.LatencyScore)
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.0f\t%.1f\t%.5f\t%.1f\t%s\t%s\n", r.Name, r.MonthlyUSD, r.Throughput, r.OpsPerDollar, r.CostPerMillion, r.Score, lat, serve)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, b := range bills {
		fmt.Fprintln(w, "\n"+b)
	}
	return nil
}
