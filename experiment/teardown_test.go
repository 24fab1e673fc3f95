package experiment

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/internal/redact"
	"github.com/dbarena/dbarena/results"
)

// stuckDeployment's Down never finishes on its own, as a destroy that
// hangs on an unreachable cloud API: failure injection no real provider
// produces on cue.
type stuckDeployment struct {
	limit  time.Duration
	downed chan struct{}
}

func (d *stuckDeployment) Properties() map[string]string { return nil }
func (d *stuckDeployment) Hosts() []deploy.Host          { return nil }
func (d *stuckDeployment) Version() string               { return "" }
func (d *stuckDeployment) Limits() string                { return "" }
func (d *stuckDeployment) DownTimeout() time.Duration    { return d.limit }
func (d *stuckDeployment) LeftBehind() string            { return "the VMs db-1 and db-2" }
func (d *stuckDeployment) Down(ctx context.Context) error {
	<-ctx.Done()
	close(d.downed)
	return ctx.Err()
}

func teardownState(t *testing.T, abort <-chan struct{}) (*runState, *strings.Builder) {
	t.Helper()
	w, err := results.Create(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { w.Close() })
	var stderr strings.Builder
	s := &runState{opts: Options{Stderr: &stderr, Abort: abort, Secrets: redact.New()}, w: w}
	s.manifest.Targets = []results.TargetInfo{{Name: "cloud"}}
	return s, &stderr
}

// TestTeardownIsBoundedAndSaysWhatItLeft: a teardown gets its
// deployment's own time, then the run goes on, saying what may be left
// behind; a second interrupt cuts it short at once.
func TestTeardownIsBoundedAndSaysWhatItLeft(t *testing.T) {
	s, stderr := teardownState(t, nil)
	dep := &stuckDeployment{limit: 200 * time.Millisecond, downed: make(chan struct{})}
	start := time.Now()
	err := s.teardown("cloud", dep, 0)
	require.ErrorContains(t, err, "left behind: the VMs db-1 and db-2")
	require.Less(t, time.Since(start), 200*time.Millisecond+downAfterCancel)
	<-dep.downed
	require.Contains(t, stderr.String(), "tearing down cloud (up to 200ms)")
	require.Contains(t, stderr.String(), "it may have left behind the VMs db-1 and db-2")
	require.NotNil(t, s.manifest.Targets[0].Down)

	abort := make(chan struct{})
	s, stderr = teardownState(t, abort)
	dep = &stuckDeployment{limit: time.Hour, downed: make(chan struct{})}
	time.AfterFunc(100*time.Millisecond, func() { close(abort) })
	start = time.Now()
	err = s.teardown("cloud", dep, 0)
	require.ErrorContains(t, err, "left behind")
	require.Less(t, time.Since(start), 5*time.Second, "the second interrupt cut the hour short")
	require.Contains(t, stderr.String(), "Ctrl-C again to stop at once")
}

// keptDeployment is an endpoint that was running before the experiment.
type keptDeployment struct{ stuckDeployment }

func (d *keptDeployment) KeptBy() string                 { return "existing" }
func (d *keptDeployment) Down(ctx context.Context) error { return nil }

// TestExistingIsLeftRunning: a database dbarena did not start is not
// "torn down" in the wording.
func TestExistingIsLeftRunning(t *testing.T) {
	s, stderr := teardownState(t, nil)
	require.NoError(t, s.teardown("pg", &keptDeployment{stuckDeployment{limit: time.Second}}, 0))
	require.Equal(t, "dbarena: pg left running (existing)\n", stderr.String())
	require.NotNil(t, s.manifest.Targets[0].Down)
}
