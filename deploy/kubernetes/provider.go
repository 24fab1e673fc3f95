package kubernetes

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/driver"
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
// renderable, and a cluster answering kubectl (its API server's
// readiness, within clusterTimeout): without one, the run would fail at
// its first apply after the dry run said it could deploy.
func (p Provider) Check(req deploy.Request) error {
	kc, err := p.kubectl()
	if err != nil {
		return err
	}
	m, err := Render(req)
	if err != nil {
		return err
	}
	// The cluster the target deploys on: its context option's, else
	// kubectl's current one.
	args := []string{"get", "--raw=/readyz", "--request-timeout=" + clusterTimeout.String()}
	which := "kubectl's current context"
	if c := m.Options.Context; c != "" {
		args = append([]string{"--context", c}, args...)
		which = "context " + c
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, kc, args...).CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if ctx.Err() != nil {
			msg = "no answer within " + clusterTimeout.String()
		}
		return fmt.Errorf("kubernetes: no cluster answers kubectl in %s (kubectl get --raw=/readyz: %s); point the target's context option, KUBECONFIG or kubectl's current context at the cluster to deploy on", which, lastLine(msg))
	}
	return (&deployment{kc: kc, ctx: m.Options.Context}).fits(ctx, req, m.Options)
}

// fits refuses a target whose pods the cluster's nodes can never hold
// (fit), unless a cluster autoscaler may add nodes. What kubectl cannot
// say (the nodes, where listing them is not allowed) is not judged.
func (d *deployment) fits(ctx context.Context, req deploy.Request, o Options) error {
	if d.autoscaled(ctx) {
		return nil
	}
	out, err := d.kubectl(ctx, nil, "get", "nodes", "-o", "json")
	if err != nil {
		return nil
	}
	nodes, err := parseNodes([]byte(out))
	if err != nil {
		return nil
	}
	return fit(req.Name, asks(req, o), nodes)
}

// clusterTimeout bounds Check's question to the cluster.
const clusterTimeout = 10 * time.Second

// lastLine is the last line of kubectl's output: its error, after the
// lines of retries before it.
func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
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

// The lines kubectl port-forward and kubectl proxy print once they
// listen, naming the local port.
var (
	forwarding = regexp.MustCompile(`Forwarding from 127\.0\.0\.1:(\d+) ->`)
	serving    = regexp.MustCompile(`Starting to serve on 127\.0\.0\.1:(\d+)`)
)

// Up implements deploy.Provider: apply the database, wait for the
// StatefulSet's rollout, forward a local port to it (for the schema and
// the database's statistics, from this machine), then start the loader
// pods the experiment runs its loaders in through kubectl exec. The
// loaders reach the database pods by their pod addresses, which every
// conformant cluster routes between pods, so that no cluster DNS is
// needed; through the forwarded port, CQL drivers talk to one node. A
// kubectl proxy serves each pod's kubelet resource metrics, for the
// pods' CPU and memory.
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
	d := &deployment{kc: kc, ctx: m.Options.Context, ns: m.Options.Namespace, dir: dir, version: req.Version, log: req.Logger}
	fail := func(err error) (deploy.Deployment, error) {
		// Also after an interrupt, bounded as a teardown is.
		dctx, cancel := context.WithTimeout(context.Background(), d.DownTimeout())
		defer cancel()
		return nil, errors.Join(fmt.Errorf("kubernetes: %s: %w", req.Name, err), d.Down(dctx))
	}
	if err := d.applyDatabase(ctx, req, m); err != nil {
		return fail(err)
	}
	nodes := max(req.Nodes, 1)
	pods, err := d.pods(ctx, "app.kubernetes.io/name="+req.Database+",app.kubernetes.io/instance="+req.Name)
	if err != nil {
		return fail(err)
	}
	if len(pods) != nodes {
		return fail(fmt.Errorf("want %d database pods, found %d", nodes, len(pods)))
	}
	port, err := d.listen(ctx, forwarding, "-n", d.ns, "port-forward", "svc/"+m.Service, fmt.Sprintf(":%d", m.Port))
	if err != nil {
		return fail(err)
	}
	// Through the port-forward, the nodes' own addresses (the pods')
	// are unreachable: the driver keeps to the forwarded one. The
	// loaders, inside the cluster, reach every pod.
	props, err := address(m.Database, []string{net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}, nodes, true)
	if err != nil {
		return fail(err)
	}
	var podAddrs []string
	for _, pod := range pods {
		podAddrs = append(podAddrs, net.JoinHostPort(pod.ip, strconv.Itoa(m.Port)))
	}
	loaderProps, err := address(m.Database, podAddrs, nodes, false)
	if err != nil {
		return fail(err)
	}
	d.props, d.loaderProps = driver.PropMap(props), driver.PropMap(loaderProps)
	if err := d.watch(ctx, req, pods); err != nil {
		return fail(err)
	}
	if err := d.startLoaders(ctx, m); err != nil {
		return fail(err)
	}
	return d, nil
}

// applyDatabase applies the namespace, the database and its Secret, and
// waits for the StatefulSet's rollout; a rollout that fails says why.
func (d *deployment) applyDatabase(ctx context.Context, req deploy.Request, m *Manifests) error {
	// The namespace and database only: the loader Job runs when asked.
	if _, err := d.kubectl(ctx, nil, "apply", "-f", filepath.Join(d.dir, "manifests.yaml"), "--selector", "app.kubernetes.io/name="+req.Database); err != nil {
		return err
	}
	if m.Secret != nil {
		secret, err := yaml.Marshal(m.Secret)
		if err != nil {
			return fmt.Errorf("the Secret: %w", err)
		}
		// From memory: the password never lands in a file.
		if _, err := d.kubectl(ctx, secret, "apply", "-f", "-"); err != nil {
			return err
		}
	}
	return d.rollout(ctx, "statefulset/db", "app.kubernetes.io/instance="+req.Name+",app.kubernetes.io/name="+req.Database, max(req.Nodes, 1), m.Options.ReadyTimeout)
}

// startLoaders applies the idle loader pods and waits for them.
func (d *deployment) startLoaders(ctx context.Context, m *Manifests) error {
	selector := "app.kubernetes.io/name=" + LoaderPodLabel
	if _, err := d.kubectl(ctx, nil, "apply", "-f", filepath.Join(d.dir, "manifests.yaml"), "--selector", selector); err != nil {
		return err
	}
	if err := d.rollout(ctx, "deployment/loaders", selector, m.Options.Loaders, m.Options.ReadyTimeout); err != nil {
		return err
	}
	out, err := d.kubectl(ctx, nil, "-n", d.ns, "get", "pods", "-l", selector,
		"--field-selector", "status.phase=Running", "-o", "jsonpath={.items[*].metadata.name}")
	if err != nil {
		return err
	}
	d.loaderPods = strings.Fields(out)
	if len(d.loaderPods) != m.Options.Loaders {
		return fmt.Errorf("want %d running loader pods, found %d: %q", m.Options.Loaders, len(d.loaderPods), out)
	}
	return nil
}

// rollout waits until what (kind/name) has want ready pods. A pod whose
// container keeps crashing or cannot start ends the wait at once, and the
// timeout ends it later; either way the error names each pod that is not
// ready, with its state, its recent events and the tail of its log.
func (d *deployment) rollout(ctx context.Context, what, selector string, want int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		ready, err := d.kubectl(ctx, nil, "-n", d.ns, "get", what, "-o", "jsonpath={.status.readyReplicas}")
		if err == nil && strings.TrimSpace(ready) == strconv.Itoa(want) {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		}
		stuck := d.stuck(ctx, selector)
		if stuck == "" && time.Now().Before(deadline) {
			select {
			case <-ctx.Done():
				return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
			case <-tick.C:
				continue
			}
		}
		// A fresh context: the diagnosis is worth its few seconds.
		dctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		why := d.diagnose(dctx, selector)
		cancel()
		if why == "" && err != nil {
			why = err.Error()
		}
		if stuck != "" {
			return fmt.Errorf("%s not ready: %s: %s", what, stuck, why)
		}
		return fmt.Errorf("%s not ready within %s: %s", what, timeout, why)
	}
}

// hopeless are the reasons a container waits that waiting does not mend.
var hopeless = map[string]bool{"ErrImageNeverPull": true, "InvalidImageName": true, "ImagePullBackOff": true,
	"CreateContainerConfigError": true}

// crashLoops is how many restarts make a container crash-looping, not
// unlucky: a database that exited twice will not come up by waiting (the
// kubelet waits 10 s, then 20 s, 40 s... between restarts).
const crashLoops = 2

// pod is one pod's name, address and Kubernetes node.
type pod struct{ name, ip, node string }

// pods lists the running pods that selector picks, by name.
func (d *deployment) pods(ctx context.Context, selector string) ([]pod, error) {
	out, err := d.kubectl(ctx, nil, "-n", d.ns, "get", "pods", "-l", selector, "--sort-by", ".metadata.name",
		"-o", `jsonpath={range .items[*]}{.metadata.name} {.status.podIP} {.spec.nodeName}{"\n"}{end}`)
	if err != nil {
		return nil, err
	}
	var pods []pod
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		pods = append(pods, pod{name: f[0], ip: f[1], node: f[2]})
	}
	return pods, nil
}

// watch starts a kubectl proxy and names the database pods as hosts whose
// CPU and memory their nodes' kubelets report through it. A cluster that
// refuses the proxy leaves the pods unwatched, with a warning: the
// figures are worth less than the run.
func (d *deployment) watch(ctx context.Context, req deploy.Request, pods []pod) error {
	port, err := d.listen(ctx, serving, "proxy", "--port", "0", "--address", "127.0.0.1")
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		if d.log != nil {
			d.log.Warn("kubectl proxy failed: the database pods' CPU and memory go unmeasured", "target", req.Name, "err", err)
		}
		return nil
	}
	for _, p := range pods {
		name := req.Name
		if len(pods) > 1 {
			name = req.Name + "-" + strings.TrimPrefix(p.name, "db-")
		}
		d.hosts = append(d.hosts, deploy.Host{Name: name, Pod: d.ns + "/" + p.name,
			PodMetricsURL: fmt.Sprintf("http://127.0.0.1:%d/api/v1/nodes/%s/proxy/metrics/resource", port, p.node)})
	}
	return nil
}

type deployment struct {
	kc, ctx, ns, dir, version string
	log                       *slog.Logger
	// props reach the database through the forwarded port; loaderProps
	// by its pods' addresses, from the loader pods.
	props, loaderProps map[string]string
	loaderPods         []string
	hosts              []deploy.Host
	// bg are the kubectl port-forward and proxy processes.
	bg   []*exec.Cmd
	down bool
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

// listen starts a long-running kubectl command (port-forward, proxy)
// and returns the local port it names in the line that re matches.
func (d *deployment) listen(ctx context.Context, re *regexp.Regexp, args ...string) (int, error) {
	if d.ctx != "" {
		args = append([]string{"--context", d.ctx}, args...)
	}
	name := "kubectl " + strings.Join(args, " ")
	cmd := exec.Command(d.kc, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	d.bg = append(d.bg, cmd)
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// Whatever this returns, the reader must not block on a line nobody
	// takes: kubectl writes a line per connection it forwards.
	defer func() {
		go func() {
			for range lines {
			}
		}()
	}()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return 0, fmt.Errorf("%s ended before it listened: %s", name, strings.TrimSpace(stderr.String()))
			}
			if m := re.FindStringSubmatch(l); m != nil {
				p, _ := strconv.Atoi(m[1])
				return p, nil
			}
		case <-timeout:
			return 0, fmt.Errorf("%s: no port after 30s: %s", name, strings.TrimSpace(stderr.String()))
		case <-ctx.Done():
			return 0, fmt.Errorf("%s: %w", name, ctx.Err())
		}
	}
}

// syncBuffer is a buffer one goroutine (the command's) writes while
// another reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b.Len() > 4096 {
		// Enough to say why; kubectl has nothing longer to say.
		return len(p), nil
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (d *deployment) Properties() map[string]string { return d.props }
func (d *deployment) Hosts() []deploy.Host          { return d.hosts }
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
	for _, cmd := range d.bg {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	_, err := d.kubectl(ctx, nil, "delete", "namespace", d.ns, "--wait=false", "--ignore-not-found")
	return errors.Join(err, os.RemoveAll(d.dir))
}
