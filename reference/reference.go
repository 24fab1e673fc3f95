// Package reference runs a database's own load tool (pgbench,
// redis-benchmark) beside a dbarena trial, on the same data, operation and
// concurrency, so that a report can say whether a comparison measured the
// database or the client: "dbarena reached 96% of pgbench's throughput
// here".
//
// A reference applies only to a read-only workload (every operation a
// point read of a whole record), the operation every such tool can issue
// the way dbarena does. It never fails an experiment: a missing tool, a
// workload it cannot match or a tool that fails becomes a note on the
// trial, and the dbarena measurement stands.
package reference

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/workload"
)

// Request is what one reference run must match.
type Request struct {
	// Database and Driver name the target's database and dbarena driver.
	Database, Driver string
	// Tool names the driver's reference tool ("" none) and Endpoint
	// reads the properties for it: the driver table's Reference and
	// Endpoint (driver/drivers.Info).
	Tool     string
	Endpoint driver.EndpointFunc
	// Props are the driver properties the trial ran with, endpoint
	// included.
	Props map[string]string
	// Workload is the trial's workload configuration: the keys, the
	// table and the operation mix.
	Workload workload.Config
	// Threads is the trial's concurrency; each tool gets as many
	// connections.
	Threads int
	// Duration is how long the tool runs; Rate (ops/s) what dbarena
	// measured, for tools that are told a count of requests rather than
	// a duration.
	Duration time.Duration
	Rate     float64
	// WorkDir holds the scripts a tool needs.
	WorkDir string
}

// Result is one reference run.
type Result struct {
	// Tool is the tool's name, Command the command line run (without
	// secrets).
	Tool, Command string
	// Throughput is in operations per second, MeanLatency in
	// microseconds (0 when the tool does not report it).
	Throughput, MeanLatency float64
	// Notes qualify the match: what differs from the trial.
	Notes []string
}

// Tool is a native load tool.
type Tool interface {
	// Name is the tool's program name.
	Name() string
	// Run measures req's operation with the tool. An error of type
	// *NotApplicableError says why the tool cannot match the request.
	Run(ctx context.Context, req Request) (*Result, error)
}

// NotApplicableError says why no reference can be run for a trial.
type NotApplicableError struct{ Why string }

func (e *NotApplicableError) Error() string { return e.Why }

func notApplicable(format string, args ...any) error {
	return &NotApplicableError{Why: fmt.Sprintf(format, args...)}
}

// For returns the tool of that name, or nil when dbarena drives no such
// tool.
func For(tool string) Tool {
	for _, t := range []Tool{pgbench{}, redisBenchmark{}} {
		if t.Name() == tool {
			return t
		}
	}
	return nil
}

// Run runs the reference for req: the tool it names, after checking
// that the workload is one the tool can match.
func Run(ctx context.Context, req Request) (*Result, error) {
	t := For(req.Tool)
	if t == nil || req.Endpoint == nil {
		return nil, notApplicable("no native load tool is known for the %s driver", req.Driver)
	}
	if !ReadOnly(req.Workload) {
		c := req.Workload
		return nil, notApplicable("the workload is not read-only (readproportion %g): native tools are matched on point reads only", c.ReadProportion)
	}
	if req.Threads < 1 || req.Duration < time.Second {
		return nil, notApplicable("the trial ran %d threads for %s: a reference needs a thread and a second at least", req.Threads, req.Duration)
	}
	return t.Run(ctx, req)
}

// ReadOnly reports whether every operation of the workload is a point
// read, the only operation a reference is matched on.
func ReadOnly(c workload.Config) bool {
	others := c.UpdateProportion + c.InsertProportion + c.ScanProportion + c.ReadModifyWriteProportion + c.DeleteProportion + c.TransferProportion
	return c.ReadProportion > 0 && others == 0
}

// distributionNote says how the tool's key choice differs from the
// workload's.
func distributionNote(c workload.Config) []string {
	if c.RequestDistribution == workload.DistUniform {
		return nil
	}
	return []string{fmt.Sprintf("keys uniform, where the workload chose them %s: with the data in memory the client's cost per read is the same", c.RequestDistribution)}
}

// find returns the program: the path in the environment variable env,
// else name on PATH, else the newest of the glob patterns.
func find(env, name string, globs ...string) (string, error) {
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", env, p, err)
		}
		return p, nil
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	var found []string
	for _, g := range globs {
		m, _ := filepath.Glob(g) // the patterns are constant and valid
		found = append(found, m...)
	}
	if len(found) == 0 {
		return "", notApplicable("%s not found: install it or set %s", name, env)
	}
	sort.Strings(found)
	return found[len(found)-1], nil
}

// output runs cmd and returns its standard output, with the end of its
// standard error in the error when it fails.
func output(cmd *exec.Cmd) ([]byte, error) {
	// The tool must not outlive dbarena killed outright (kill -9): it
	// would go on loading the database, an orphan no one stops.
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		tail := ee.Stderr
		if len(tail) > 500 {
			tail = tail[len(tail)-500:]
		}
		return out, fmt.Errorf("%s: %w: %s", filepath.Base(cmd.Path), err, tail)
	}
	if err != nil {
		return out, fmt.Errorf("%s: %w", filepath.Base(cmd.Path), err)
	}
	return out, nil
}
