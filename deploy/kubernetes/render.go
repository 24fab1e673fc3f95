// Package kubernetes is the Kubernetes deployment provider: each target
// becomes a namespace with a StatefulSet of the database (readiness
// probe, resource limits, a volume claim per pod, pods spread over
// nodes) behind a headless Service, and a loader Indexed Job whose pods
// each take their share of the key space from their completion index
// (dbarena ycsb --loader INDEX/N), for running without dbarena. From an
// experiment, the provider applies the database with kubectl, waits for
// the rollout, forwards a local port to it for the schema and the
// database's statistics, and starts idle loader pods that the experiment
// runs its loaders in through kubectl exec, inside the cluster; it
// deletes the namespace at teardown.
// Secrets become a Secret object applied from standard input, never a
// file, and reach the pods by secretKeyRef.
package kubernetes

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/compose"
)

// obj is one manifest; maps keep this package free of the Kubernetes
// API modules, which the tests use to check every manifest strictly.
type obj = map[string]any

// Options are the provider's settings from deploy.options.
type Options struct {
	Namespace    string
	StorageClass string
	Storage      string
	Loaders      int
	// LoaderImage runs the loader Job (a dbarena image); LoaderPodImage
	// the loader pods an experiment runs its loaders in (any image with
	// sh and cat: dbarena copies itself there).
	LoaderImage    string
	LoaderPodImage string
	// LoaderCPUs is each loader pod's CPU request and limit: a limit
	// makes the loader's own CPU figures (GOMAXPROCS follows it) say
	// when a pod, not the database, was the bottleneck.
	LoaderCPUs string
	Workload   string
	Context    string
}

var optionNames = []string{"namespace", "storage_class", "storage", "loaders", "loader_image", "loader_pod_image", "loader_cpus", "workload", "context", "password"}

// LoaderPodLabel is the app.kubernetes.io/name of the loader pods.
const LoaderPodLabel = "dbarena-loader-pod"

// clustered are the databases this provider runs as a cluster of
// several pods; the others run as one.
var clustered = map[string]bool{"cassandra": true, "scylladb": true, "cockroachdb": true}

// options reads deploy.options.
func options(req deploy.Request) (Options, error) {
	o := Options{Namespace: "dbarena-" + req.Name, Storage: "10Gi", Loaders: 1, LoaderImage: "dbarena:local",
		LoaderPodImage: "debian:12-slim", LoaderCPUs: "2", Workload: "workloada"}
	for k, v := range req.Options {
		switch k {
		case "namespace":
			o.Namespace = v
		case "storage_class":
			o.StorageClass = v
		case "storage":
			o.Storage = v
		case "loader_image":
			o.LoaderImage = v
		case "loader_pod_image":
			o.LoaderPodImage = v
		case "loader_cpus":
			if f, err := strconv.ParseFloat(v, 64); err != nil || f <= 0 {
				return o, fmt.Errorf("kubernetes: %s: option loader_cpus: want a positive number of CPUs, got %q", req.Name, v)
			}
			o.LoaderCPUs = v
		case "workload":
			o.Workload = v
		case "context":
			o.Context = v
		case "loaders":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return o, fmt.Errorf("kubernetes: %s: option loaders: want a positive whole number, got %q", req.Name, v)
			}
			o.Loaders = n
		case "password":
		default:
			return o, fmt.Errorf("kubernetes: %s: unknown option %q; valid: %s", req.Name, k, strings.Join(optionNames, ", "))
		}
	}
	return o, nil
}

// Manifests are a target's objects, and the Secret kept apart: it is
// applied from memory, never written to a file.
type Manifests struct {
	Objects []obj
	Secret  obj
	Options Options
	// Port is the database's client port; Service the headless
	// Service's name.
	Port    int
	Service string
}

// Render builds the manifests of one target.
func Render(req deploy.Request) (*Manifests, error) {
	im, ok := compose.ImageFor(req.Database)
	if !ok {
		return nil, fmt.Errorf("kubernetes: %s: no image for database %q", req.Name, req.Database)
	}
	o, err := options(req)
	if err != nil {
		return nil, err
	}
	if req.Version != "" {
		im.Ref = strings.SplitN(im.Ref, ":", 2)[0] + ":" + req.Version
	}
	nodes := max(req.Nodes, 1)
	if nodes > 1 && !clustered[req.Database] {
		return nil, fmt.Errorf("kubernetes: %s: nodes: %d: this provider runs %s as one pod; clusters: cassandra, cockroachdb, scylladb (or use the database's operator)", req.Name, nodes, req.Database)
	}
	labels := map[string]any{"app.kubernetes.io/name": req.Database, "app.kubernetes.io/instance": req.Name, "app.kubernetes.io/managed-by": "dbarena"}
	m := &Manifests{Options: o, Port: im.Port, Service: "db"}
	meta := func(name string) obj { return obj{"name": name, "namespace": o.Namespace, "labels": labels} }

	env := []any{}
	for k, v := range dbEnv(req.Database, req.Name, nodes, o.Namespace) {
		env = append(env, obj{"name": k, "value": v})
	}
	if req.Database == "cockroachdb" && nodes > 1 {
		env = append(env, obj{"name": "POD_NAME", "valueFrom": obj{"fieldRef": obj{"fieldPath": "metadata.name"}}})
	}
	if pw := req.Options["password"]; pw != "" {
		m.Secret = obj{"apiVersion": "v1", "kind": "Secret", "metadata": meta("db-password"), "type": "Opaque",
			"stringData": obj{"password": pw}}
		env = append(env, obj{"name": passwordVar(req.Database), "valueFrom": obj{"secretKeyRef": obj{"name": "db-password", "key": "password"}}})
	}
	sort.Slice(env, func(i, j int) bool { return env[i].(obj)["name"].(string) < env[j].(obj)["name"].(string) })

	container := obj{"name": "db", "image": im.Ref, "env": env,
		"ports":          []any{obj{"name": "client", "containerPort": im.Port}},
		"readinessProbe": obj{"exec": obj{"command": toAny(im.Probe)}, "periodSeconds": 5, "timeoutSeconds": 5, "failureThreshold": 60},
		"volumeMounts":   []any{obj{"name": "data", "mountPath": dataDir(req.Database)}}}
	if res := resources(req); res != nil {
		container["resources"] = res
	}
	if args := dbArgs(req, nodes, o.Namespace, m.Service); args != nil {
		container["args"] = toAny(args)
	}
	if req.Database == "cockroachdb" && nodes > 1 {
		// A new cluster answers only once initialised: the probe
		// initialises it (idempotently) from whichever pod runs it first.
		container["readinessProbe"].(obj)["exec"] = obj{"command": []any{"sh", "-c",
			"cockroach init --insecure --host=localhost:26257 2>/dev/null; curl -sf 'http://localhost:8080/health?ready=1'"}}
	}
	pvc := obj{"metadata": obj{"name": "data"}, "spec": obj{"accessModes": []any{"ReadWriteOnce"},
		"resources": obj{"requests": obj{"storage": o.Storage}}}}
	if o.StorageClass != "" {
		pvc["spec"].(obj)["storageClassName"] = o.StorageClass
	}
	m.Objects = []obj{
		{"apiVersion": "v1", "kind": "Namespace", "metadata": obj{"name": o.Namespace, "labels": labels}},
		// Pods are published before they are ready: a cluster's nodes
		// find the seed, and each other, while they start.
		{"apiVersion": "v1", "kind": "Service", "metadata": meta(m.Service), "spec": obj{"clusterIP": "None", "selector": labels,
			"publishNotReadyAddresses": nodes > 1,
			"ports":                    []any{obj{"name": "client", "port": im.Port, "targetPort": im.Port}}}},
		{"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta("db"), "spec": obj{
			"serviceName": m.Service, "replicas": nodes, "podManagementPolicy": "OrderedReady",
			"selector": obj{"matchLabels": labels},
			"template": obj{"metadata": obj{"labels": labels}, "spec": obj{
				"containers": []any{container},
				// One database pod per Kubernetes node where the cluster
				// has enough of them: co-located nodes share disks.
				"affinity": obj{"podAntiAffinity": obj{"preferredDuringSchedulingIgnoredDuringExecution": []any{
					obj{"weight": 100, "podAffinityTerm": obj{"topologyKey": "kubernetes.io/hostname", "labelSelector": obj{"matchLabels": labels}}}}}},
			}},
			"volumeClaimTemplates": []any{pvc},
		}},
		loaderJob(req, o, meta, im.Port, m.Service),
		loaderPods(req, o, meta, labels),
	}
	return m, nil
}

// loaderPods is a Deployment of idle pods, one per loader, that an
// experiment runs its loaders in through kubectl exec: inside the
// cluster, where a cluster's drivers reach every node, and kept off the
// database pods' Kubernetes nodes where the cluster has room.
func loaderPods(req deploy.Request, o Options, meta func(string) obj, dbLabels map[string]any) obj {
	labels := map[string]any{"app.kubernetes.io/name": LoaderPodLabel, "app.kubernetes.io/instance": req.Name, "app.kubernetes.io/managed-by": "dbarena"}
	m := meta("loaders")
	m["labels"] = labels
	return obj{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": m, "spec": obj{
		"replicas": o.Loaders, "selector": obj{"matchLabels": labels},
		"template": obj{"metadata": obj{"labels": labels}, "spec": obj{
			"terminationGracePeriodSeconds": 1,
			"containers": []any{obj{"name": "loader", "image": o.LoaderPodImage, "command": []any{"sleep", "infinity"},
				"resources": obj{"requests": obj{"cpu": o.LoaderCPUs, "memory": "1Gi"}, "limits": obj{"cpu": o.LoaderCPUs, "memory": "1Gi"}}}},
			// Off the database's nodes, and off each other's.
			"affinity": obj{"podAntiAffinity": obj{"preferredDuringSchedulingIgnoredDuringExecution": []any{
				obj{"weight": 100, "podAffinityTerm": obj{"topologyKey": "kubernetes.io/hostname", "labelSelector": obj{"matchLabels": dbLabels}}},
				obj{"weight": 50, "podAffinityTerm": obj{"topologyKey": "kubernetes.io/hostname", "labelSelector": obj{"matchLabels": labels}}}}}},
		}},
	}}
}

// dbArgs are the database container's arguments (nil: the image's
// default command). Pod i of the StatefulSet is db-i.SERVICE.NS.
func dbArgs(req deploy.Request, nodes int, ns, svc string) []string {
	db, password := req.Database, req.Options["password"] != ""
	pod := func(i int) string { return fmt.Sprintf("db-%d.%s.%s.svc.cluster.local", i, svc, ns) }
	switch db {
	case "redis":
		args := []string{"redis-server", "--save", "", "--appendonly", "no"}
		if password {
			// Kubernetes expands $(VAR) from the container's environment.
			args = append(args, "--requirepass", "$(DB_PASSWORD)")
		}
		return args
	case "scylladb", "alternator":
		args := compose.ScyllaArgs(req.CPUs, req.MemoryBytes)
		if nodes > 1 {
			args = append(args, "--seeds", pod(0))
		}
		if db == "alternator" {
			args = append(args, "--alternator-port", "8000", "--alternator-write-isolation", "only_rmw_uses_lwt")
		}
		return args
	case "cockroachdb":
		if nodes == 1 {
			return []string{"start-single-node", "--insecure"}
		}
		var join []string
		for i := range nodes {
			join = append(join, pod(i)+":26257")
		}
		// Each node advertises its pod's name under the headless
		// Service, which the others resolve (its bare hostname they do
		// not); Kubernetes expands $(POD_NAME) from the environment.
		return []string{"start", "--insecure", "--join=" + strings.Join(join, ","),
			fmt.Sprintf("--advertise-addr=$(POD_NAME).%s.%s.svc.cluster.local", svc, ns)}
	case "yugabyte-ysql", "yugabyte-ycql":
		return []string{"bin/yugabyted", "start", "--background=false"}
	case "dynamodb":
		return []string{"-jar", "DynamoDBLocal.jar", "-sharedDb", "-inMemory"}
	}
	return nil
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// resources are the container's requests and limits from deploy.cpus
// and deploy.memory: equal, for a predictable share of the node.
func resources(req deploy.Request) obj {
	q := obj{}
	if req.CPUs > 0 {
		q["cpu"] = strconv.FormatFloat(req.CPUs, 'f', -1, 64)
	}
	if req.MemoryBytes > 0 {
		q["memory"] = strconv.FormatInt(req.MemoryBytes, 10)
	}
	if len(q) == 0 {
		return nil
	}
	return obj{"requests": q, "limits": q}
}

func dataDir(db string) string {
	switch db {
	case "postgres":
		return "/var/lib/postgresql/data"
	case "redis":
		return "/data"
	case "mariadb", "mysql":
		return "/var/lib/mysql"
	case "mongodb":
		return "/data/db"
	case "cassandra":
		return "/var/lib/cassandra"
	case "scylladb", "alternator":
		return "/var/lib/scylla"
	case "cockroachdb":
		return "/cockroach/cockroach-data"
	case "yugabyte-ysql", "yugabyte-ycql":
		return "/home/yugabyte/yb_data"
	}
	return "/data"
}

func passwordVar(db string) string {
	switch db {
	case "postgres":
		return "POSTGRES_PASSWORD"
	case "mariadb":
		return "MARIADB_ROOT_PASSWORD"
	case "mysql":
		return "MYSQL_ROOT_PASSWORD"
	}
	return "DB_PASSWORD"
}

// dbEnv is the database container's environment.
func dbEnv(db, name string, nodes int, ns string) map[string]string {
	switch db {
	case "postgres":
		return map[string]string{"POSTGRES_DB": "ycsb", "POSTGRES_HOST_AUTH_METHOD": "trust", "PGDATA": "/var/lib/postgresql/data/pgdata"}
	case "mariadb":
		return map[string]string{"MARIADB_DATABASE": "ycsb", "MARIADB_ALLOW_EMPTY_ROOT_PASSWORD": "1"}
	case "mysql":
		return map[string]string{"MYSQL_DATABASE": "ycsb", "MYSQL_ALLOW_EMPTY_PASSWORD": "1"}
	case "cassandra":
		// The first pod of the StatefulSet is the seed.
		return map[string]string{"CASSANDRA_CLUSTER_NAME": "dbarena", "CASSANDRA_SEEDS": "db-0.db." + ns + ".svc.cluster.local",
			"MAX_HEAP_SIZE": "1G", "HEAP_NEWSIZE": "200M"}
	case "aerospike":
		return map[string]string{"NAMESPACE": "ycsb"}
	}
	return map[string]string{}
}

// loaderJob is the Indexed Job of loaders: pod i runs dbarena ycsb run
// --loader i/N against the headless Service and writes its interval log
// to standard output, where `kubectl logs` gathers it for dbarena merge.
func loaderJob(req deploy.Request, o Options, meta func(string) obj, port int, svc string) obj {
	db, _ := deploy.LookupDatabase(req.Database)
	host := fmt.Sprintf("%s.%s.svc.cluster.local", svc, o.Namespace)
	args := []any{"ycsb", "run", db.Driver, "-P", "/workloads/" + o.Workload, "-q",
		"--loader", fmt.Sprintf("$(JOB_COMPLETION_INDEX)/%d", o.Loaders), "--run-id", req.Name,
		"--hdr-log", "/dev/stdout", "--export", "/dev/stderr"}
	for _, kv := range endpoint(req.Database, host, port) {
		args = append(args, "-p", kv)
	}
	for k, v := range db.DriverProperties {
		args = append(args, "-p", k+"="+v)
	}
	env := []any{obj{"name": "JOB_COMPLETION_INDEX", "valueFrom": obj{"fieldRef": obj{
		"fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}}
	labels := map[string]any{"app.kubernetes.io/name": "dbarena-loader", "app.kubernetes.io/instance": req.Name, "app.kubernetes.io/managed-by": "dbarena"}
	m := meta("loader")
	m["labels"] = labels
	return obj{"apiVersion": "batch/v1", "kind": "Job", "metadata": m, "spec": obj{
		"completionMode": "Indexed", "completions": o.Loaders, "parallelism": o.Loaders, "backoffLimit": 0,
		"template": obj{"metadata": obj{"labels": labels}, "spec": obj{
			"restartPolicy": "Never",
			"containers": []any{obj{"name": "loader", "image": o.LoaderImage, "args": args, "env": env,
				"resources": obj{"requests": obj{"cpu": "1", "memory": "512Mi"}}}},
		}},
	}}
}

// endpoint is the driver's endpoint properties at host:port.
func endpoint(db, host string, port int) []string {
	addr := fmt.Sprintf("%s:%d", host, port)
	switch db {
	case "postgres":
		return []string{"postgres.url=postgres://postgres@" + addr + "/ycsb?sslmode=disable"}
	case "cockroachdb":
		return []string{"postgres.url=postgres://root@" + addr + "/defaultdb?sslmode=disable"}
	case "yugabyte-ysql":
		return []string{"postgres.url=postgres://yugabyte@" + addr + "/yugabyte?sslmode=disable"}
	case "mariadb", "mysql":
		return []string{"mysql.url=root@tcp(" + addr + ")/ycsb"}
	case "redis":
		return []string{"redis.addr=" + addr}
	case "mongodb":
		return []string{"mongodb.url=mongodb://" + addr + "/ycsb"}
	case "cassandra", "scylladb", "yugabyte-ycql":
		return []string{"cql.hosts=" + host, "cql.port=" + strconv.Itoa(port)}
	case "dynamodb", "alternator":
		return []string{"dynamodb.endpoint=http://" + addr, "dynamodb.region=us-east-1", "dynamodb.accesskey=dbarena", "dynamodb.secretkey=dbarena"}
	case "aerospike":
		return []string{"aerospike.hosts=" + addr, "aerospike.namespace=ycsb"}
	}
	return nil
}

// YAML writes the objects as one multi-document stream, without the
// Secret.
func (m *Manifests) YAML() ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	for _, o := range m.Objects {
		if err := enc.Encode(o); err != nil {
			return nil, fmt.Errorf("kubernetes: render: %w", err)
		}
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("kubernetes: render: %w", err)
	}
	return b.Bytes(), nil
}
