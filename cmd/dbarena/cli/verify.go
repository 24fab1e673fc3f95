package cli

import (
	"context"
	"fmt"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// verifyPass reads back every record of the load just done with the same
// workload settings, and prints the summary line to stderr.
func verifyPass(ctx context.Context, st *State, rs runSettings, wcfg workload.Config, db driver.DB) (*runner.VerifyReport, error) {
	rep, err := runner.VerifyLoad(ctx, rs.run, wcfg, db)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(st.Stderr, rep)
	return rep, nil
}
