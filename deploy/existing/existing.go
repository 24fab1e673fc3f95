// Package existing is the deployment provider for databases that already
// run: it starts and stops nothing. The target's driver properties say
// where the database is; the option "metrics" lists node_exporter URLs
// (comma-separated) of its hosts so that their CPU, memory, disk and
// network are recorded like those of a local deployment. Without it, a
// server among the target's endpoints that listens on this machine is
// sampled as a local process tree, found by its listening port.
package existing

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/internal/redact"
	"github.com/dbarena/dbarena/sysmetrics"
)

// Provider is the existing-endpoint provider.
type Provider struct{}

var _ deploy.Provider = Provider{}

// Name implements deploy.Provider.
func (Provider) Name() string { return "existing" }

// Up implements deploy.Provider: it checks the options, finds the
// hosts to sample and returns; the driver's connection errors say
// whether the database answers.
func (Provider) Up(ctx context.Context, req deploy.Request) (deploy.Deployment, error) {
	d := &deployment{version: req.Version}
	for k := range req.Options {
		if k != "metrics" {
			return nil, fmt.Errorf("existing: %s: unknown option %q; valid: metrics (node_exporter URLs, comma-separated)", req.Name, k)
		}
	}
	if m := strings.TrimSpace(req.Options["metrics"]); m != "" {
		for i, raw := range strings.Split(m, ",") {
			raw = strings.TrimSpace(raw)
			u, err := url.Parse(raw)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return nil, fmt.Errorf("existing: %s: option metrics: %q is not an http(s) URL such as http://10.0.0.5:9100/metrics", req.Name, redact.URL(raw))
			}
			if u.Path == "" || u.Path == "/" {
				u.Path = "/metrics"
			}
			d.hosts = append(d.hosts, deploy.Host{Name: fmt.Sprintf("%s-%d", req.Name, i+1), MetricsURL: u.String()})
		}
		if len(d.hosts) == 1 {
			d.hosts[0].Name = req.Name
		}
		return d, nil
	}
	d.hosts = localHosts(ctx, req)
	return d, nil
}

// localHosts are the processes on this machine that serve the target's
// endpoints, found by the port each listens on: their CPU is then the
// database's, not other processes' that take the load generator's
// cores. An endpoint elsewhere, or whose process cannot be read, is
// said and left out.
func localHosts(ctx context.Context, req deploy.Request) []deploy.Host {
	var hosts []deploy.Host
	seen := map[int]bool{}
	for _, ep := range req.Endpoints {
		host, portText, err := net.SplitHostPort(ep)
		port, perr := strconv.Atoi(portText)
		if err != nil || perr != nil || !onThisMachine(ctx, host) {
			continue
		}
		pid, err := sysmetrics.ListenerPID(port)
		if err != nil {
			if req.Logger != nil {
				req.Logger.Info("the endpoint is on this machine, but its server's process was not found: its CPU counts among other processes", "target", req.Name, "endpoint", ep, "err", err)
			}
			continue
		}
		if seen[pid] {
			continue
		}
		seen[pid] = true
		hosts = append(hosts, deploy.Host{Name: fmt.Sprintf("%s-%d", req.Name, len(hosts)+1), PID: pid})
	}
	if len(hosts) == 1 {
		hosts[0].Name = req.Name
	}
	return hosts
}

// onThisMachine reports whether host names this machine: a loopback
// address, or one of its interfaces' addresses.
func onThisMachine(ctx context.Context, host string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return false
	}
	addrs, _ := net.InterfaceAddrs()
	for _, ip := range ips {
		if ip.IP.IsLoopback() || ip.IP.IsUnspecified() {
			return true
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip.IP) {
				return true
			}
		}
	}
	return false
}

type deployment struct {
	hosts   []deploy.Host
	version string
}

func (d *deployment) Properties() map[string]string { return nil }
func (d *deployment) Hosts() []deploy.Host          { return d.hosts }
func (d *deployment) Version() string               { return d.version }
func (d *deployment) Limits() string                { return "" }
func (d *deployment) Down(context.Context) error    { return nil }

var _ deploy.Kept = (*deployment)(nil)

// DownTimeout implements deploy.Teardown: nothing to stop.
func (d *deployment) DownTimeout() time.Duration { return time.Second }

// KeptBy implements deploy.Kept: the endpoint was running before and
// stays running.
func (d *deployment) KeptBy() string { return "existing" }

// LeftBehind implements deploy.Teardown.
func (d *deployment) LeftBehind() string { return "nothing: the endpoint was running before" }
