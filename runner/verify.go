package runner

import (
	"context"
	"fmt"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/workload"
)

// VerifyReport is the outcome of reading back every loaded record. Its
// JSON field names are part of `ycsb load --verify`'s summary.
type VerifyReport struct {
	Records    int64   `json:"records"`
	OK         int64   `json:"ok"`
	Missing    int64   `json:"missing"`
	Mismatched int64   `json:"mismatched"`
	Errors     int64   `json:"errors"`
	Seconds    float64 `json:"seconds"`
	// Exact is true when values were compared byte for byte
	// (dataintegrity=true); otherwise only presence and field lengths.
	Exact bool `json:"exact"`
}

// NewVerifyReport counts a Verify phase's outcome from its series.
func NewVerifyReport(res *Result, exact bool) *VerifyReport {
	r := &VerifyReport{Seconds: res.Measured.Duration.Seconds(), Exact: exact}
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

// Failed reports whether any record was missing, wrong or unreadable.
func (r *VerifyReport) Failed() bool { return r.Missing+r.Mismatched+r.Errors > 0 }

// String is the one-line summary of a verify pass.
func (r *VerifyReport) String() string {
	how := "values compared byte for byte"
	if !r.Exact {
		how = "presence and lengths only: set dataintegrity=true to compare values"
	}
	return fmt.Sprintf("verify: %d records read back in %.2fs: %d ok, %d missing, %d mismatched, %d errors (%s)",
		r.Records, r.Seconds, r.OK, r.Missing, r.Mismatched, r.Errors, how)
}

// VerifyLoad reads back every record a load with cfg's workload
// settings wrote, with cfg's workers and none of its pacing, limits or
// warm-up: the pass after `ycsb load --verify` and an experiment's
// load.verify.
func VerifyLoad(ctx context.Context, cfg Config, wcfg workload.Config, db driver.DB) (*VerifyReport, error) {
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
