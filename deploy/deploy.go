// Package deploy is the contract between an experiment and the places its
// databases run: a Provider brings a target up (and waits until it
// answers), says how a driver reaches it and which hosts to watch, and
// tears it down. Providers live in subpackages (deploy/compose,
// deploy/kubernetes, deploy/terraform, deploy/local, deploy/existing),
// none importing another; the one table of them is deploy/providers.
//
// The catalogue (Databases, in catalog.go) is the one list of databases
// an experiment may name, with every fact a provider needs to run one:
// its driver, container image and tag, port, health check, data
// directory, environment, password handling, how its nodes form a
// cluster, the local launcher that starts it, and, for each provider
// that cannot run it, why (Unsupported). Providers keep only the code of
// their own format.
//
// Adding a database means:
//   - a driver: a package driver/NAME, with docs/drivers/NAME.md and an
//     Address that makes its properties of where servers are
//     (driver.Reach: addresses, login, nodes), or a dialect of an
//     existing driver that the entry's DriverProperties select;
//   - for a new driver, its line in driver/drivers/drivers.go (with
//     Reference and Endpoint when the database ships a load tool, and
//     that tool in reference/TOOL.go, listed in For in
//     reference/reference.go) and its entry in the conformance table
//     (driver/drivertest/conformance_test.go);
//   - one catalogue entry in deploy/catalog.go, with its Login;
//   - one local launcher, deploy/local/NAME.go, named in launchers() in
//     deploy/local/local.go with the programs it needs, or the reason it
//     has none in the entry's Unsupported;
//   - its row and section in docs/guide/choosing-databases.md.
//
// Providers name no driver and no driver property: they give the
// driver table (drivers.Address) a Reach (Database.Reach) and take the
// properties it makes.
//
// The test in deploy/providers fails while a provider cannot run a
// database the catalogue does not excuse, or its driver is not
// registered.
package deploy

import (
	"context"
	"log/slog"
	"math"
	"time"
)

// Request is what to deploy for one target of an experiment.
type Request struct {
	// Name is the target's name, unique within the experiment; it names
	// hosts, directories and cgroups.
	Name string
	// Database is a product name from the catalogue (Databases).
	Database string
	Nodes    int
	// CPUs and MemoryBytes cap the deployment (0: no limit). Pin gives
	// each local node ceil(CPUs) whole cores of its own (Host.Cores).
	CPUs        float64
	MemoryBytes int64
	Pin         bool
	// Cores, with Pin, are the cores the deployment's local nodes are
	// pinned to: ceil(CPUs) per node in turn when there are that many
	// for each node, else all of them shared (nil: the provider
	// chooses). An experiment that deploys its targets side by side
	// gives them the same cores, so that the load generator keeps the
	// others whichever target it measures.
	Cores   []int
	Version string
	// Options are provider-specific settings.
	Options map[string]string
	// Properties are the user's driver properties.
	Properties map[string]string
	// Endpoints are the host:port the target's driver reaches, read
	// from Properties through the driver (nil when the driver cannot
	// say): the existing provider samples a server on this machine
	// among them as the database, not as other processes.
	Endpoints []string
	// WorkDir is where a provider may put data and logs.
	WorkDir string
	// Keep leaves data and logs in place at teardown.
	Keep   bool
	Logger *slog.Logger
}

// Host is one machine or process tree to watch during the run.
type Host struct {
	// Name is unique within the experiment ("postgres", "cassandra-2").
	Name string
	// PID is the root of a local process tree (0 for remote hosts).
	PID int
	// MetricsURL is a node_exporter endpoint for remote hosts.
	MetricsURL string
	// DataDir is the data directory, for its size on disk ("" unknown).
	DataDir string
	// Pod is a Kubernetes pod ("namespace/name") whose CPU and memory
	// its node's kubelet serves at PodMetricsURL (resource metrics).
	Pod, PodMetricsURL string
	// Cores are the cores of this machine a local process tree is
	// confined to (a cpuset; nil: any core it inherited), so that the
	// load generator can be kept off them.
	Cores []int
}

// Deployment is a target that is up and answering.
type Deployment interface {
	// Properties are the driver properties that reach the deployment;
	// the experiment lays the user's own properties over them.
	Properties() map[string]string
	// Hosts are the processes or machines to watch.
	Hosts() []Host
	// Version is the server's version as the provider knows it ("" when
	// unknown).
	Version() string
	// Limits describes the resource limits applied ("" when none).
	Limits() string
	// Down stops what Up started and removes its data unless asked to
	// keep it. It is safe to call twice.
	Down(ctx context.Context) error
}

// Teardown is implemented by deployments that say how long their Down may
// take and what stays behind when it is cut short: the experiment gives
// Down that long (a second Ctrl-C cuts it at once) and then tells the user
// what to remove by hand.
type Teardown interface {
	// DownTimeout bounds Down: seconds for local processes, minutes for
	// a cloud's destroy.
	DownTimeout() time.Duration
	// LeftBehind says what a Down that did not finish may have left
	// (processes, directories, a Compose project, cloud resources) and
	// how to remove it.
	LeftBehind() string
}

// Kept is implemented by deployments of databases that dbarena did not
// start and leaves running (provider existing): their Down does nothing,
// and the experiment says the database was left running rather than
// claim it tore it down.
type Kept interface {
	// KeptBy names why the database stays up: the provider ("existing").
	KeptBy() string
}

// Pauser is a deployment whose servers can be stopped in place and
// resumed. An experiment that runs targets side by side on shared cores
// pauses the ones it is not measuring, so that their background work (a
// JVM's collector, compaction, a checkpoint) lands on their own trials
// rather than their neighbour's: PostgreSQL's warm-up read 1,362 ops/s
// where it read 15,000 while an idle Cassandra beside it compacted.
type Pauser interface {
	Pause() error
	Resume() error
}

// DefaultDownTimeout bounds the Down of a deployment that does not
// implement Teardown.
const DefaultDownTimeout = 2 * time.Minute

// DownTimeout is how long d's Down may take.
func DownTimeout(d Deployment) time.Duration {
	if t, ok := d.(Teardown); ok {
		return t.DownTimeout()
	}
	return DefaultDownTimeout
}

// LeftBehind says what d may have left when its Down did not finish.
func LeftBehind(d Deployment) string {
	if t, ok := d.(Teardown); ok {
		return t.LeftBehind()
	}
	return "whatever the provider had started"
}

// LoadMachines is implemented by deployments that bring load machines
// of their own, such as Terraform's loader VMs beside the databases: the
// experiment runs its loaders there rather than on the operator's
// machine, which may be a continent away.
type LoadMachines interface {
	// LoaderCommands are one command prefix per load machine that runs
	// a program there ("ssh -o BatchMode=yes dbarena@34.1.2.3").
	LoaderCommands() [][]string
	// LoaderProperties are the driver properties as the load machines
	// reach the database: by its addresses inside the deployment's
	// network, which its firewall admits.
	LoaderProperties() map[string]string
}

// Provider brings targets up.
type Provider interface {
	// Name is the provider's name in experiment files.
	Name() string
	// Up deploys req and returns once the database answers. On error,
	// whatever was started is already torn down.
	Up(ctx context.Context, req Request) (Deployment, error)
}

// DefaultReadyTimeout bounds how long a provider waits for a database to
// answer. Four Cassandra JVMs booting at once on two cores took 120 s at
// load average 8.
const DefaultReadyTimeout = 5 * time.Minute

// Renderer is implemented by providers that can write what they would
// run for a target without running anything (dbarena deploy render), to
// be checked or run where their program is.
type Renderer interface {
	// Render writes req's files into dir and returns the file to check
	// them by.
	Render(req Request, dir string) (file string, err error)
}

// Destroyer is implemented by providers whose deployments can outlive a
// killed run, such as cloud VMs that go on billing: Destroy removes what
// a deployment left, from the state directory it logged when it
// deployed (dbarena deploy down).
type Destroyer interface {
	// Destroy destroys the deployment of dir with tool, the program that
	// manages it ("" = the provider's default), and removes dir.
	Destroy(ctx context.Context, dir, tool string) error
}

// Checker is implemented by providers that can tell before anything
// starts whether a request can be deployed: a missing program or an
// impossible limit then fails the experiment at once, not after an hour
// of measuring the targets before it.
type Checker interface {
	Check(req Request) error
}

// NodeCores is the cores node i (from 0) of a deployment is pinned to:
// its own ceil(cpus) of cores when they hold that many for every one of
// nodes, else all of them (nil when cores is).
func NodeCores(cores []int, cpus float64, nodes, i int) []int {
	per := int(math.Ceil(cpus))
	if per > 0 && len(cores) >= per*max(nodes, 1) {
		return cores[i*per : (i+1)*per]
	}
	return cores
}
