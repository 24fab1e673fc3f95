package deploy

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Database is one product users compare: how dbarena talks to it, and
// everything a provider needs to run it. Providers read these facts
// here and keep only the code of their own format (a Compose service, a
// StatefulSet, a VM's boot flags); a fact stated in a provider would
// drift from the others.
type Database struct {
	Name string
	// Driver is the driver that speaks its protocol.
	Driver string
	// DriverProperties select the product's dialect in that driver.
	DriverProperties map[string]string
	Summary          string
	// Image is how it runs in a container (the compose, kubernetes and
	// terraform providers); nil: no container image.
	Image *Image
	// Cluster says how several nodes form one cluster; nil: it runs as
	// one node only.
	Cluster *Cluster
	// Login is the account and database its clients use (Endpoint).
	Login Login
	// Local names the deploy/local launcher that starts it on this
	// machine ("": none).
	Local string
	// Unsupported says, for each provider that cannot run it, why.
	Unsupported map[string]string
	// OneCore says it serves requests on one thread (Redis' main
	// thread): one busy core is its limit, whatever the host's cores.
	OneCore bool
}

// Image is a database's container image and how it is run.
type Image struct {
	Name, Tag string
	// Port is the client port.
	Port int
	// Health is the command that says "ready for queries", in Compose's
	// form: "CMD" or "CMD-SHELL" first, $$ for a literal $.
	Health []string
	// StartPeriod is how long it may boot before failed checks count.
	StartPeriod string
	// DataDir is where the image keeps its data, where providers mount
	// a volume ("": it keeps none worth one).
	DataDir string
	// Subdir moves the data into a subdirectory of DataDir, for a
	// volume whose root is not empty (a Kubernetes claim's lost+found,
	// which initdb refuses); empty when the image needs none.
	Subdir EnvVar
	// Env is the container's environment, in order.
	Env []EnvVar
	// OpenEnv admits clients without a password; a provider that sets
	// a password leaves it out.
	OpenEnv []EnvVar
	// SharedEnv caps it for a machine it shares with others (a laptop,
	// a Kubernetes node); on a VM of its own it sizes itself.
	SharedEnv []EnvVar
	// PasswordEnv is the variable the password reaches the container
	// in; PasswordFlag, when set, is the server's flag that takes it
	// (the image reads no variable), and PasswordHealth the health
	// check that then logs in.
	PasswordEnv, PasswordFlag string
	PasswordHealth            []string
	// Args are the container's arguments (nil: the image's command).
	Args []string
	// Sized returns arguments that size the server to its container's
	// limits (0: none), placed before Args; nil when it sizes itself.
	Sized func(cpus float64, memory int64) []string
	// NoFile is the open-files limit it needs (0: the default).
	NoFile int
	// VM is what it needs on a VM of its own (terraform).
	VM VM
	// Built is the image scripts/images/build makes in its place from
	// Debian's packages, for machines that reach no image registry ("":
	// none); the option image: local picks it.
	Built string
}

// Ref is the image reference, at version when given.
func (im *Image) Ref(version string) string {
	if version != "" {
		return im.Name + ":" + version
	}
	return im.Name + ":" + im.Tag
}

// builtMariaDB serves MariaDB and MySQL alike, as Debian's MySQL is
// MariaDB.
const builtMariaDB = "dbarena.local/mariadb:10.11"

// LocalImage is the value of the providers' option image that picks the
// image built locally (Image.Built).
const LocalImage = "local"

// Choose is the image a container runs: option (the providers' option
// image) when given, Built for "local", else Ref(version).
func (im *Image) Choose(option, version string) (string, error) {
	switch option {
	case "":
		return im.Ref(version), nil
	case LocalImage:
		if im.Built == "" {
			return "", fmt.Errorf("option image: local: no local image of %s; scripts/images/build makes %s", im.Name, strings.Join(builtImages(), ", "))
		}
		if version != "" {
			// The results would name a version that did not run.
			return "", fmt.Errorf("option image: local runs %s, whatever deploy.version says: leave version %q out, or name an image of that version", im.Built, version)
		}
		return im.Built, nil
	}
	return option, nil
}

// builtImages are the images scripts/images/build makes, by catalogue
// image name.
func builtImages() []string {
	seen := map[string]bool{}
	var out []string
	for _, db := range Databases() {
		if db.Image != nil && db.Image.Built != "" && !seen[db.Image.Built] {
			seen[db.Image.Built] = true
			out = append(out, db.Image.Built+" (for "+db.Name+")")
		}
	}
	return out
}

// VM is what a database's container needs on a VM of its own, sharing
// the host's network and booting with its cluster's other nodes at once.
type VM struct {
	Env  []EnvVar
	Args []string
}

// EnvVar is one environment variable.
type EnvVar struct{ Name, Value string }

// Cluster says how nodes of a database find each other. Providers name
// the nodes; these say what each node is told.
type Cluster struct {
	// SeedEnv and SeedFlag give every node the first node's address:
	// in an environment variable, or after a flag.
	SeedEnv, SeedFlag string
	// JoinFlag prefixes the comma-separated addresses of every node.
	JoinFlag string
	// AdvertiseEnv and AdvertiseFlag (a prefix) tell a node the address
	// the others reach it by, where its own guess would be wrong.
	AdvertiseEnv, AdvertiseFlag string
	// Args replace Image.Args on more than one node.
	Args []string
	// Init initialises a new cluster, once, run in the first node's
	// container without a shell; InitCheck is a health check (Compose's
	// form) that does the same and then says whether the node is ready.
	Init      []string
	InitCheck string
	// Serial makes each node wait until the one before is healthy:
	// they must join one at a time.
	Serial bool
}

// The providers the catalogue speaks of in Unsupported.
const (
	Compose    = "compose"
	Kubernetes = "kubernetes"
	Terraform  = "terraform"
	Local      = "local"
)

// Why a provider runs no such database: the reasons repeat.
const (
	noLocalLauncher = "no launcher starts it from a local install yet: run it yourself and use provider existing"
	notOnVMs        = "the VM modules have not been tried with it yet"
)

// scylla is ScyllaDB's image serving on port, healthy by health.
func scylla(port int, health, args []string, vm VM) *Image {
	return &Image{Name: "scylladb/scylla", Tag: "6.2", Port: port, Health: health, StartPeriod: "60s",
		DataDir: "/var/lib/scylla", Sized: ScyllaArgs, Args: args, VM: vm}
}

// yugabyte is YugabyteDB's image serving on port, healthy by health.
func yugabyte(port int, health string) *Image {
	return &Image{Name: "yugabytedb/yugabyte", Tag: "2024.2.2.1-b6", Port: port, Health: []string{"CMD-SHELL", health},
		StartPeriod: "60s", DataDir: "/home/yugabyte/yb_data", Args: []string{"bin/yugabyted", "start", "--background=false"}}
}

// catalogue lists every database an experiment may name. Adding a
// database is one entry here; see the package documentation for the
// rest.
func catalogue() []Database {
	// A CQL node answers its version once it serves clients.
	cqlHealth := []string{"CMD-SHELL", "cqlsh -e 'SELECT release_version FROM system.local' || exit 1"}
	return []Database{
		{Name: "aerospike", Driver: "aerospike", Login: Login{Database: "ycsb"}, Summary: "Aerospike",
			Image: &Image{Name: "aerospike/aerospike-server", Tag: "7.2.0.6", Port: 3000, Health: []string{"CMD", "asinfo", "-v", "status"},
				StartPeriod: "20s", Env: []EnvVar{{"NAMESPACE", "ycsb"}}},
			Unsupported: map[string]string{Terraform: notOnVMs, Local: noLocalLauncher}},
		{Name: "alternator", Driver: "dynamodb", Summary: "ScyllaDB Alternator (DynamoDB API)",
			Image: scylla(8000, []string{"CMD-SHELL", "curl -s http://localhost:8000/ >/dev/null"},
				[]string{"--alternator-port", "8000", "--alternator-write-isolation", "only_rmw_uses_lwt"}, VM{}),
			Unsupported: map[string]string{Terraform: notOnVMs, Local: "the scylladb launcher does not open the DynamoDB API yet"}},
		{Name: "cassandra", Driver: "cql", Summary: "Apache Cassandra",
			Image: &Image{Name: "cassandra", Tag: "5.0", Port: 9042, Health: cqlHealth, StartPeriod: "90s", DataDir: "/var/lib/cassandra",
				Env:       []EnvVar{{"CASSANDRA_CLUSTER_NAME", "dbarena"}},
				SharedEnv: []EnvVar{{"MAX_HEAP_SIZE", "1G"}, {"HEAP_NEWSIZE", "200M"}},
				NoFile:    100000,
				// The nodes of a new cluster on VMs bootstrap together.
				VM: VM{Env: []EnvVar{{"JVM_EXTRA_OPTS", "-Dcassandra.consistent.rangemovement=false"}}}},
			Cluster: &Cluster{SeedEnv: "CASSANDRA_SEEDS", AdvertiseEnv: "CASSANDRA_BROADCAST_ADDRESS", Serial: true},
			Local:   "cassandra"},
		{Name: "cockroachdb", Driver: "postgres", Login: Login{User: "root", Database: "defaultdb"}, DriverProperties: map[string]string{"postgres.dialect": "cockroachdb"}, Summary: "CockroachDB",
			Image: &Image{Name: "cockroachdb/cockroach", Tag: "v24.3.5", Port: 26257, Health: []string{"CMD", "curl", "-sf", "http://localhost:8080/health?ready=1"},
				StartPeriod: "30s", DataDir: "/cockroach/cockroach-data", Args: []string{"start-single-node", "--insecure"}},
			// A multi-node cluster answers only once initialised.
			Cluster: &Cluster{Args: []string{"start", "--insecure"}, JoinFlag: "--join=", AdvertiseFlag: "--advertise-addr=",
				Init:      []string{"/cockroach/cockroach", "init", "--insecure", "--host=localhost:26257"},
				InitCheck: "cockroach init --insecure --host=localhost:26257 2>/dev/null; curl -sf 'http://localhost:8080/health?ready=1'"},
			Unsupported: map[string]string{Local: noLocalLauncher}},
		{Name: "dynamodb", Driver: "dynamodb", Summary: "Amazon DynamoDB or DynamoDB Local",
			Image: &Image{Name: "amazon/dynamodb-local", Tag: "2.5.4", Port: 8000, Health: []string{"CMD-SHELL", "curl -s http://localhost:8000 >/dev/null || exit 1"},
				StartPeriod: "10s", Args: []string{"-jar", "DynamoDBLocal.jar", "-sharedDb", "-inMemory"}},
			Local:       "dynamodb",
			Unsupported: map[string]string{Terraform: "DynamoDB Local is a development stand-in: on a cloud, measure Amazon DynamoDB with provider existing"}},
		{Name: "mariadb", Driver: "mysql", Login: Login{User: "root", Database: "ycsb"}, Summary: "MariaDB",
			Image: &Image{Name: "mariadb", Tag: "11.4", Port: 3306, Health: []string{"CMD", "healthcheck.sh", "--connect", "--innodb_initialized"},
				StartPeriod: "20s", DataDir: "/var/lib/mysql", Env: []EnvVar{{"MARIADB_DATABASE", "ycsb"}},
				OpenEnv: []EnvVar{{"MARIADB_ALLOW_EMPTY_ROOT_PASSWORD", "1"}}, PasswordEnv: "MARIADB_ROOT_PASSWORD", Built: builtMariaDB},
			Local: "mariadb"},
		{Name: "mongodb", Driver: "mongodb", Login: Login{Database: "ycsb"}, Summary: "MongoDB (or FerretDB)",
			Image: &Image{Name: "mongo", Tag: "7.0", Port: 27017, Health: []string{"CMD", "mongosh", "--quiet", "--eval", "db.adminCommand('ping').ok"},
				StartPeriod: "10s", DataDir: "/data/db", VM: VM{Args: []string{"--bind_ip_all"}}},
			Unsupported: map[string]string{Local: noLocalLauncher}},
		{Name: "mysql", Driver: "mysql", Login: Login{User: "root", Database: "ycsb"}, Summary: "MySQL",
			Image: &Image{Name: "mysql", Tag: "8.4", Port: 3306, Health: []string{"CMD", "mysqladmin", "ping", "-h", "127.0.0.1"},
				StartPeriod: "30s", DataDir: "/var/lib/mysql", Env: []EnvVar{{"MYSQL_DATABASE", "ycsb"}},
				OpenEnv: []EnvVar{{"MYSQL_ALLOW_EMPTY_PASSWORD", "1"}}, PasswordEnv: "MYSQL_ROOT_PASSWORD", Built: builtMariaDB},
			// Debian's MySQL is MariaDB.
			Local:       "mariadb",
			Unsupported: map[string]string{Terraform: notOnVMs}},
		{Name: "postgres", Driver: "postgres", Login: Login{User: "postgres", Database: "ycsb"}, Summary: "PostgreSQL",
			Image: &Image{Name: "postgres", Tag: "17", Port: 5432, Health: []string{"CMD-SHELL", "pg_isready -U postgres -d ycsb"},
				StartPeriod: "10s", DataDir: "/var/lib/postgresql/data", Subdir: EnvVar{"PGDATA", "/var/lib/postgresql/data/pgdata"}, Env: []EnvVar{{"POSTGRES_DB", "ycsb"}},
				OpenEnv: []EnvVar{{"POSTGRES_HOST_AUTH_METHOD", "trust"}}, PasswordEnv: "POSTGRES_PASSWORD", Built: "dbarena.local/postgres:15"},
			Local: "postgres"},
		{Name: "redis", Driver: "redis", Summary: "Redis or Valkey",
			Image: &Image{Name: "redis", Tag: "7.4", Port: 6379, Health: []string{"CMD", "redis-cli", "ping"}, StartPeriod: "5s",
				DataDir: "/data", Args: []string{"redis-server", "--save", "", "--appendonly", "no"},
				PasswordEnv: "REDIS_PASSWORD", PasswordFlag: "--requirepass",
				PasswordHealth: []string{"CMD-SHELL", `redis-cli -a "$$REDIS_PASSWORD" ping`},
				VM:             VM{Args: []string{"--protected-mode", "no"}}, Built: "dbarena.local/redis:7.0"},
			Local: "redis", OneCore: true},
		{Name: "scylladb", Driver: "cql", Summary: "ScyllaDB (CQL)",
			Image:   scylla(9042, cqlHealth, nil, VM{Args: []string{"--developer-mode", "0"}}),
			Cluster: &Cluster{SeedFlag: "--seeds", Serial: true},
			Local:   "scylladb"},
		{Name: "yugabyte-ycql", Driver: "cql", Summary: "YugabyteDB YCQL",
			Image:       yugabyte(9042, "bin/ycqlsh $$(hostname) -e 'select now() from system.local'"),
			Unsupported: map[string]string{Terraform: notOnVMs, Local: noLocalLauncher}},
		{Name: "yugabyte-ysql", Driver: "postgres", Login: Login{User: "yugabyte", Database: "yugabyte"}, DriverProperties: map[string]string{"postgres.dialect": "yugabyte"}, Summary: "YugabyteDB YSQL",
			Image:       yugabyte(5433, "bin/ysqlsh -h $$(hostname) -c 'select 1'"),
			Unsupported: map[string]string{Terraform: notOnVMs, Local: noLocalLauncher}},
	}
}

// ScyllaArgs are ScyllaDB's resource arguments for a container capped at
// cpus and memory (0: uncapped, where one shard and 1 GiB suit a shared
// machine). ScyllaDB sizes itself from the host, not the container's
// cgroup, so without them a capped container would be sized for the
// whole host, or, with fixed small values, starved on a large one. It
// keeps a tenth of the memory, at least 256 MiB, for everything else.
func ScyllaArgs(cpus float64, memory int64) []string {
	smp, mem := 1, "1G"
	if cpus >= 1 {
		smp = int(cpus)
	}
	if memory > 0 {
		mem = fmt.Sprintf("%dM", max(memory-max(memory/10, 256<<20), 256<<20)>>20)
	}
	return []string{"--smp", strconv.Itoa(smp), "--memory", mem, "--overprovisioned", "1", "--developer-mode", "1"}
}

// Databases returns the catalogue sorted by name.
func Databases() []Database {
	c := catalogue()
	sort.Slice(c, func(i, j int) bool { return c[i].Name < c[j].Name })
	return c
}

// DatabaseNames returns the sorted database names.
func DatabaseNames() []string {
	var out []string
	for _, d := range Databases() {
		out = append(out, d.Name)
	}
	return out
}

// Names returns the sorted names of the databases keep accepts.
func Names(keep func(Database) bool) []string {
	var out []string
	for _, d := range Databases() {
		if keep(d) {
			out = append(out, d.Name)
		}
	}
	return out
}

// Clustered reports whether d runs as several nodes.
func Clustered(d Database) bool { return d.Cluster != nil }

// LookupDatabase finds a database by name; an unknown name fails with the
// list of valid ones.
func LookupDatabase(name string) (Database, error) {
	for _, d := range catalogue() {
		if d.Name == name {
			return d, nil
		}
	}
	return Database{}, fmt.Errorf("unknown database %q; valid: %s", name, strings.Join(DatabaseNames(), ", "))
}

// ShellJoin writes args as one shell command line: an empty argument
// becomes ”, the others stay as they are, so that a $VARIABLE in them
// expands where the line runs.
func ShellJoin(args []string) string {
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = a
		if a == "" {
			words[i] = "''"
		}
	}
	return strings.Join(words, " ")
}
