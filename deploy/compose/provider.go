package compose

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/deploy"
)

// Provider is the Docker Compose provider. Docker is the command that
// runs compose: "docker" (its compose plugin) or "docker-compose"; empty
// finds one on PATH.
type Provider struct {
	Docker string
}

var (
	_ deploy.Provider = Provider{}
	_ deploy.Checker  = Provider{}
	_ deploy.Renderer = Provider{}
)

// Name implements deploy.Provider.
func (Provider) Name() string { return deploy.Compose }

// command returns the program and the arguments before a compose
// subcommand.
func (p Provider) command() ([]string, error) {
	if p.Docker != "" {
		if filepath.Base(p.Docker) == "docker-compose" {
			return []string{p.Docker}, nil
		}
		return []string{p.Docker, "compose"}, nil
	}
	if docker, err := exec.LookPath("docker"); err == nil {
		if exec.Command(docker, "compose", "version").Run() == nil {
			return []string{docker, "compose"}, nil
		}
	}
	if dc, err := exec.LookPath("docker-compose"); err == nil {
		return []string{dc}, nil
	}
	return nil, errors.New("compose: neither `docker compose` (Docker's compose plugin) nor `docker-compose` is installed: install Docker Engine with its compose plugin (https://docs.docker.com/compose/install/), or write the files with `dbarena deploy render` and run them where Docker runs")
}

// Check implements deploy.Checker: compose must be installed, 2.1 or
// later, and the target must render.
func (p Provider) Check(req deploy.Request) error {
	cmd, err := p.command()
	if err != nil {
		return err
	}
	if err := checkVersion(cmd); err != nil {
		return err
	}
	_, err = Render(req)
	return err
}

// composeVersion finds the version in `docker compose version` ("Docker
// Compose version v2.29.1") and `docker-compose version` ("docker-compose
// version 1.29.2, build 5becea4c").
var composeVersion = regexp.MustCompile(`(?i)compose version v?(\d+)\.(\d+)`)

// checkVersion refuses Compose before 2.1, which has no `up --wait`: the
// experiment would start measuring databases still booting.
func checkVersion(cmd []string) error {
	name := strings.Join(cmd, " ")
	out, err := exec.Command(cmd[0], append(cmd[1:], "version")...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("compose: %s version: %w: %s", name, err, strings.TrimSpace(string(out)))
	}
	m := composeVersion.FindSubmatch(out)
	if m == nil {
		return fmt.Errorf("compose: %s version: no version in %q", name, strings.TrimSpace(string(out)))
	}
	major, _ := strconv.Atoi(string(m[1]))
	minor, _ := strconv.Atoi(string(m[2]))
	if major < 2 || (major == 2 && minor < 1) {
		return fmt.Errorf("compose: %s is version %d.%d: dbarena needs Compose 2.1 or later (up --wait); install Docker's compose plugin (https://docs.docker.com/compose/install/)", name, major, minor)
	}
	return nil
}

// Render implements deploy.Renderer: Write, and the compose file.
func (Provider) Render(req deploy.Request, dir string) (string, error) {
	if _, err := Write(req, dir); err != nil {
		return "", err
	}
	return filepath.Join(dir, "compose.yml"), nil
}

// Write renders req into dir: compose.yml, and secrets.env (mode 0600)
// when the target has secrets. It returns the project.
func Write(req deploy.Request, dir string) (*Project, error) {
	p, err := Render(req)
	if err != nil {
		return nil, err
	}
	y, err := p.YAML()
	if err != nil {
		return nil, err
	}
	if err := deploy.WriteFile(dir, "compose.yml", y, 0o644); err != nil {
		return nil, fmt.Errorf("compose: %w", err)
	}
	if len(p.Secrets) > 0 {
		if err := deploy.WriteFile(dir, envFile, p.EnvFile(), 0o600); err != nil {
			return nil, fmt.Errorf("compose: %w", err)
		}
	}
	for name, b := range p.Files {
		if err := deploy.WriteFile(dir, name, b, 0o644); err != nil {
			return nil, fmt.Errorf("compose: %w", err)
		}
	}
	return p, nil
}

// Up implements deploy.Provider: it writes the project into the work
// directory, starts it and waits until every container is healthy, then
// reads the published ports. On error it takes down what it started.
func (p Provider) Up(ctx context.Context, req deploy.Request) (deploy.Deployment, error) {
	base, err := p.command()
	if err != nil {
		return nil, err
	}
	work := req.WorkDir
	if work == "" {
		work = os.TempDir()
	}
	dir, err := os.MkdirTemp(work, "dbarena-compose-"+req.Name+"-")
	if err != nil {
		return nil, fmt.Errorf("compose: %w", err)
	}
	proj, err := Write(req, dir)
	if err != nil {
		return nil, err
	}
	d := &deployment{base: base, dir: dir, name: proj.File.Name, keep: req.Keep, version: req.Version}
	if err := portsFree(proj); err != nil {
		return nil, errors.Join(fmt.Errorf("compose: %s: %w", req.Name, err), os.RemoveAll(dir))
	}
	timeout := int(proj.Options.ReadyTimeout / time.Second)
	if _, err := d.compose(ctx, "up", "-d", "--wait", "--wait-timeout", strconv.Itoa(timeout)); err != nil {
		if ctx.Err() == nil {
			err = d.diagnose(err)
		} else {
			err = fmt.Errorf("%w: %w", ctx.Err(), err)
		}
		// Also after an interrupt, bounded as a teardown is.
		dctx, cancel := context.WithTimeout(context.Background(), d.DownTimeout())
		defer cancel()
		return nil, errors.Join(fmt.Errorf("compose: %s: up: %w", req.Name, err), d.Down(dctx))
	}
	if err := d.healthy(ctx); err != nil {
		dctx, cancel := context.WithTimeout(context.Background(), d.DownTimeout())
		defer cancel()
		return nil, errors.Join(fmt.Errorf("compose: %s: up: %w", req.Name, err), d.Down(dctx))
	}
	var addrs []string
	for _, e := range proj.Exposed {
		out, err := d.compose(ctx, "port", e.Service, strconv.Itoa(e.Port))
		if err != nil {
			return nil, errors.Join(fmt.Errorf("compose: %s: port of %s: %w", req.Name, e.Service, err), d.Down(context.Background()))
		}
		addr := strings.TrimSpace(out)
		if !strings.HasPrefix(addr, "127.0.0.1:") {
			return nil, errors.Join(fmt.Errorf("compose: %s: %s's port %d is published on %q, want 127.0.0.1:PORT", req.Name, e.Service, e.Port, addr), d.Down(context.Background()))
		}
		addrs = append(addrs, addr)
	}
	d.props = proj.Props(addrs)
	var services []string
	for _, e := range proj.Exposed {
		services = append(services, e.Service)
	}
	d.hosts = d.containers(ctx, req, services)
	if urls := proj.Options.Monitoring.URLs(); urls != "" && req.Logger != nil {
		req.Logger.Info("monitoring", "target", req.Name, "at", urls)
	}
	return d, nil
}

// portsFree checks that the ports option port fixes are free on
// 127.0.0.1, so that a taken one is named before anything starts rather
// than in the middle of Docker's output.
func portsFree(proj *Project) error {
	if host := os.Getenv("DOCKER_HOST"); proj.Options.Port == 0 || (host != "" && !strings.HasPrefix(host, "unix://")) {
		// An engine elsewhere publishes on its own loopback, which
		// cannot be checked from here.
		return nil
	}
	for i, e := range proj.Exposed {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(proj.Options.Port+i))
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("option port: %s cannot publish on %s, already in use (by another program or deployment): free it, choose another port, or leave port out to pick a free one: %w", e.Service, addr, err)
		}
		l.Close()
	}
	return nil
}

// healthy checks what `up --wait` reported: no container whose health
// check has not passed (starting or unhealthy). CI once saw up return
// success for a container whose check could never pass; a deployment
// that says ready must be. A container without a health check, or a
// one-shot that exited, is not judged here.
func (d *deployment) healthy(ctx context.Context) error {
	out, err := d.compose(ctx, "ps", "-a", "--format", "{{.Service}}\t{{.State}}\t{{.Health}}\t{{.Status}}")
	if err != nil {
		return fmt.Errorf("ps after up: %w", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Split(line, "\t"); len(f) >= 4 && (f[2] == "starting" || f[2] == "unhealthy") {
			return d.diagnose(fmt.Errorf("docker compose reported the services ready, but %s's health check has not passed", f[0]))
		}
	}
	return nil
}

// diagnose adds to a failed up what the containers say: each one's
// state and health, and the tail of the log of each that is not healthy.
// It is best effort, within a few seconds.
func (d *deployment) diagnose(upErr error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := d.compose(ctx, "ps", "-a", "--format", "{{.Service}}\t{{.State}}\t{{.Health}}\t{{.Status}}")
	if err != nil {
		return upErr
	}
	var parts []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 4 || f[2] == "healthy" || (f[1] == "running" && f[2] == "") {
			continue
		}
		text := fmt.Sprintf("service %s is %s (%s)", f[0], f[1], f[3])
		if logs, err := d.compose(ctx, "logs", "--no-color", "--no-log-prefix", "--tail", "10", f[0]); err == nil && strings.TrimSpace(logs) != "" {
			text += "; log tail:\n" + strings.TrimRight(logs, "\n")
		}
		parts = append(parts, text)
	}
	if len(parts) == 0 {
		return upErr
	}
	return fmt.Errorf("%w\n%s", upErr, strings.Join(parts, "\n"))
}

// containers returns the database containers as hosts to watch, by
// their main process, so that sysmetrics records their CPU and memory
// like a local server's; where Docker runs on another kernel (Docker
// Desktop) or anything fails, the run goes on without them.
func (d *deployment) containers(ctx context.Context, req deploy.Request, services []string) []deploy.Host {
	if runtime.GOOS != "linux" {
		return nil
	}
	ids, err := d.compose(ctx, append([]string{"ps", "-q"}, services...)...)
	if err != nil || strings.TrimSpace(ids) == "" {
		logWarn(req, "no container list: database metrics not recorded", err)
		return nil
	}
	docker := d.base[0]
	if filepath.Base(docker) == "docker-compose" {
		docker = "docker"
	}
	args := append([]string{"inspect", "--format", "{{.Name}} {{.State.Pid}}"}, strings.Fields(ids)...)
	out, err := exec.CommandContext(ctx, docker, args...).Output()
	if err != nil {
		logWarn(req, "docker inspect failed: database metrics not recorded", err)
		return nil
	}
	var hosts []deploy.Host
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, pidText, ok := strings.Cut(strings.TrimSpace(line), " ")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 {
			continue
		}
		hosts = append(hosts, deploy.Host{Name: strings.TrimPrefix(name, "/"), PID: pid})
	}
	return hosts
}

func logWarn(req deploy.Request, msg string, err error) {
	if req.Logger != nil {
		req.Logger.Warn(msg, "target", req.Name, "err", err)
	}
}

type deployment struct {
	base      []string
	dir, name string
	keep      bool
	version   string
	props     map[string]string
	hosts     []deploy.Host
	down      bool
}

// compose runs one compose subcommand on the project.
func (d *deployment) compose(ctx context.Context, args ...string) (string, error) {
	argv := append(append(append([]string(nil), d.base[1:]...), "-p", d.name, "-f", filepath.Join(d.dir, "compose.yml")), args...)
	out, err := deploy.Run(exec.CommandContext(ctx, d.base[0], argv...))
	return string(out), err
}

func (d *deployment) Properties() map[string]string { return d.props }
func (d *deployment) Hosts() []deploy.Host          { return d.hosts }
func (d *deployment) Version() string               { return d.version }
func (d *deployment) Limits() string                { return "" }

// DownTimeout implements deploy.Teardown: Compose stops each container
// with a 10 s grace, and a database's volume takes a while to remove.
func (d *deployment) DownTimeout() time.Duration { return 3 * time.Minute }

// LeftBehind implements deploy.Teardown.
func (d *deployment) LeftBehind() string {
	return fmt.Sprintf("the Compose project %s and its volumes (remove them with: %s -p %s -f %s down -v), and the directory %s",
		d.name, strings.Join(d.base, " "), d.name, filepath.Join(d.dir, "compose.yml"), d.dir)
}

// Down implements deploy.Deployment: it removes the containers, and
// their volumes unless asked to keep them. Safe to call twice.
func (d *deployment) Down(ctx context.Context) error {
	if d.down {
		return nil
	}
	d.down = true
	args := []string{"down", "--remove-orphans"}
	if !d.keep {
		args = append(args, "-v")
	}
	_, err := d.compose(ctx, args...)
	if !d.keep {
		err = errors.Join(err, os.RemoveAll(d.dir))
	}
	return err
}
