package kubernetes

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/deploy"
)

// Provider is the Kubernetes provider. Kubectl is the program; empty
// finds kubectl on PATH.
type Provider struct {
	Kubectl string
}

var (
	_ deploy.Provider     = Provider{}
	_ deploy.Checker      = Provider{}
	_ deploy.Renderer     = Provider{}
	_ deploy.LoadMachines = (*deployment)(nil)
)

// Name implements deploy.Provider.
func (Provider) Name() string { return deploy.Kubernetes }

func (p Provider) kubectl() (string, error) {
	name := p.Kubectl
	if name == "" {
		name = "kubectl"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("kubernetes: kubectl not found (https://kubernetes.io/docs/tasks/tools/): %w", err)
	}
	return path, nil
}

// Check implements deploy.Checker: kubectl present, the target
// renderable.
func (p Provider) Check(req deploy.Request) error {
	if _, err := p.kubectl(); err != nil {
		return err
	}
	_, err := Render(req)
	return err
}

// Render implements deploy.Renderer: Write, and the manifests' file.
func (Provider) Render(req deploy.Request, dir string) (string, error) {
	if _, err := Write(req, dir); err != nil {
		return "", err
	}
	return filepath.Join(dir, "manifests.yaml"), nil
}

// Write renders req's manifests into dir/manifests.yaml (the Secret is
// never written) and returns them.
func Write(req deploy.Request, dir string) (*Manifests, error) {
	m, err := Render(req)
	if err != nil {
		return nil, err
	}
	y, err := m.YAML()
	if err != nil {
		return nil, err
	}
	if err := deploy.WriteFile(dir, "manifests.yaml", y, 0o644); err != nil {
		return nil, fmt.Errorf("kubernetes: %w", err)
	}
	return m, nil
}

// forwarding is kubectl port-forward's line naming the local port.
var forwarding = regexp.MustCompile(`Forwarding from 127\.0\.0\.1:(\d+) ->`)

// Up implements deploy.Provider: apply the database, wait for the
// StatefulSet's rollout, forward a local port to it (for the schema and
// the database's statistics, from this machine), then start the loader
// pods the experiment runs its loaders in through kubectl exec. A
// cluster's drivers reach every node from there, by the pods' cluster
// addresses; through the forwarded port, CQL drivers talk to one node.
func (p Provider) Up(ctx context.Context, req deploy.Request) (deploy.Deployment, error) {
	kc, err := p.kubectl()
	if err != nil {
		return nil, err
	}
	work := req.WorkDir
	if work == "" {
		work = os.TempDir()
	}
	dir, err := os.MkdirTemp(work, "dbarena-kubernetes-"+req.Name+"-")
	if err != nil {
		return nil, fmt.Errorf("kubernetes: %w", err)
	}
	m, err := Write(req, dir)
	if err != nil {
		return nil, err
	}
	d := &deployment{kc: kc, ctx: m.Options.Context, ns: m.Options.Namespace, dir: dir, version: req.Version}
	fail := func(err error) (deploy.Deployment, error) {
		return nil, errors.Join(fmt.Errorf("kubernetes: %s: %w", req.Name, err), d.Down(context.Background()))
	}
	// The namespace and database only: the loader Job runs when asked.
	if _, err := d.kubectl(ctx, nil, "apply", "-f", filepath.Join(dir, "manifests.yaml"), "--selector", "app.kubernetes.io/name="+req.Database); err != nil {
		return fail(err)
	}
	if m.Secret != nil {
		secret, err := yaml.Marshal(m.Secret)
		if err != nil {
			return fail(err)
		}
		// From memory: the password never lands in a file.
		if _, err := d.kubectl(ctx, secret, "apply", "-f", "-"); err != nil {
			return fail(err)
		}
	}
	if _, err := d.kubectl(ctx, nil, "-n", d.ns, "rollout", "status", "statefulset/db", "--timeout", fmt.Sprintf("%ds", int(deploy.DefaultReadyTimeout/time.Second))); err != nil {
		return fail(err)
	}
	port, err := d.forward(ctx, m.Service, m.Port)
	if err != nil {
		return fail(err)
	}
	nodes := max(req.Nodes, 1)
	d.props = props(m.Database, "127.0.0.1", port, nodes)
	if strings.HasPrefix(d.props["cql.hosts"], "127.0.0.1") {
		// The other nodes' addresses are the pods', unreachable here.
		d.props["cql.discovery"] = "false"
	}
	d.loaderProps = props(m.Database, fmt.Sprintf("%s.%s.svc.cluster.local", m.Service, d.ns), m.Port, nodes)
	if _, sql := d.loaderProps["postgres.url"]; sql && nodes > 1 {
		// The loaders' workers spread over the pods.
		var hosts []string
		for i := range nodes {
			hosts = append(hosts, fmt.Sprintf("db-%d.%s.%s.svc.cluster.local:%d", i, m.Service, d.ns, m.Port))
		}
		d.loaderProps["postgres.hosts"] = strings.Join(hosts, ",")
	}

	if _, err := d.kubectl(ctx, nil, "apply", "-f", filepath.Join(dir, "manifests.yaml"), "--selector", "app.kubernetes.io/name="+LoaderPodLabel); err != nil {
		return fail(err)
	}
	if _, err := d.kubectl(ctx, nil, "-n", d.ns, "rollout", "status", "deployment/loaders", "--timeout", fmt.Sprintf("%ds", int(deploy.DefaultReadyTimeout/time.Second))); err != nil {
		return fail(err)
	}
	out, err := d.kubectl(ctx, nil, "-n", d.ns, "get", "pods", "-l", "app.kubernetes.io/name="+LoaderPodLabel,
		"--field-selector", "status.phase=Running", "-o", "jsonpath={.items[*].metadata.name}")
	if err != nil {
		return fail(err)
	}
	d.loaderPods = strings.Fields(out)
	if len(d.loaderPods) != m.Options.Loaders {
		return fail(fmt.Errorf("want %d running loader pods, found %d: %q", m.Options.Loaders, len(d.loaderPods), out))
	}
	return d, nil
}

// props are the driver properties of the database at host:port.
func props(db deploy.Database, host string, port, nodes int) map[string]string {
	p := map[string]string{}
	for _, kv := range endpoint(db, host, port) {
		k, v, _ := strings.Cut(kv, "=")
		p[k] = v
	}
	if _, ok := p["cql.hosts"]; ok && nodes >= 3 {
		p["cql.replication.factor"] = "3"
	}
	return p
}

type deployment struct {
	kc, ctx, ns, dir, version string
	// props reach the database through the forwarded port; loaderProps
	// by its Service's name, from the loader pods.
	props, loaderProps map[string]string
	loaderPods         []string
	fwd                *exec.Cmd
	down               bool
}

// LoaderCommands implements deploy.LoadMachines: kubectl exec into each
// loader pod, standard input attached (dbarena copies itself through it).
func (d *deployment) LoaderCommands() [][]string {
	var cmds [][]string
	for _, pod := range d.loaderPods {
		cmd := []string{d.kc}
		if d.ctx != "" {
			cmd = append(cmd, "--context", d.ctx)
		}
		cmds = append(cmds, append(cmd, "-n", d.ns, "exec", "-i", pod, "-c", "loader", "--"))
	}
	return cmds
}

// LoaderProperties implements deploy.LoadMachines.
func (d *deployment) LoaderProperties() map[string]string { return d.loaderProps }

func (d *deployment) kubectl(ctx context.Context, stdin []byte, args ...string) (string, error) {
	if d.ctx != "" {
		args = append([]string{"--context", d.ctx}, args...)
	}
	cmd := exec.CommandContext(ctx, d.kc, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out, err := deploy.Run(cmd)
	return string(out), err
}

// forward starts kubectl port-forward to the Service and returns the
// local port it picked.
func (d *deployment) forward(ctx context.Context, svc string, port int) (int, error) {
	args := []string{"-n", d.ns, "port-forward", "svc/" + svc, fmt.Sprintf(":%d", port)}
	if d.ctx != "" {
		args = append([]string{"--context", d.ctx}, args...)
	}
	cmd := exec.Command(d.kc, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("kubectl port-forward: %w", err)
	}
	d.fwd = cmd
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return 0, errors.New("kubectl port-forward ended before forwarding")
			}
			if m := forwarding.FindStringSubmatch(l); m != nil {
				var p int
				fmt.Sscan(m[1], &p)
				go func() {
					for range lines {
					}
				}()
				return p, nil
			}
		case <-timeout:
			return 0, errors.New("kubectl port-forward: no port after 30s")
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

func (d *deployment) Properties() map[string]string { return d.props }
func (d *deployment) Hosts() []deploy.Host          { return nil }
func (d *deployment) Version() string               { return d.version }
func (d *deployment) Limits() string                { return "" }

// DownTimeout implements deploy.Teardown: the namespace is deleted
// without waiting for it.
func (d *deployment) DownTimeout() time.Duration { return time.Minute }

// LeftBehind implements deploy.Teardown.
func (d *deployment) LeftBehind() string {
	ctx := ""
	if d.ctx != "" {
		ctx = " --context " + d.ctx
	}
	return fmt.Sprintf("the namespace %s and everything in it (remove it with: %s%s delete namespace %s)", d.ns, d.kc, ctx, d.ns)
}

// Down implements deploy.Deployment: stop forwarding and delete the
// namespace with everything in it. Safe to call twice.
func (d *deployment) Down(ctx context.Context) error {
	if d.down {
		return nil
	}
	d.down = true
	if d.fwd != nil && d.fwd.Process != nil {
		_ = d.fwd.Process.Kill()
		_ = d.fwd.Wait()
	}
	_, err := d.kubectl(ctx, nil, "delete", "namespace", d.ns, "--wait=false", "--ignore-not-found")
	return errors.Join(err, os.RemoveAll(d.dir))
}
