package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/dbmetrics"
	"github.com/dbarena/dbarena/live"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/trial"
)

// addMetricsAddrFlag declares --metrics-addr, shared by `ycsb` and `run`.
func addMetricsAddrFlag(cmd *cobra.Command, addr *string) {
	cmd.Flags().StringVar(addr, "metrics-addr", "", "serve live Prometheus metrics (operations, latency histograms, database metrics; names dbarena_*) at http://HOST:PORT/metrics while running; a bare PORT listens on loopback only (default: off)")
}

// serveLive starts the live endpoint when addr is set, and returns its
// exporter (nil when off) and the function that stops it.
func serveLive(st *State, addr string) (*live.Exporter, func(), error) {
	if addr == "" {
		return nil, func() {}, nil
	}
	e := live.New()
	srv, err := live.Listen(addr, e, st.Logger)
	if err != nil {
		// A port taken is no usage error: the same command works once
		// it is free.
		var le *live.ListenError
		if errors.As(err, &le) {
			return nil, nil, &exitError{code: ExitFailure, err: err}
		}
		return nil, nil, usageError(err)
	}
	fmt.Fprintf(st.Stderr, "dbarena: live metrics at http://%s/metrics\n", srv.Addr())
	return e, func() {
		// A scraper's next scrape takes the last interval's counts.
		if waited, scraped := srv.Drain(lastScrapeWait); waited && !scraped {
			st.Logger.Warn("live metrics: no scrape came for the last counts; the endpoint closes without them", "waited", lastScrapeWait)
		}
		_ = srv.Close()
	}, nil
}

// lastScrapeWait bounds how long the live endpoint waits, at the end,
// for the scrape that takes the last counts: longer than any scrape
// interval a run's figures are worth scraping at.
const lastScrapeWait = 5 * time.Second

// watchLive serves a `ycsb` phase at --metrics-addr, when given: the
// observer of its operations (nil when off), and the function that stops
// the endpoint and the sampling of the database's metrics.
func watchLive(ctx context.Context, st *State, f *ycsbFlags, t *trial.Trial) (runner.Observer, func(), error) {
	exp, stopLive, err := serveLive(st, f.metricsAddr)
	if err != nil || exp == nil {
		return nil, func() {}, err
	}
	stopDB := watchDatabase(ctx, st, t, exp)
	return exp.Observer(liveLabels(f, t, t.Settings.Run.Phase)), func() {
		stopDB()
		stopLive()
	}, nil
}

// liveLabels name a `ycsb` phase's series: the shared run's id (and the
// loader) when given, else the phase; the driver as target and database;
// the last workload file.
func liveLabels(f *ycsbFlags, t *trial.Trial, phase runner.Phase) live.Labels {
	l := live.Labels{Trial: phase.String(), Target: t.Driver.Name, Database: t.Driver.Name}
	if f.runID != "" {
		l.Trial = f.runID
	}
	if f.loader != "" {
		l.Trial += " loader " + f.loader
	}
	if len(f.files) > 0 {
		l.Workload = filepath.Base(f.files[len(f.files)-1])
	}
	return l
}

// watchDatabase samples the database's own metrics into the live
// endpoint each second, on a connection of their own, and returns the
// function that stops it. A driver that reads none, or a connection that
// fails, leaves the endpoint without them (the failure logged).
func watchDatabase(ctx context.Context, st *State, t *trial.Trial, e *live.Exporter) (stop func()) {
	mr, closeDB, err := t.OpenMetrics(ctx, st.Logger)
	if err != nil {
		st.Logger.Warn("database metrics: no connection of their own; the endpoint goes without them", "err", err)
		return func() {}
	}
	if mr == nil {
		return func() {}
	}
	s := dbmetrics.New(time.Second, func(rows []results.DBMetric) { e.DBMetrics(t.Driver.Name, rows) })
	s.Logger = st.Logger
	s.Add("database", t.Driver.Name, t.Driver.Name, mr)
	s.Start(ctx)
	return func() {
		s.Stop()
		closeDB()
	}
}
