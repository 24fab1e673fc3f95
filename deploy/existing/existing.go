// Package existing is the deployment provider for databases that already
// run: it starts and stops nothing. The target's driver properties say
// where the database is; the option "metrics" lists node_exporter URLs
// (comma-separated) of its hosts so that their CPU, memory, disk and
// network are recorded like those of a local deployment.
package existing

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/internal/redact"
)

// Provider is the existing-endpoint provider.
type Provider struct{}

var _ deploy.Provider = Provider{}

// Name implements deploy.Provider.
func (Provider) Name() string { return "existing" }

// Up implements deploy.Provider: it checks the options and returns at
// once; the driver's connection errors say whether the database answers.
func (Provider) Up(_ context.Context, req deploy.Request) (deploy.Deployment, error) {
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
	}
	return d, nil
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
