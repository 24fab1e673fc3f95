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

	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/deploy"
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
	Exposed []Exposed
	// Props makes the driver properties from the published addresses
	// ("127.0.0.1:49153"), in Exposed's order.
	Props func(addrs []string) map[string]string
}

// envFile is the env file next to compose.yml holding the secrets.
const envFile = "secrets.env"

// image is a database's container image, pinned to a current version.
type image struct {
	name, tag string
	port      int
	health    []string
	start     string // health check start period
}

func images() map[string]image {
	return map[string]image{
		"postgres":      {"postgres", "17", 5432, []string{"CMD-SHELL", "pg_isready -U postgres -d ycsb"}, "10s"},
		"redis":         {"redis", "7.4", 6379, []string{"CMD", "redis-cli", "ping"}, "5s"},
		"mariadb":       {"mariadb", "11.4", 3306, []string{"CMD", "healthcheck.sh", "--connect", "--innodb_initialized"}, "20s"},
		"mysql":         {"mysql", "8.4", 3306, []string{"CMD", "mysqladmin", "ping", "-h", "127.0.0.1"}, "30s"},
		"mongodb":       {"mongo", "7.0", 27017, []string{"CMD", "mongosh", "--quiet", "--eval", "db.adminCommand('ping').ok"}, "10s"},
		"cassandra":     {"cassandra", "5.0", 9042, []string{"CMD-SHELL", "cqlsh -e 'SELECT release_version FROM system.local' || exit 1"}, "90s"},
		"scylladb":      {"scylladb/scylla", "6.2", 9042, []string{"CMD-SHELL", "cqlsh -e 'SELECT release_version FROM system.local' || exit 1"}, "60s"},
		"alternator":    {"scylladb/scylla", "6.2", 8000, []string{"CMD-SHELL", "curl -s http://localhost:8000/ >/dev/null"}, "60s"},
		"cockroachdb":   {"cockroachdb/cockroach", "v24.3.5", 26257, []string{"CMD", "curl", "-sf", "http://localhost:8080/health?ready=1"}, "30s"},
		"yugabyte-ysql": {"yugabytedb/yugabyte", "2024.2.2.1-b6", 5433, []string{"CMD-SHELL", "bin/ysqlsh -h $$(hostname) -c 'select 1'"}, "60s"},
		"yugabyte-ycql": {"yugabytedb/yugabyte", "2024.2.2.1-b6", 9042, []string{"CMD-SHELL", "bin/ycqlsh $$(hostname) -e 'select now() from system.local'"}, "60s"},
		"dynamodb":      {"amazon/dynamodb-local", "2.5.4", 8000, []string{"CMD-SHELL", "curl -s http://localhost:8000 >/dev/null || exit 1"}, "10s"},
		"aerospike":     {"aerospike/aerospike-server", "7.2.0.6", 3000, []string{"CMD", "asinfo", "-v", "status"}, "20s"},
	}
}

// clustered are the databases this provider runs with nodes > 1.
var clustered = map[string]bool{"cassandra": true, "scylladb": true, "cockroachdb": true}

// Render builds the compose project of one target.
func Render(req deploy.Request) (*Project, error) {
	im, ok := images()[req.Database]
	if !ok {
		return nil, fmt.Errorf("compose: %s: no image for database %q", req.Name, req.Database)
	}
	nodes := max(req.Nodes, 1)
	if nodes > 1 && !clustered[req.Database] {
		return nil, fmt.Errorf("compose: %s: nodes: %d: the compose provider runs %s as one node; clusters: cassandra, cockroachdb, scylladb", req.Name, nodes, req.Database)
	}
	for k := range req.Options {
		if k != "image" && k != "password" {
			return nil, fmt.Errorf("compose: %s: unknown option %q; valid: image (to replace %s:%s), password (from ${env:...})", req.Name, k, im.name, im.tag)
		}
	}
	ref := im.name + ":" + im.tag
	if req.Version != "" {
		ref = im.name + ":" + req.Version
	}
	if v := req.Options["image"]; v != "" {
		ref = v
	}
	p := &Project{File: File{Name: "dbarena-" + req.Name, Services: map[string]*Service{}, Volumes: map[string]struct{}{}}, Secrets: map[string]string{}}
	for i := 1; i <= nodes; i++ {
		name := req.Database
		if nodes > 1 {
			name = fmt.Sprintf("%s-%d", req.Database, i)
		}
		vol := name + "-data"
		p.File.Volumes[vol] = struct{}{}
		svc := &Service{Image: ref, Ports: []string{fmt.Sprintf("127.0.0.1::%d", im.port)},
			Healthcheck: &Healthcheck{Test: im.health, Interval: "5s", Timeout: "5s", Retries: 60, StartPeriod: im.start},
			Environment: map[string]string{}}
		if req.CPUs > 0 || req.MemoryBytes > 0 {
			svc.Deploy = &Deploy{Resources: Resources{Limits: limits(req.CPUs, req.MemoryBytes)}}
		}
		configure(req, p, svc, name, vol, i, nodes)
		if len(svc.Environment) == 0 {
			svc.Environment = nil
		}
		p.File.Services[name] = svc
		p.Exposed = append(p.Exposed, Exposed{Service: name, Port: im.port})
	}
	if pw := req.Options["password"]; pw != "" {
		p.Secrets[passwordVar(req.Database)] = pw
		for _, svc := range p.File.Services {
			svc.EnvFile = []string{envFile}
		}
	}
	p.Props = props(req, p)
	p.File.Services["loader"] = loader(req, p)
	return p, nil
}

// LoaderImage is the image of the loader service: dbarena built from
// this repository's Dockerfile (docker build -t dbarena:local .).
const LoaderImage = "dbarena:local"

// loader is a service that runs dbarena itself inside the project's
// network, reaching the database by service name. It has a profile, so
// `up` does not start it: `docker compose --profile loader run loader
// ycsb run ...` does.
func loader(req deploy.Request, p *Project) *Service {
	var internal []string
	for _, e := range p.Exposed {
		internal = append(internal, fmt.Sprintf("%s:%d", e.Service, e.Port))
	}
	db, _ := deploy.LookupDatabase(req.Database)
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
			v = strings.ReplaceAll(v, pw, "$${env:"+passwordVar(req.Database)+"}")
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

// passwordVar is the image's environment variable for its password.
func passwordVar(db string) string {
	switch db {
	case "postgres":
		return "POSTGRES_PASSWORD"
	case "mariadb":
		return "MARIADB_ROOT_PASSWORD"
	case "mysql":
		return "MYSQL_ROOT_PASSWORD"
	case "redis":
		return "REDIS_PASSWORD"
	}
	return "DB_PASSWORD"
}

// configure sets what each database needs beyond the image.
func configure(req deploy.Request, p *Project, svc *Service, name, vol string, i, nodes int) {
	env := svc.Environment
	_, hasPassword := req.Options["password"]
	switch req.Database {
	case "postgres":
		env["POSTGRES_DB"] = "ycsb"
		if !hasPassword {
			// Published on the loopback address only.
			env["POSTGRES_HOST_AUTH_METHOD"] = "trust"
		}
		svc.Volumes = []string{vol + ":/var/lib/postgresql/data"}
	case "mariadb", "mysql":
		prefix := strings.ToUpper(req.Database)
		env[prefix+"_DATABASE"] = "ycsb"
		if !hasPassword {
			env[prefix+"_ALLOW_EMPTY_ROOT_PASSWORD"] = "1"
			if req.Database == "mysql" {
				env["MYSQL_ALLOW_EMPTY_PASSWORD"] = "1"
				delete(env, "MYSQL_ALLOW_EMPTY_ROOT_PASSWORD")
			}
		}
		svc.Volumes = []string{vol + ":/var/lib/mysql"}
	case "redis":
		svc.Command = []string{"redis-server", "--save", "", "--appendonly", "no"}
		if hasPassword {
			svc.Command = []string{"sh", "-c", `exec redis-server --save '' --appendonly no --requirepass "$$REDIS_PASSWORD"`}
			svc.Healthcheck.Test = []string{"CMD-SHELL", `redis-cli -a "$$REDIS_PASSWORD" ping`}
		}
		svc.Volumes = []string{vol + ":/data"}
	case "mongodb":
		svc.Volumes = []string{vol + ":/data/db"}
	case "cassandra":
		env["CASSANDRA_CLUSTER_NAME"] = "dbarena"
		env["CASSANDRA_SEEDS"] = seed(req.Database, nodes)
		env["MAX_HEAP_SIZE"], env["HEAP_NEWSIZE"] = "1G", "200M"
		svc.Volumes = []string{vol + ":/var/lib/cassandra"}
		svc.Ulimits = map[string]Ulimit{"nofile": {Soft: 100000, Hard: 100000}}
		after(svc, req.Database, i)
	case "scylladb", "alternator":
		svc.Command = ScyllaArgs(req.CPUs, req.MemoryBytes)
		if nodes > 1 {
			svc.Command = append(svc.Command, "--seeds", seed(req.Database, nodes))
		}
		if req.Database == "alternator" {
			svc.Command = append(svc.Command, "--alternator-port", "8000", "--alternator-write-isolation", "only_rmw_uses_lwt")
		}
		svc.Volumes = []string{vol + ":/var/lib/scylla"}
		after(svc, req.Database, i)
	case "cockroachdb":
		if nodes == 1 {
			svc.Command = []string{"start-single-node", "--insecure"}
		} else {
			var join []string
			for j := 1; j <= nodes; j++ {
				join = append(join, fmt.Sprintf("%s-%d:26257", req.Database, j))
			}
			svc.Command = []string{"start", "--insecure", "--join=" + strings.Join(join, ",")}
			if i == 1 {
				// A multi-node cluster answers only once initialised:
				// node 1's health check initialises it, idempotently.
				svc.Healthcheck.Test = []string{"CMD-SHELL", "cockroach init --insecure --host=localhost:26257 2>/dev/null; curl -sf 'http://localhost:8080/health?ready=1'"}
			}
		}
		svc.Volumes = []string{vol + ":/cockroach/cockroach-data"}
	case "yugabyte-ysql", "yugabyte-ycql":
		svc.Command = []string{"bin/yugabyted", "start", "--background=false"}
		svc.Volumes = []string{vol + ":/home/yugabyte/yb_data"}
	case "dynamodb":
		svc.Command = []string{"-jar", "DynamoDBLocal.jar", "-sharedDb", "-inMemory"}
	case "aerospike":
		env["NAMESPACE"] = "ycsb"
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

// seed is the first node's service name: the cluster's seed.
func seed(db string, nodes int) string {
	if nodes == 1 {
		return db
	}
	return db + "-1"
}

// after makes node i wait for node i-1 to be healthy: Cassandra and
// ScyllaDB nodes must join one at a time.
func after(svc *Service, db string, i int) {
	if i > 1 {
		svc.DependsOn = map[string]Dep{fmt.Sprintf("%s-%d", db, i-1): {Condition: "service_healthy"}}
	}
}

// props makes the driver properties from the published addresses.
func props(req deploy.Request, p *Project) func([]string) map[string]string {
	pw := req.Options["password"]
	return func(addrs []string) map[string]string {
		out := map[string]string{}
		switch req.Database {
		case "postgres", "cockroachdb", "yugabyte-ysql":
			user := map[string]string{"postgres": "postgres", "cockroachdb": "root", "yugabyte-ysql": "yugabyte"}[req.Database]
			db := map[string]string{"postgres": "ycsb", "cockroachdb": "defaultdb", "yugabyte-ysql": "yugabyte"}[req.Database]
			auth := user
			if pw != "" {
				auth = user + ":" + pw
			}
			out["postgres.url"] = fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", auth, addrs[0], db)
			if len(addrs) > 1 {
				// The workers spread over the nodes; a multi-host URL
				// would only fail over.
				out["postgres.hosts"] = strings.Join(addrs, ",")
			}
		case "mariadb", "mysql":
			auth := "root"
			if pw != "" {
				auth = "root:" + pw
			}
			out["mysql.url"] = fmt.Sprintf("%s@tcp(%s)/ycsb", auth, addrs[0])
		case "redis":
			out["redis.addr"] = addrs[0]
			if pw != "" {
				out["redis.password"] = pw
			}
		case "mongodb":
			out["mongodb.url"] = fmt.Sprintf("mongodb://%s/ycsb", addrs[0])
		case "cassandra", "scylladb", "yugabyte-ycql":
			out["cql.hosts"] = strings.Join(addrs, ",")
			if len(addrs) >= 3 {
				out["cql.replication.factor"] = "3"
			}
		case "dynamodb", "alternator":
			out["dynamodb.endpoint"] = "http://" + addrs[0]
			out["dynamodb.region"] = "us-east-1"
			out["dynamodb.accesskey"], out["dynamodb.secretkey"] = "dbarena", "dbarena"
		case "aerospike":
			out["aerospike.hosts"] = addrs[0]
			out["aerospike.namespace"] = "ycsb"
		}
		return out
	}
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

// ImageInfo is a database's container image as this package runs it,
// for other container platforms (Kubernetes).
type ImageInfo struct {
	Ref  string
	Port int
	// Probe is the readiness command as an argument vector.
	Probe []string
}

// ImageFor returns a database's image, client port and readiness
// command; false for a database without an image here.
func ImageFor(database string) (ImageInfo, bool) {
	im, ok := images()[database]
	if !ok {
		return ImageInfo{}, false
	}
	probe := im.health[1:]
	if im.health[0] == "CMD-SHELL" {
		// Compose needs $$ for a literal $; a plain shell does not.
		probe = []string{"sh", "-c", strings.ReplaceAll(im.health[1], "$$", "$")}
	}
	return ImageInfo{Ref: im.name + ":" + im.tag, Port: im.port, Probe: probe}, true
}
