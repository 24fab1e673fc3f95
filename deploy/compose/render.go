// Package compose is the Docker Compose deployment provider: it writes a
// compose project for a target (the database's official image, a health
// check that means "ready for queries", resource limits, ports published
// on the loopback address only), brings it up with `docker compose up
// --wait`, points the driver at the published ports and takes it down
// with its volumes. Render writes the same files without running
// anything, for a machine where Docker runs (dbarena deploy render).
package compose

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivers"
)

// File is the subset of the Compose specification dbarena writes.
type File struct {
	Name     string              `yaml:"name"`
	Services map[string]*Service `yaml:"services"`
	Volumes  map[string]struct{} `yaml:"volumes,omitempty"`
}

// Service is one container.
type Service struct {
	Image       string            `yaml:"image,omitempty"`
	Build       *Build            `yaml:"build,omitempty"`
	Command     []string          `yaml:"command,omitempty"`
	Environment map[string]string `yaml:"environment,omitempty"`
	EnvFile     []string          `yaml:"env_file,omitempty"`
	Ports       []string          `yaml:"ports,omitempty"`
	Volumes     []string          `yaml:"volumes,omitempty"`
	Healthcheck *Healthcheck      `yaml:"healthcheck,omitempty"`
	DependsOn   map[string]Dep    `yaml:"depends_on,omitempty"`
	Deploy      *Deploy           `yaml:"deploy,omitempty"`
	Profiles    []string          `yaml:"profiles,omitempty"`
	Entrypoint  []string          `yaml:"entrypoint,omitempty"`
	Ulimits     map[string]Ulimit `yaml:"ulimits,omitempty"`
	NetworkMode string            `yaml:"network_mode,omitempty"`
}

// Build builds an image from a Dockerfile.
type Build struct {
	Context    string `yaml:"context"`
	Dockerfile string `yaml:"dockerfile,omitempty"`
}

// Healthcheck says when a container is ready.
type Healthcheck struct {
	Test        []string `yaml:"test"`
	Interval    string   `yaml:"interval"`
	Timeout     string   `yaml:"timeout"`
	Retries     int      `yaml:"retries"`
	StartPeriod string   `yaml:"start_period"`
}

// Dep is a dependency's condition.
type Dep struct {
	Condition string `yaml:"condition"`
}

// Deploy holds the resource limits.
type Deploy struct {
	Resources Resources `yaml:"resources"`
}

// Resources are limits on one container.
type Resources struct {
	Limits Limits `yaml:"limits"`
}

// Limits caps CPUs and memory.
type Limits struct {
	CPUs   string `yaml:"cpus,omitempty"`
	Memory string `yaml:"memory,omitempty"`
}

// Ulimit is a soft and hard limit.
type Ulimit struct {
	Soft int `yaml:"soft"`
	Hard int `yaml:"hard"`
}

// Exposed is a container port the driver reaches through its published
// loopback port.
type Exposed struct {
	Service string
	Port    int
}

// Project is a rendered target: the compose file, the secrets for its
// env file (never written into the compose file), the ports to read
// back, and how the driver properties are made from their addresses.
type Project struct {
	File    File
	Secrets map[string]string
	Options Options
	Exposed []Exposed
	// Props makes the driver properties from the published addresses
	// ("127.0.0.1:49153"), in Exposed's order.
	Props func(addrs []string) map[string]string
	// Files are written beside compose.yml (by path relative to it):
	// the monitoring's configuration.
	Files map[string][]byte
}

// Options are the provider's settings from deploy.options.
type Options struct {
	// Image replaces the catalogue's image (a private registry, an image
	// built locally).
	Image string
	// Port publishes the first node on 127.0.0.1:Port (node i on
	// Port+i-1); 0 picks free ports.
	Port int
	// ReadyTimeout bounds the wait for every container to be healthy.
	ReadyTimeout time.Duration
	// Monitoring adds Prometheus (and Grafana) to the project.
	Monitoring Monitoring
}

// options reads deploy.options.
func options(req deploy.Request, im *deploy.Image) (Options, error) {
	o := Options{ReadyTimeout: deploy.DefaultReadyTimeout}
	for k, v := range req.Options {
		switch k {
		case "image":
			o.Image = v
		case "password":
		case "port":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n+max(req.Nodes, 1)-1 > 65535 {
				return o, fmt.Errorf("compose: %s: option port: want a port number from 1 to 65535 (node i publishes on port+i-1), got %q", req.Name, v)
			}
			o.Port = n
		case "ready_timeout":
			d, err := time.ParseDuration(v)
			if err != nil || d < time.Second {
				return o, fmt.Errorf("compose: %s: option ready_timeout: want a duration of at least 1s such as 90s or 10m, got %q", req.Name, v)
			}
			o.ReadyTimeout = d
		default:
			ok, err := monitoringOption(&o.Monitoring, k, v)
			if err != nil {
				return o, fmt.Errorf("compose: %s: %w", req.Name, err)
			}
			if !ok {
				return o, fmt.Errorf("compose: %s: unknown option %q; valid: image (to replace %s:%s; local for the image scripts/images/build makes), password (from ${env:...}), port (to publish on 127.0.0.1:PORT), ready_timeout (default %s), prometheus (dbarena's --metrics-addr, to add a Prometheus scraping it), prometheus_image, prometheus_port (default %d), grafana (an image, to add Grafana with dbarena's dashboard), grafana_port (default %d)",
					req.Name, k, im.Name, im.Tag, deploy.DefaultReadyTimeout, defaultPrometheusUI, defaultGrafanaUI)
			}
		}
	}
	if err := o.Monitoring.settle(); err != nil {
		return o, fmt.Errorf("compose: %s: %w", req.Name, err)
	}
	return o, nil
}

// envFile is the env file next to compose.yml holding the secrets.
const envFile = "secrets.env"

// Render builds the compose project of one target.
func Render(req deploy.Request) (*Project, error) {
	db, err := deploy.LookupDatabase(req.Database)
	if err != nil || db.Image == nil {
		return nil, fmt.Errorf("compose: %s: no image for database %q", req.Name, req.Database)
	}
	im := db.Image
	nodes := max(req.Nodes, 1)
	if nodes > 1 && db.Cluster == nil {
		return nil, fmt.Errorf("compose: %s: nodes: %d: the compose provider runs %s as one node; clusters: %s", req.Name, nodes, req.Database, strings.Join(deploy.Names(deploy.Clustered), ", "))
	}
	o, err := options(req, im)
	if err != nil {
		return nil, err
	}
	ref, err := im.Choose(o.Image, req.Version)
	if err != nil {
		return nil, fmt.Errorf("compose: %s: %w", req.Name, err)
	}
	p := &Project{File: File{Name: "dbarena-" + req.Name, Services: map[string]*Service{}, Volumes: map[string]struct{}{}}, Secrets: map[string]string{},
		Options: o, Files: map[string][]byte{}}
	for i := 1; i <= nodes; i++ {
		name := serviceName(req.Database, i, nodes)
		vol := name + "-data"
		p.File.Volumes[vol] = struct{}{}
		// A random free port unless option port fixes them: node i on
		// port+i-1.
		host := ""
		if o.Port > 0 {
			host = strconv.Itoa(o.Port + i - 1)
		}
		svc := &Service{Image: ref, Ports: []string{fmt.Sprintf("127.0.0.1:%s:%d", host, im.Port)},
			Healthcheck: &Healthcheck{Test: im.Health, Interval: "5s", Timeout: "5s", Retries: 60, StartPeriod: im.StartPeriod},
			Environment: map[string]string{}}
		if req.CPUs > 0 || req.MemoryBytes > 0 {
			svc.Deploy = &Deploy{Resources: Resources{Limits: limits(req.CPUs, req.MemoryBytes)}}
		}
		configure(req, db, svc, vol, i, nodes)
		if len(svc.Environment) == 0 {
			svc.Environment = nil
		}
		p.File.Services[name] = svc
		p.Exposed = append(p.Exposed, Exposed{Service: name, Port: im.Port})
	}
	if pw := req.Options["password"]; pw != "" {
		p.Secrets[passwordVar(im)] = pw
		for _, svc := range p.File.Services {
			svc.EnvFile = []string{envFile}
		}
	}
	if p.Props, err = props(req, db); err != nil {
		return nil, err
	}
	p.File.Services["loader"] = loader(req, db, p)
	addMonitoring(p, o.Monitoring)
	return p, nil
}

// LoaderImage is the image of the loader service: dbarena built from
// this repository's Dockerfile (docker build -t dbarena:local .).
const LoaderImage = "dbarena:local"

// loader is a service that runs dbarena itself inside the project's
// network, reaching the database by service name. It has a profile, so
// `up` does not start it: `docker compose --profile loader run loader
// ycsb run ...` does.
func loader(req deploy.Request, db deploy.Database, p *Project) *Service {
	var internal []string
	for _, e := range p.Exposed {
		internal = append(internal, fmt.Sprintf("%s:%d", e.Service, e.Port))
	}
	cmd := []string{"ycsb", "run", db.Driver}
	keys := make([]string, 0)
	pr := p.Props(internal)
	for k := range pr {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pw := req.Options["password"]
	for _, k := range keys {
		v := pr[k]
		if pw != "" {
			// The secret reaches the loader through its env file, and
			// dbarena resolves the reference; $$ keeps compose from
			// interpolating it first.
			v = strings.ReplaceAll(v, pw, "$${env:"+passwordVar(db.Image)+"}")
		}
		cmd = append(cmd, "-p", k+"="+v)
	}
	for k, v := range db.DriverProperties {
		cmd = append(cmd, "-p", k+"="+v)
	}
	deps := map[string]Dep{}
	for _, e := range p.Exposed {
		deps[e.Service] = Dep{Condition: "service_healthy"}
	}
	svc := &Service{Image: LoaderImage, Command: cmd, DependsOn: deps, Profiles: []string{"loader"}}
	if len(p.Secrets) > 0 {
		svc.EnvFile = []string{envFile}
	}
	return svc
}

// limits writes the Compose resource limits.
func limits(cpus float64, mem int64) Limits {
	var l Limits
	if cpus > 0 {
		l.CPUs = strconv.FormatFloat(cpus, 'f', -1, 64)
	}
	if mem > 0 {
		l.Memory = strconv.FormatInt(mem, 10) + "b"
	}
	return l
}

// passwordVar is the container's environment variable for its
// password.
func passwordVar(im *deploy.Image) string {
	if im.PasswordEnv != "" {
		return im.PasswordEnv
	}
	return "DB_PASSWORD"
}

// configure sets what node i of nodes needs beyond the image: its
// environment, volume, command and place in the cluster.
func configure(req deploy.Request, db deploy.Database, svc *Service, vol string, i, nodes int) {
	im, c := db.Image, db.Cluster
	_, hasPassword := req.Options["password"]
	vars := append(append([]deploy.EnvVar(nil), im.Env...), im.SharedEnv...)
	if !hasPassword {
		// Published on the loopback address only.
		vars = append(vars, im.OpenEnv...)
	}
	for _, v := range vars {
		svc.Environment[v.Name] = v.Value
	}
	if im.DataDir != "" {
		svc.Volumes = []string{vol + ":" + im.DataDir}
	}
	if im.NoFile > 0 {
		svc.Ulimits = map[string]Ulimit{"nofile": {Soft: im.NoFile, Hard: im.NoFile}}
	}
	svc.Command = command(req, db, nodes)
	if hasPassword && im.PasswordFlag != "" {
		// The secret reaches the server from its env file; $$ keeps
		// compose from interpolating it.
		svc.Command = []string{"sh", "-c", "exec " + deploy.ShellJoin(svc.Command) + " " + im.PasswordFlag + ` "$$` + passwordVar(im) + `"`}
		svc.Healthcheck.Test = im.PasswordHealth
	}
	if c == nil {
		return
	}
	if c.SeedEnv != "" {
		svc.Environment[c.SeedEnv] = serviceName(db.Name, 1, nodes)
	}
	if c.Serial && i > 1 {
		svc.DependsOn = map[string]Dep{serviceName(db.Name, i-1, nodes): {Condition: "service_healthy"}}
	}
	if nodes > 1 && i == 1 && c.InitCheck != "" {
		// Node 1's health check initialises the cluster, idempotently.
		svc.Healthcheck.Test = []string{"CMD-SHELL", c.InitCheck}
	}
}

// command is a node's command: sized to its limits, told the seed or
// every node of a cluster (nil: the image's own).
func command(req deploy.Request, db deploy.Database, nodes int) []string {
	im, c := db.Image, db.Cluster
	var args []string
	if im.Sized != nil {
		args = append(args, im.Sized(req.CPUs, req.MemoryBytes)...)
	}
	base := im.Args
	if c != nil && nodes > 1 {
		if c.SeedFlag != "" {
			args = append(args, c.SeedFlag, serviceName(db.Name, 1, nodes))
		}
		if c.Args != nil {
			base = c.Args
		}
	}
	args = append(args, base...)
	if c != nil && nodes > 1 && c.JoinFlag != "" {
		var join []string
		for j := 1; j <= nodes; j++ {
			join = append(join, fmt.Sprintf("%s:%d", serviceName(db.Name, j, nodes), im.Port))
		}
		args = append(args, c.JoinFlag+strings.Join(join, ","))
	}
	return args
}

// ScyllaArgs are ScyllaDB's resource arguments for a container capped
// at cpus and memory: deploy.ScyllaArgs, which the catalogue sizes it
// with.
func ScyllaArgs(cpus float64, memory int64) []string { return deploy.ScyllaArgs(cpus, memory) }

// serviceName names node i of nodes: the database's name alone, or
// numbered from 1 in a cluster. The first is the cluster's seed.
func serviceName(db string, i, nodes int) string {
	if nodes == 1 {
		return db
	}
	return fmt.Sprintf("%s-%d", db, i)
}

// props makes the driver properties from the published addresses
// (host:port each: the nodes' ports differ), through the driver.
func props(req deploy.Request, db deploy.Database) (func([]string) map[string]string, error) {
	info, err := drivers.Lookup(db.Driver)
	if err != nil || info.Address == nil {
		return nil, fmt.Errorf("compose: %s: driver %s makes no properties of addresses", db.Name, db.Driver)
	}
	pw := req.Options["password"]
	return func(addrs []string) map[string]string { return driver.PropMap(info.Address(db.Reach(addrs, pw))) }, nil
}

// YAML is the compose file's text: services in name order, so that the
// same experiment renders the same bytes.
func (p *Project) YAML() ([]byte, error) {
	b, err := yaml.Marshal(&p.File)
	if err != nil {
		return nil, fmt.Errorf("compose: render %s: %w", p.File.Name, err)
	}
	return b, nil
}

// EnvFile is the env file's text: NAME=value lines, names sorted; empty
// when the target has no secret.
func (p *Project) EnvFile() []byte {
	names := make([]string, 0, len(p.Secrets))
	for k := range p.Secrets {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		fmt.Fprintf(&b, "%s=%s\n", k, p.Secrets[k])
	}
	return []byte(b.String())
}
