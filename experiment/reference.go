package experiment

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/internal/workdir"
	"github.com/dbarena/dbarena/reference"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/workload"
)

// reference runs the database's own load tool after a completed run
// trial when the experiment asks for it, and fills the row's Reference.
// It never fails the trial: what goes wrong becomes the reference's note.
func (tr *targetRun) reference(ctx context.Context, st *spec.Step, props map[string]string, wcfg workload.Config, row *results.Trial, label string) {
	s := tr.s
	if st.Kind != spec.Run || !s.plan.Spec.Run.Reference || row.Status != results.StatusCompleted || ctx.Err() != nil {
		return
	}
	if !reference.ReadOnly(wcfg) {
		// Nobody expects one on writes: no note either.
		return
	}
	if st.Repetition > 1 {
		// The client's ceiling is the setup's, not a repetition's: the
		// first measures it, and the others save the tool's run.
		row.Reference.Note = "no reference: measured on the first repetition"
		return
	}
	if tr.loaders().remote() {
		// The tool would run here, the trial ran on the load machines:
		// the ratio would measure the network between them.
		row.Reference.Note = "no reference: the trial ran on other load machines, the tool would run on this one"
		return
	}
	if row.TargetRate > 0 {
		// The tool runs flat out: against a throttled trial the ratio
		// would measure the throttle.
		row.Reference.Note = "no reference: the trial was rate-limited (target), the tool would run unthrottled"
		return
	}
	wd, err := workdir.Claim(s.workRoot(), workdir.Reference, "trial", false)
	if err != nil {
		row.Reference.Note = fmt.Sprintf("no reference: %v", err)
		return
	}
	defer wd.Remove()
	dir := wd.Path
	// The trial opened the driver: its name is in the table.
	info, _ := drivers.Lookup(tr.t.Driver)
	req := reference.Request{Database: tr.t.Database, Driver: tr.t.Driver, Tool: info.Reference, Endpoint: info.Endpoint,
		Props: props, Workload: wcfg, Threads: row.Threads, Duration: row.Duration, Rate: row.Throughput, WorkDir: dir}
	if t := reference.For(info.Reference); t != nil {
		fmt.Fprintf(s.opts.Stderr, "dbarena: %s: reference: %s, %d connections, %s\n", label, t.Name(), row.Threads, row.Duration.Round(1e9))
	}
	res, err := reference.Run(ctx, req)
	var na *reference.NotApplicableError
	switch {
	case errors.As(err, &na):
		row.Reference.Note = "no reference: " + na.Why
		fmt.Fprintf(s.opts.Stderr, "dbarena: %s: %s\n", label, row.Reference.Note)
		return
	case err != nil:
		row.Reference.Note = fmt.Sprintf("reference failed: %v", err)
		s.log.Warn("reference run failed", "step", st.ID, "err", err)
		return
	}
	row.Reference = results.Reference{Tool: res.Tool, Command: res.Command, Throughput: res.Throughput,
		MeanLatency: res.MeanLatency, Note: strings.Join(res.Notes, "; ")}
	fmt.Fprintf(s.opts.Stderr, "dbarena: %s: %s %.0f ops/s: dbarena reached %.0f%% of it\n", label, res.Tool, res.Throughput, 100*row.Ratio())
}
