package experiment

// One target's deployment and teardown.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/providers"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/internal/plural"
	"github.com/dbarena/dbarena/internal/redact"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/sysmetrics"
)

// deployTarget brings t up, enters it in the manifest and starts
// collecting its hosts' metrics. A deployment that failed returns a nil
// Deployment and a *deployFailure (its steps marked skipped), or the
// error that must stop the run.
func (s *runState) deployTarget(ctx context.Context, t *spec.Target, steps []*spec.Step, cores []int) (deploy.Deployment, int, error) {
	prov, err := providers.Lookup(t.Deploy.Provider)
	if err != nil {
		return nil, 0, err
	}
	fmt.Fprintf(s.opts.Stderr, "dbarena: deploying %s (%s, %s provider)\n", t.Name, t.Database, prov.Name())
	req, err := request(t, s.opts)
	if err != nil {
		return nil, 0, err
	}
	req.Cores = cores
	dep, err := prov.Up(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, fmt.Errorf("deploy %s: %w", t.Name, err)
		}
		s.skipAll(steps, fmt.Sprintf("target %s did not deploy", t.Name))
		return nil, 0, &deployFailure{err: fmt.Errorf("deploy %s: %w", t.Name, err)}
	}
	info := results.TargetInfo{Name: t.Name, Base: t.Base, Size: t.Size, Database: t.Database, Driver: t.Driver, Provider: prov.Name(),
		Version: dep.Version(), Nodes: max(t.Deploy.Nodes, 1), CPUs: t.Deploy.CPUs, MemoryBytes: t.Deploy.MemoryBytes,
		MachineType: t.Deploy.Options["machine_type"], Properties: redact.Props(mergeProps(dep.Properties(), t.Properties)), Up: time.Now()}
	if tc, cerr := costOf(t, s.plan.Spec.Catalogue, steps); cerr != nil {
		s.log.Warn("not priced", "target", t.Name, "err", cerr)
	} else {
		info.Cost = tc
	}
	for _, h := range dep.Hosts() {
		info.Hosts = append(info.Hosts, h.Name)
		switch {
		case h.PID > 0:
			s.coll.Add(sysmetrics.NewProcessTree(h.Name, "database", h.PID))
		case h.MetricsURL != "":
			s.coll.Add(sysmetrics.NewNodeExporter(h.Name, "database", h.MetricsURL, nil))
		case h.PodMetricsURL != "":
			ns, pod, _ := strings.Cut(h.Pod, "/")
			s.coll.Add(sysmetrics.NewKubeletPod(h.Name, "database", h.PodMetricsURL, ns, pod, nil))
		}
	}
	if lim := dep.Limits(); lim != "" {
		s.log.Info("resource limits", "target", t.Name, "limits", lim)
		info.Limits = lim
	}
	return dep, s.addTarget(info), nil
}

// teardown brings a deployment down within its own time limit (seconds
// for local processes, minutes for a cloud), cut short by a second
// interrupt, and says what it left behind when it did not finish.
func (s *runState) teardown(name string, dep deploy.Deployment, ti int) error {
	limit := deploy.DownTimeout(dep)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	hint := ""
	if s.opts.Abort != nil {
		hint = "; Ctrl-C again to stop at once"
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			select {
			case <-s.opts.Abort:
				cancel()
			case <-stop:
			}
		}()
	}
	if k, ok := dep.(deploy.Kept); ok {
		fmt.Fprintf(s.opts.Stderr, "dbarena: %s left running (%s)\n", name, k.KeptBy())
	} else {
		fmt.Fprintf(s.opts.Stderr, "dbarena: tearing down %s (up to %s%s)\n", name, limit, hint)
	}
	done := make(chan error, 1)
	go func() { done <- dep.Down(ctx) }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		// A provider whose Down ignores its context is not waited for
		// long: its work goes on, or ends with this process. One that
		// returned in time says itself how it went.
		select {
		case err = <-done:
		case <-time.After(downAfterCancel):
			err = fmt.Errorf("did not return within %s: %w", deploy.DownTimeout(dep), ctx.Err())
		}
	}
	now := time.Now()
	s.mu.Lock()
	s.manifest.Targets[ti].Down = &now
	s.mu.Unlock()
	if err == nil {
		return nil
	}
	left := deploy.LeftBehind(dep)
	fmt.Fprintf(s.opts.Stderr, "dbarena: tearing down %s did not finish: %v\ndbarena: it may have left behind %s\n", name, err, left)
	return fmt.Errorf("tear down %s: %w (left behind: %s)", name, err, left)
}

// skipAll records steps that will not run, and why.
func (s *runState) skipAll(steps []*spec.Step, why string) {
	if len(steps) == 0 {
		return
	}
	msg := fmt.Sprintf("%s skipped: %s", plural.Count(len(steps), "step"), why)
	fmt.Fprintf(s.opts.Stderr, "dbarena: %s\n", msg)
	s.mu.Lock()
	s.manifest.SkippedSteps += len(steps)
	s.manifest.Warnings = append(s.manifest.Warnings, msg)
	s.mu.Unlock()
	if err := s.writeManifest(); err != nil {
		s.log.Warn("manifest not written", "err", err)
	}
}
