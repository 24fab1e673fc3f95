// Package local is the deployment provider for the user's own machine: it
// starts real database servers as child processes on free ports of the
// loopback interface, with data in a directory of the work root
// (ROOT/local/PID-NAME-RANDOM, see internal/workdir) that teardown
// removes, optionally capped in CPUs and memory through cgroups (see
// internal/cgroup), so that a vertical-scaling study runs on one machine.
// Each server runs in a cgroup of its own where the machine allows (root,
// or a delegated cgroup v2), with limits or without, so that its disk
// figures come from the block layer.
//
// The servers die with dbarena even when it is killed outright (the
// parent-death signal). What a killed dbarena cannot remove, its data
// directory, the next deployment removes: Up first cleans the root of
// every directory whose owner process is gone, killing any server of
// theirs that survived, and never touches a live run's.
//
// Supported: PostgreSQL, Redis, MariaDB/MySQL, Apache Cassandra (one node,
// or N nodes on 127.0.1.x; jars from Maven Central, cached), DynamoDB
// Local (Maven Central, cached) and ScyllaDB when a scylla binary is
// installed. Anything missing is named in the error with how to install
// it.
package local

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/internal/cgroup"
	"github.com/dbarena/dbarena/internal/proctree"
	"github.com/dbarena/dbarena/internal/workdir"
)

// Provider deploys databases as local processes.
type Provider struct {
	// ReadyTimeout bounds the wait for a server to answer.
	ReadyTimeout time.Duration

	// cgroups is shared by every deployment of the provider, so that
	// CPU-pinned targets get different cores.
	cgroupsOnce sync.Once
	cgroups     *cgroup.Host
	cgroupsErr  error
}

// limitsHost returns the provider's cgroup host, made on first use.
func (p *Provider) limitsHost() (*cgroup.Host, error) {
	p.cgroupsOnce.Do(func() { p.cgroups, p.cgroupsErr = cgroup.NewHost() })
	return p.cgroups, p.cgroupsErr
}

var (
	_ deploy.Provider = (*Provider)(nil)
	_ deploy.Pauser   = (*deployment)(nil)
)

// New returns the local provider with default settings.
func New() *Provider { return &Provider{ReadyTimeout: deploy.DefaultReadyTimeout} }

// Name implements deploy.Provider.
func (p *Provider) Name() string { return deploy.Local }

// launcher starts one database's servers and says what they need
// installed: everything the local provider knows of a database beside
// the catalogue.
type launcher struct {
	// start starts the servers into d and waits until they answer.
	start func(ctx context.Context, d *deployment) error
	// needs are the programs it runs from PATH, with how to install
	// each.
	needs []requirement
	// download is the Maven download it runs ("" none), fetched once
	// into the cache.
	download, version string
	// find finds what it runs where it looks beyond PATH (nil: nothing).
	find func() error
}

// requirement is a program a database needs, with how to install it.
type requirement struct{ program, install string }

// jre is the JVM the Maven downloads run on.
func jre() requirement { return requirement{"java", "apt-get install openjdk-17-jre-headless"} }

// path finds the program, or says how to install it.
func (r requirement) path() (string, error) { return need(r.program, r.install) }

// launchers is the table of launchers, by the name the catalogue's
// entries give (deploy.Database.Local).
func launchers() map[string]launcher {
	return map[string]launcher{
		"postgres": {start: launchPostgres, find: func() error {
			_, err := pgBin() // looks in /usr/lib/postgresql as well as PATH
			return err
		}},
		"redis":     {start: launchRedis, needs: []requirement{{"redis-server", "apt-get install redis-server"}}},
		"mariadb":   {start: launchMariaDB, needs: []requirement{{"mariadb-install-db", "apt-get install mariadb-server"}}},
		"cassandra": {start: launchCassandra, needs: []requirement{jre()}, download: "cassandra", version: CassandraVersion},
		"scylladb": {start: launchScylla, needs: []requirement{{"scylla",
			"install ScyllaDB (https://docs.scylladb.com/stable/getting-started/install-scylla/), or compare with cassandra locally: it speaks the same CQL"}}},
		"dynamodb": {start: launchDynamoDB, needs: []requirement{jre()}, download: "dynamodb-local", version: DynamoDBLocalVersion},
	}
}

// starts reports whether this provider starts d.
func starts(d deploy.Database) bool {
	_, ok := launchers()[d.Local]
	return ok && d.Unsupported[deploy.Local] == ""
}

// Databases returns the databases the local provider can start.
func Databases() []string { return deploy.Names(starts) }

// launcherOf returns the launcher of req's database, or why there is
// none.
func launcherOf(req deploy.Request) (deploy.Database, launcher, error) {
	d, err := deploy.LookupDatabase(req.Database)
	if err != nil || !starts(d) {
		return d, launcher{}, fmt.Errorf("local: %s cannot be started on this machine by dbarena (local databases: %s); run it yourself and use provider \"existing\" with its address",
			req.Database, strings.Join(Databases(), ", "))
	}
	return d, launchers()[d.Local], nil
}

// checkNodes refuses a cluster of a database that runs as one node.
func checkNodes(d deploy.Database, nodes int) error {
	if nodes > 1 && d.Cluster == nil {
		clusters := deploy.Names(func(d deploy.Database) bool { return starts(d) && d.Cluster != nil })
		return fmt.Errorf("nodes=%d, but only %s run as local clusters", nodes, strings.Join(clusters, " and "))
	}
	return nil
}

// Up implements deploy.Provider.
func (p *Provider) Up(ctx context.Context, req deploy.Request) (deploy.Deployment, error) {
	db, launch, err := launcherOf(req)
	if err != nil {
		return nil, err
	}
	if req.Nodes <= 0 {
		req.Nodes = 1
	}
	if err := checkNodes(db, req.Nodes); err != nil {
		return nil, fmt.Errorf("local: %s: %w", req.Name, err)
	}
	if req.Logger == nil {
		req.Logger = slog.New(slog.DiscardHandler)
	}
	root := req.WorkDir
	if root == "" {
		root = workdir.Default()
	}
	cleanDead(root, req.Logger)
	wd, err := workdir.Claim(root, workdir.Local, req.Name, req.Keep)
	if err != nil {
		return nil, fmt.Errorf("local: %s: data directory: %w", req.Name, err)
	}
	// Servers that drop root (postgres) must reach their directory.
	if err := os.Chmod(wd.Path, 0o755); err != nil {
		return nil, errors.Join(fmt.Errorf("local: %s: %w", req.Name, err), wd.Remove())
	}
	d := &deployment{req: req, dir: wd.Path, wd: wd, props: map[string]string{}, taken: map[int]bool{}, provider: p,
		readyTimeout: p.ReadyTimeout, log: req.Logger.With("target", req.Name)}
	if err := launch.start(ctx, d); err != nil {
		downErr := d.Down(context.Background())
		return nil, errors.Join(fmt.Errorf("local: %s: %w", req.Name, err), downErr)
	}
	return d, nil
}

// cleanDead removes what dead runs left under root, and logs it. A failure
// is logged, not returned: it must not stop this run.
func cleanDead(root string, log *slog.Logger) {
	entries, err := workdir.Clean(root, workdir.CleanOptions{})
	for _, e := range entries {
		for _, s := range e.Killed {
			log.Warn("killed a server a dead run left running", "server", s.Name, "process", s.Process.String(), "dir", e.Path)
		}
		if e.Removed {
			log.Info("removed what a dead run left", "dir", e.Path, "bytes", e.Bytes, "owner", e.Owner.Process.String())
		}
	}
	if err != nil {
		log.Warn("could not clean the work directory of dead runs", "root", root, "err", err)
	}
}

// deployment is what Up started.
type deployment struct {
	req          deploy.Request
	dir          string
	wd           *workdir.Dir
	props        map[string]string
	hosts        []deploy.Host
	procs        []*node
	version      string
	limits       string
	taken        map[int]bool
	readyTimeout time.Duration
	log          *slog.Logger
	provider     *Provider

	downOnce sync.Once
	downErr  error
	// paused says Pause stopped the servers (guarded by pauseMu).
	pauseMu sync.Mutex
	paused  bool
}

// reachAt sets the driver properties of the servers at addrs (host:port
// each, all on one port) as the driver makes them for every provider,
// with the catalogue's login.
func (d *deployment) reachAt(addrs ...string) error {
	db, err := deploy.LookupDatabase(d.req.Database)
	if err != nil {
		return err
	}
	r := db.Reach(addrs, "")
	r.SamePort = true
	props, err := drivers.Address(db.Driver, r)
	if err != nil {
		return fmt.Errorf("local: %s: %w", d.req.Name, err)
	}
	for k, v := range driver.PropMap(props) {
		d.props[k] = v
	}
	return nil
}

// serveOne starts a single-node database's process, waits until it
// accepts connections on port (and, with a marker, has logged it:
// some servers listen before they serve), then gives the database that
// address and records its version.
func (d *deployment) serveOne(ctx context.Context, spec *cmdSpec, port int, marker string, version func() string) error {
	n, err := d.start(d.hostName(0), spec)
	if err != nil {
		return err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	ready := dialReady(addr)
	if marker != "" {
		ready = all(logReady(n.proc, marker), ready)
	}
	if err := n.waitReady(ctx, d.readyTimeout, ready); err != nil {
		return err
	}
	if err := d.reachAt(addr); err != nil {
		return err
	}
	d.version = version()
	return nil
}

// node is one server process with how it stops.
type node struct {
	*proc
	group *cgroup.Group
	sig   syscall.Signal
	grace time.Duration
}

func (d *deployment) Properties() map[string]string { return d.props }
func (d *deployment) Hosts() []deploy.Host          { return d.hosts }
func (d *deployment) Version() string               { return d.version }
func (d *deployment) Limits() string                { return d.limits }

// Down stops every node, newest first, then removes the data directory
// unless Keep was asked for.
func (d *deployment) Down(ctx context.Context) error {
	d.downOnce.Do(func() {
		// A paused server cannot stop cleanly: it would not see the
		// signal until continued.
		var errs []error
		if err := d.Resume(); err != nil {
			errs = append(errs, err)
		}
		for i := len(d.procs) - 1; i >= 0; i-- {
			n := d.procs[i]
			errs = append(errs, n.stop(ctx, n.sig, n.grace))
			if n.group != nil {
				errs = append(errs, n.group.Close())
			}
		}
		if d.req.Keep {
			d.log.Info("kept data and logs", "dir", d.dir)
		} else {
			errs = append(errs, d.wd.Remove())
		}
		d.downErr = errors.Join(errs...)
	})
	return d.downErr
}

// Pause implements deploy.Pauser: every node's process tree is stopped
// (SIGSTOP), the server first so that it forks nothing meanwhile.
func (d *deployment) Pause() error {
	d.pauseMu.Lock()
	defer d.pauseMu.Unlock()
	var errs []error
	for _, n := range d.procs {
		if !n.exited() {
			errs = append(errs, proctree.Stop(n.pid()))
		}
	}
	d.paused = true
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("local: pause %s: %w", d.req.Name, err)
	}
	return nil
}

// Resume implements deploy.Pauser: every node's process tree goes on.
func (d *deployment) Resume() error {
	d.pauseMu.Lock()
	defer d.pauseMu.Unlock()
	if !d.paused {
		return nil
	}
	var errs []error
	for _, n := range d.procs {
		if !n.exited() {
			errs = append(errs, proctree.Continue(n.pid()))
		}
	}
	d.paused = false
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("local: resume %s: %w", d.req.Name, err)
	}
	return nil
}

// DownTimeout implements deploy.Teardown: every node's clean-stop grace
// (a minute for Cassandra and PostgreSQL) plus time to kill and remove.
func (d *deployment) DownTimeout() time.Duration {
	var t time.Duration
	for _, n := range d.procs {
		t += n.grace
	}
	return t + 30*time.Second
}

// LeftBehind implements deploy.Teardown.
func (d *deployment) LeftBehind() string {
	var pids []string
	for _, n := range d.procs {
		if !n.exited() {
			pids = append(pids, fmt.Sprintf("%s (pid %d)", n.name, n.pid()))
		}
	}
	out := "the data directory " + d.dir
	if len(pids) > 0 {
		out = "the server processes " + strings.Join(pids, ", ") + " (they die with dbarena) and " + out
	}
	return out
}

// nodeDir makes a directory for one node inside the deployment's.
func (d *deployment) nodeDir(name string) (string, error) {
	p := filepath.Join(d.dir, name)
	if err := os.MkdirAll(p, 0o755); err != nil {
		return "", err
	}
	return p, nil
}

// ioGroup puts a server without limits in a cgroup of its own all the
// same, one that limits nothing and counts its block I/O, so that its
// disk figures are what reached the disks (see sysmetrics.NewProcessTree)
// and not its pages dirtied in the page cache, which read 15-30 times
// what vda wrote under PostgreSQL. Where no cgroup can count (not root,
// no blkio or io controller), the server runs as it would have and its
// disk writes go unmeasured: nil.
func (d *deployment) ioGroup(hostName string, c *cmdSpec) *cgroup.Group {
	lh, err := d.provider.limitsHost()
	var g *cgroup.Group
	if err == nil {
		g, err = lh.New(hostName, cgroup.Limits{CountIO: true})
	}
	if err == nil && !g.CountsIO() {
		err = errors.New(g.NoIOReason())
	}
	if err == nil {
		err = g.Command(c.cmd)
	}
	if err != nil {
		if g != nil {
			_ = g.Close() // nothing joined it
		}
		d.log.Info("the server's disk writes will not be measured: no cgroup counts its I/O", "host", hostName, "reason", err)
		return nil
	}
	return g
}

// port picks a free port on the given addresses.
func (d *deployment) port(addrs ...string) (int, error) { return freePort(d.taken, addrs...) }

// start launches one node under the deployment's resource limits and
// records it for teardown and for watching.
func (d *deployment) start(hostName string, c *cmdSpec) (*node, error) {
	n := &node{sig: c.stopSignal, grace: c.grace}
	if n.sig == 0 {
		n.sig = syscall.SIGTERM
	}
	if n.grace == 0 {
		n.grace = 30 * time.Second
	}
	if d.req.CPUs > 0 || d.req.MemoryBytes > 0 {
		lh, err := d.provider.limitsHost()
		if err != nil {
			return nil, fmt.Errorf("resource limits for %s: %w", hostName, err)
		}
		g, err := lh.New(hostName, cgroup.Limits{CPUs: d.req.CPUs, MemoryBytes: d.req.MemoryBytes, CountIO: true, Pin: d.req.Pin,
			Cores: deploy.NodeCores(d.req.Cores, d.req.CPUs, d.req.Nodes, len(d.procs))})
		if err != nil {
			return nil, fmt.Errorf("resource limits for %s: %w", hostName, err)
		}
		n.group = g
		d.limits = g.Describe()
		if err := g.Command(c.cmd); err != nil {
			g.Close()
			return nil, fmt.Errorf("resource limits for %s: %w", hostName, err)
		}
	} else {
		n.group = d.ioGroup(hostName, c)
	}
	p, err := startProc(hostName, c.cmd, c.logPath)
	if err != nil {
		if n.group != nil {
			n.group.Close()
		}
		return nil, err
	}
	n.proc = p
	d.procs = append(d.procs, n)
	// Should it outlive a killed dbarena, the next run's cleaning finds it.
	if err := d.wd.AddServer(hostName, p.pid()); err != nil {
		d.log.Warn("server not recorded in the owner file", "host", hostName, "err", err)
	}
	h := deploy.Host{Name: hostName, PID: p.pid(), DataDir: c.dataDir}
	if n.group != nil && d.req.Pin {
		h.Cores = n.group.Cores()
	}
	d.hosts = append(d.hosts, h)
	d.log.Info("started", "host", hostName, "pid", p.pid(), "log", c.logPath)
	return n, nil
}
