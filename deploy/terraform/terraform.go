// Package terraform is the deployment provider for cloud VMs: it copies
// the embedded OpenTofu/Terraform module of the cloud (GCP or AWS: one
// VM per database node with its local NVMe SSDs striped and mounted for
// the data, loader VMs in the same zone, node_exporter everywhere,
// firewall rules that admit only the loaders and the operator) into a
// state directory, runs `tofu` (or `terraform`) init and apply, reads the
// outputs, and destroys everything at teardown, also after a failed
// apply. `dbarena deploy down DIR` destroys a state directory by hand.
package terraform

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivers"
)

//go:embed modules
var modules embed.FS

// Provider is the Terraform provider. Tool is the program, "tofu" or
// "terraform"; empty finds one on PATH. SSH is the ssh program the
// loader VMs are reached with ("" is ssh on PATH). ReadyTimeout bounds
// the wait for the VMs to boot and the databases to answer (0 is
// deploy.DefaultReadyTimeout).
type Provider struct {
	Tool         string
	SSH          string
	ReadyTimeout time.Duration
	// Answers says whether the database answers its driver at props
	// (nil: open the driver, which connects, and close it). Up asks it
	// of a cluster that answers only once initialised: its port opens
	// before.
	Answers func(ctx context.Context, driverName string, props map[string]string) error
}

// answers opens the driver at props and closes it.
func answers(ctx context.Context, driverName string, props map[string]string) error {
	info, err := drivers.Lookup(driverName)
	if err != nil {
		return err
	}
	db, err := info.Open(ctx, driver.Params{Props: props, Workers: 1})
	if err != nil {
		return err
	}
	return db.Close()
}

var (
	_ deploy.Provider     = Provider{}
	_ deploy.Checker      = Provider{}
	_ deploy.Renderer     = Provider{}
	_ deploy.LoadMachines = (*deployment)(nil)
)

// Name implements deploy.Provider.
func (Provider) Name() string { return deploy.Terraform }

// dbSpec is how a database runs in Docker on a VM. flags and args may
// use the boot script's $SELF, $SEED, $SEEDS and $NODE_INDEX (see the
// modules' db_args); init runs once in the first VM's container.
type dbSpec struct {
	image, dataDir, flags, args, init string
	port                              int
}

// runsOnVMs reports whether the modules run d.
func runsOnVMs(d deploy.Database) bool {
	return d.Image != nil && d.Unsupported[deploy.Terraform] == ""
}

// database is how db runs on nodes VMs. PostgreSQL and MariaDB trust
// connections: the firewall admits only the loaders and the operator's
// address.
func database(name string, db string, nodes int) (dbSpec, error) {
	d, err := lookup(name, db, nodes)
	if err != nil {
		return dbSpec{}, err
	}
	return specOf(d, nodes), nil
}

// lookup is db's catalogue entry, refused when the modules do not run
// it, or not on nodes machines.
func lookup(name string, db string, nodes int) (deploy.Database, error) {
	d, err := deploy.LookupDatabase(db)
	switch {
	case err != nil || !runsOnVMs(d):
		return deploy.Database{}, fmt.Errorf("terraform: %s: database %q is not supported here yet; supported: %s", name, db, strings.Join(deploy.Names(runsOnVMs), ", "))
	case nodes > 1 && d.Cluster == nil:
		return deploy.Database{}, fmt.Errorf("terraform: %s: nodes: %d: %s runs on one VM here; clusters: %s", name, nodes, db, strings.Join(deploy.Names(deploy.Clustered), ", "))
	}
	return d, nil
}

// seeded is what tells a node of c its seed: an environment variable,
// a flag and its value, or both (none for a database without a
// cluster).
func seeded(c *deploy.Cluster, seed string) (env []deploy.EnvVar, args []string) {
	if c == nil {
		return nil, nil
	}
	if c.SeedEnv != "" {
		env = []deploy.EnvVar{{Name: c.SeedEnv, Value: seed}}
	}
	if c.SeedFlag != "" {
		args = []string{c.SeedFlag, seed}
	}
	return env, args
}

// specOf writes d's catalogue entry in the boot script's terms. Every
// node of a cluster boots at once, told the first VM's address ($SEED),
// its own ($SELF) and every node's ($SEEDS).
func specOf(d deploy.Database, nodes int) dbSpec {
	im, c := d.Image, d.Cluster
	seedEnv, args := seeded(c, "$SEED")
	env := slices.Concat(im.Env, im.OpenEnv, seedEnv)
	base := im.Args
	spec := dbSpec{image: im.Ref(""), dataDir: im.DataDir, port: im.Port}
	if c != nil {
		if c.AdvertiseEnv != "" {
			env = append(env, deploy.EnvVar{Name: c.AdvertiseEnv, Value: "$SELF"})
		}
		if nodes > 1 && c.Args != nil {
			base = c.Args
		}
	}
	args = append(args, base...)
	if c != nil {
		if c.AdvertiseFlag != "" {
			args = append(args, c.AdvertiseFlag+"$SELF")
		}
		if nodes > 1 && c.JoinFlag != "" {
			args = append(args, c.JoinFlag+"$SEEDS")
		}
		if nodes > 1 {
			spec.init = strings.Join(c.Init, " ")
		}
	}
	var flags []string
	for _, v := range append(env, im.VM.Env...) {
		flags = append(flags, "-e "+v.Name+"="+v.Value)
	}
	spec.flags = strings.Join(flags, " ")
	spec.args = deploy.ShellJoin(append(args, im.VM.Args...))
	return spec
}

// tool returns the tofu or terraform program.
func (p Provider) tool() (string, error) {
	if p.Tool != "" {
		return exec.LookPath(p.Tool)
	}
	for _, t := range []string{"tofu", "terraform"} {
		if path, err := exec.LookPath(t); err == nil {
			return path, nil
		}
	}
	return "", errors.New("terraform: neither tofu (https://opentofu.org/docs/intro/install/) nor terraform is installed")
}

// Check implements deploy.Checker: the tool, the options and the cloud
// credentials in the environment.
func (p Provider) Check(req deploy.Request) error {
	if _, err := p.tool(); err != nil {
		return err
	}
	cloud, _, err := Vars(req)
	if err != nil {
		return err
	}
	switch cloud {
	case "gcp":
		if os.Getenv("GOOGLE_APPLICATION_CREDENTIALS") == "" && os.Getenv("GOOGLE_CREDENTIALS") == "" && os.Getenv("CLOUDSDK_CONFIG") == "" {
			if _, err := os.Stat(filepath.Join(os.Getenv("HOME"), ".config/gcloud/application_default_credentials.json")); err != nil {
				return fmt.Errorf("terraform: %s: no GCP credentials: set GOOGLE_APPLICATION_CREDENTIALS or run gcloud auth application-default login", req.Name)
			}
		}
	case "aws":
		if os.Getenv("AWS_ACCESS_KEY_ID") == "" && os.Getenv("AWS_PROFILE") == "" {
			if _, err := os.Stat(filepath.Join(os.Getenv("HOME"), ".aws/credentials")); err != nil {
				return fmt.Errorf("terraform: %s: no AWS credentials: set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY", req.Name)
			}
		}
	}
	return nil
}

// WriteState copies the cloud's module into dir and writes its
// variables to terraform.tfvars.json, readable by its owner only: it
// holds the operator's key and address.
func WriteState(dir, cloud string, vars map[string]any) error {
	sub, err := fs.Sub(modules, "modules/"+cloud)
	if err != nil {
		return fmt.Errorf("terraform: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("terraform: %w", err)
	}
	if err := os.CopyFS(dir, sub); err != nil {
		return fmt.Errorf("terraform: copy the %s module: %w", cloud, err)
	}
	b, err := json.MarshalIndent(vars, "", "  ")
	if err != nil {
		return fmt.Errorf("terraform: %w", err)
	}
	return os.WriteFile(filepath.Join(dir, "terraform.tfvars.json"), b, 0o600)
}

// Render implements deploy.Renderer: the state directory Up would
// apply, and its variables' file.
func (Provider) Render(req deploy.Request, dir string) (string, error) {
	cloud, vars, err := Vars(req)
	if err != nil {
		return "", err
	}
	if err := WriteState(dir, cloud, vars); err != nil {
		return "", err
	}
	return filepath.Join(dir, "terraform.tfvars.json"), nil
}

// Up implements deploy.Provider.
func (p Provider) Up(ctx context.Context, req deploy.Request) (deploy.Deployment, error) {
	tool, err := p.tool()
	if err != nil {
		return nil, err
	}
	cloud, vars, err := Vars(req)
	if err != nil {
		return nil, err
	}
	work := req.WorkDir
	if work == "" {
		work = os.TempDir()
	}
	dir, err := os.MkdirTemp(work, "dbarena-terraform-"+req.Name+"-")
	if err != nil {
		return nil, fmt.Errorf("terraform: %w", err)
	}
	if err := WriteState(dir, cloud, vars); err != nil {
		return nil, err
	}
	if req.Logger != nil {
		req.Logger.Info("terraform state directory: `dbarena deploy down` it if this run cannot", "target", req.Name, "dir", dir)
	}
	d := &deployment{tool: tool, dir: dir, version: req.Version, ssh: p.sshCommand(req, cloud, dir)}
	if _, err := run(ctx, tool, dir, "init", "-input=false", "-no-color"); err != nil {
		return nil, errors.Join(fmt.Errorf("terraform: %s: init: %w", req.Name, err), os.RemoveAll(dir))
	}
	if req.Logger != nil {
		loaders, ok := vars["loader_count"]
		if !ok {
			loaders = 1 // the modules' default
		}
		req.Logger.Info("terraform: creating the VMs (apply takes a few minutes)", "target", req.Name, "cloud", cloud,
			"databases", vars["db_count"], "loaders", loaders)
	}
	if _, err := run(ctx, tool, dir, "apply", "-auto-approve", "-input=false", "-no-color"); err != nil {
		// A failed apply may have created some resources: destroy them.
		return nil, errors.Join(fmt.Errorf("terraform: %s: apply: %w", req.Name, err), d.Down(context.Background()))
	}
	out, err := run(ctx, tool, dir, "output", "-json")
	if err != nil {
		return nil, errors.Join(fmt.Errorf("terraform: %s: output: %w", req.Name, err), d.Down(context.Background()))
	}
	if err := d.read(req, out); err != nil {
		return nil, errors.Join(err, d.Down(context.Background()))
	}
	timeout := p.ReadyTimeout
	if timeout == 0 {
		timeout = deploy.DefaultReadyTimeout
	}
	ready := p.Answers
	if ready == nil {
		ready = answers
	}
	if err := d.wait(ctx, req, timeout, ready); err != nil {
		return nil, errors.Join(err, d.Down(context.Background()))
	}
	return d, nil
}

// sshCommand is the prefix that runs a command on a loader VM, less its
// address. The VMs are new, so their host keys are accepted on first
// use into the state directory's own known_hosts rather than the
// operator's; BatchMode fails rather than prompting mid-experiment.
func (p Provider) sshCommand(req deploy.Request, cloud, dir string) []string {
	prog := p.SSH
	if prog == "" {
		prog = "ssh"
	}
	cmd := []string{prog, "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=accept-new",
		"-o", "UserKnownHostsFile=" + filepath.Join(dir, "known_hosts"), "-o", "ConnectTimeout=10",
		"-o", "ServerAliveInterval=15"}
	if id := req.Options["ssh_identity"]; id != "" {
		cmd = append(cmd, "-i", id)
	}
	user := req.Options["ssh_user"]
	if user == "" {
		// The modules' defaults.
		user = map[string]string{"gcp": "dbarena", "aws": "admin", "docker": "dbarena"}[cloud]
	}
	return append(cmd, "-l", user)
}

// wait returns once every database VM accepts connections on the
// database's port and every loader VM runs a command over ssh: the
// VMs boot, format their disks and pull images after apply returns.
func (d *deployment) wait(ctx context.Context, req deploy.Request, timeout time.Duration, ready func(context.Context, string, map[string]string) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	poll := func(what string, try func(context.Context) error) error {
		var last error
		logged := time.Now()
		for {
			tctx, tcancel := context.WithTimeout(ctx, 20*time.Second)
			last = try(tctx)
			tcancel()
			if last == nil {
				return nil
			}
			if req.Logger != nil && time.Since(logged) >= 30*time.Second {
				// The VMs format disks and pull images: minutes, said.
				req.Logger.Info("terraform: waiting for the VMs to boot", "target", req.Name, "for", what,
					"elapsed", time.Since(start).Round(time.Second), "limit", timeout, "last", last.Error())
				logged = time.Now()
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("terraform: %s: %s did not answer within %s: %w", req.Name, what, timeout, last)
			case <-time.After(2 * time.Second):
			}
		}
	}
	for _, a := range d.dbAddrs {
		err := poll("database "+a, func(ctx context.Context) error {
			c, err := (&net.Dialer{}).DialContext(ctx, "tcp", a)
			if err == nil {
				c.Close()
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	if db, err := deploy.LookupDatabase(req.Database); err == nil && db.Cluster != nil && len(db.Cluster.Init) > 0 {
		// Its port opens before the first VM's boot script has
		// initialised the cluster: wait for the driver to get answers.
		props := maps.Clone(d.props)
		maps.Copy(props, db.DriverProperties)
		err := poll(db.Summary+" through its driver (cluster init)", func(ctx context.Context) error { return ready(ctx, db.Driver, props) })
		if err != nil {
			return err
		}
	}
	for _, cmd := range d.LoaderCommands() {
		err := poll("loader VM "+cmd[len(cmd)-1], func(ctx context.Context) error {
			argv := append(append([]string(nil), cmd...), "true")
			out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
			if err != nil {
				return fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, strings.TrimSpace(string(out)))
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if req.Logger != nil {
		req.Logger.Info("terraform: VMs up", "target", req.Name, "databases", len(d.dbAddrs), "loaders", len(d.loaders))
	}
	return nil
}

// outputs is the module's outputs as `output -json` prints them.
type outputs struct {
	DBExternal struct{ Value []string } `json:"db_external_ips"`
	DBInternal struct{ Value []string } `json:"db_internal_ips"`
	Loaders    struct{ Value []string } `json:"loader_external_ips"`
	Port       struct{ Value int }      `json:"db_port"`
}

func (d *deployment) read(req deploy.Request, out []byte) error {
	var o outputs
	if err := json.Unmarshal(out, &o); err != nil {
		return fmt.Errorf("terraform: %s: output -json: %w", req.Name, err)
	}
	if len(o.DBExternal.Value) == 0 || o.Port.Value == 0 {
		return fmt.Errorf("terraform: %s: the module output no database address", req.Name)
	}
	var addrs []string
	for i, ip := range o.DBExternal.Value {
		addrs = append(addrs, net.JoinHostPort(ip, strconv.Itoa(o.Port.Value)))
		name := req.Name
		if len(o.DBExternal.Value) > 1 {
			name = fmt.Sprintf("%s-%d", req.Name, i+1)
		}
		d.hosts = append(d.hosts, deploy.Host{Name: name, MetricsURL: "http://" + net.JoinHostPort(ip, "9100") + "/metrics"})
	}
	for i, ip := range o.Loaders.Value {
		d.hosts = append(d.hosts, deploy.Host{Name: fmt.Sprintf("%s-loader-%d", req.Name, i+1), MetricsURL: "http://" + net.JoinHostPort(ip, "9100") + "/metrics"})
	}
	d.loaders = o.Loaders.Value
	d.dbAddrs = addrs
	var err error
	if d.props, err = endpoint(req.Database, addrs, true); err != nil {
		return err
	}
	d.loaderProps = d.props
	if len(o.DBInternal.Value) == len(o.DBExternal.Value) {
		var internal []string
		for _, ip := range o.DBInternal.Value {
			internal = append(internal, net.JoinHostPort(ip, strconv.Itoa(o.Port.Value)))
		}
		if d.loaderProps, err = endpoint(req.Database, internal, false); err != nil {
			return err
		}
	}
	return nil
}

// endpoint makes the driver properties of the database's addresses,
// which all listen on the module's port. The operator's connection
// (outside, external addresses) keeps to the addresses given: the
// nodes advertise their internal ones, which only the loaders reach.
func endpoint(name string, addrs []string, outside bool) (map[string]string, error) {
	db, err := deploy.LookupDatabase(name)
	if err != nil {
		return nil, err
	}
	r := db.Reach(addrs, "")
	r.SamePort, r.Private = true, outside && len(addrs) > 1
	props, err := drivers.Address(db.Driver, r)
	if err != nil {
		return nil, fmt.Errorf("terraform: %s: %w", name, err)
	}
	return driver.PropMap(props), nil
}

type deployment struct {
	tool, dir, version string
	// props reach the databases by their external addresses, from the
	// operator's machine; loaderProps by their internal ones, from the
	// loader VMs.
	props, loaderProps map[string]string
	dbAddrs            []string
	hosts              []deploy.Host
	loaders            []string
	ssh                []string
	down               bool
}

// LoaderCommands implements deploy.LoadMachines: ssh to each loader VM.
func (d *deployment) LoaderCommands() [][]string {
	var cmds [][]string
	for _, ip := range d.loaders {
		cmds = append(cmds, append(append([]string(nil), d.ssh...), ip))
	}
	return cmds
}

// LoaderProperties implements deploy.LoadMachines.
func (d *deployment) LoaderProperties() map[string]string { return d.loaderProps }

func (d *deployment) Properties() map[string]string { return d.props }
func (d *deployment) Hosts() []deploy.Host          { return d.hosts }
func (d *deployment) Version() string               { return d.version }
func (d *deployment) Limits() string                { return "" }

// DownTimeout implements deploy.Teardown: a cloud's destroy of VMs,
// disks and networks takes minutes.
func (d *deployment) DownTimeout() time.Duration { return 20 * time.Minute }

// LeftBehind implements deploy.Teardown.
func (d *deployment) LeftBehind() string {
	return fmt.Sprintf("cloud resources that cost money, recorded in %s (destroy them with: dbarena deploy down %s)", d.dir, d.dir)
}

// Down implements deploy.Deployment: destroy, then remove the state
// directory, kept when destroy fails so that it can be retried.
func (d *deployment) Down(ctx context.Context) error {
	if d.down {
		return nil
	}
	d.down = true
	return Destroy(ctx, d.tool, d.dir)
}

// Destroy destroys what a state directory holds and removes it; on
// failure the directory stays, for `dbarena deploy down DIR` to retry.
func Destroy(ctx context.Context, tool, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "terraform.tfvars.json")); err != nil {
		return fmt.Errorf("terraform: %s is not a dbarena terraform state directory: %w", dir, err)
	}
	if _, err := run(ctx, tool, dir, "destroy", "-auto-approve", "-input=false", "-no-color"); err != nil {
		return fmt.Errorf("terraform: destroy %s (the directory is kept; retry with dbarena deploy down %s): %w", dir, dir, err)
	}
	return os.RemoveAll(dir)
}

// Program returns the tofu or terraform program the provider runs.
func (p Provider) Program() (string, error) { return p.tool() }

var _ deploy.Destroyer = Provider{}

// Destroy implements deploy.Destroyer: tofu (or terraform) destroy in
// dir, then dir removed.
func (p Provider) Destroy(ctx context.Context, dir, tool string) error {
	if tool != "" {
		p.Tool = tool
	}
	prog, err := p.tool()
	if err != nil {
		return err
	}
	return Destroy(ctx, prog, dir)
}

// run runs the tool in dir. Cancelled (Ctrl-C), the tool is
// interrupted, not killed: an apply killed outright may have made a
// resource it never wrote into the state, which no destroy would find;
// interrupted, it stops starting more and records what it made.
// Past interruptGrace it is killed.
func run(ctx context.Context, tool, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, tool, args...)
	cmd.Dir = dir
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = interruptGrace
	return deploy.Run(cmd)
}

// interruptGrace is how long an interrupted tool may take to record
// what it made and exit.
const interruptGrace = 2 * time.Minute
