package runner

import (
	"context"
	"fmt"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/workload"
)

// NewVerifyReport counts a Verify phase's outcome from its series.
func NewVerifyReport(res *Result, exact bool) *results.VerifyReport {
	r := &results.VerifyReport{Seconds: res.Measured.Duration.Seconds(), Exact: exact}
	for i := range res.MeasuredResults {
		s := &res.MeasuredResults[i]
		switch s.Name {
		case workload.Read.String():
			r.Records = s.Counted
			r.Missing = s.Errors[string(driver.ClassNotFound)]
			r.Errors = s.ErrorCount() - r.Missing
		case VerifySeries:
			r.OK = s.OK()
			r.Mismatched = s.ErrorCount()
		}
	}
	return r
}

// VerifyLoad reads back every record a load with cfg's workload
// settings wrote, with cfg's workers and none of its pacing, limits or
// warm-up: the pass after `ycsb load --verify` and an experiment's
// load.verify.
func VerifyLoad(ctx context.Context, cfg Config, wcfg workload.Config, db driver.DB) (*results.VerifyReport, error) {
	wl, err := workload.New(wcfg)
	if err != nil {
		return nil, err
	}
	cfg.Phase = Verify
	cfg.Target, cfg.OperationCount, cfg.MaxExecutionTime, cfg.Stages = 0, 0, 0, nil
	cfg.WarmupTime, cfg.WarmupOperations, cfg.Interval, cfg.StopOnErrorRate = 0, 0, 0, 0
	cfg.JudgeErrors = false
	res, err := Run(ctx, cfg, wl, db)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	return NewVerifyReport(res, wcfg.DataIntegrity), nil
}
