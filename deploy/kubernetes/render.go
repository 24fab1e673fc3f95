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
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/results"
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
	// Image replaces the catalogue's database image (a private registry,
	// an image built locally).
	Image string
	// ReadyTimeout bounds the wait for the database's and the loaders'
	// rollouts.
	ReadyTimeout time.Duration
}

var optionNames = []string{"namespace", "storage_class", "storage", "loaders", "loader_image", "loader_pod_image", "loader_cpus", "workload", "context", "image", "ready_timeout", "password"}

// LoaderPodLabel is the app.kubernetes.io/name of the loader pods.
const LoaderPodLabel = "dbarena-loader-pod"

// options reads deploy.options.
func options(req deploy.Request) (Options, error) {
	o := Options{Namespace: "dbarena-" + req.Name, Storage: "10Gi", Loaders: 1, LoaderImage: "dbarena:local",
		LoaderPodImage: "debian:12-slim", LoaderCPUs: "2", Workload: "workloada", ReadyTimeout: deploy.DefaultReadyTimeout}
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
		case "image":
			o.Image = v
		case "ready_timeout":
			d, err := time.ParseDuration(v)
			if err != nil || d < time.Second {
				return o, fmt.Errorf("kubernetes: %s: option ready_timeout: want a duration of at least 1s such as 90s or 10m, got %q", req.Name, v)
			}
			o.ReadyTimeout = d
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
	// Database is the catalogue's entry of what runs.
	Database deploy.Database
}

// Render builds the manifests of one target.
func Render(req deploy.Request) (*Manifests, error) {
	db, err := deploy.LookupDatabase(req.Database)
	if err != nil || db.Image == nil {
		return nil, fmt.Errorf("kubernetes: %s: no image for database %q", req.Name, req.Database)
	}
	im := db.Image
	o, err := options(req)
	if err != nil {
		return nil, err
	}
	nodes := max(req.Nodes, 1)
	if nodes > 1 && db.Cluster == nil {
		return nil, fmt.Errorf("kubernetes: %s: nodes: %d: this provider runs %s as one pod; clusters: %s (or use the database's operator)", req.Name, nodes, req.Database, strings.Join(deploy.Names(deploy.Clustered), ", "))
	}
	labels := map[string]any{"app.kubernetes.io/name": req.Database, "app.kubernetes.io/instance": req.Name, "app.kubernetes.io/managed-by": "dbarena"}
	m := &Manifests{Options: o, Port: im.Port, Service: "db", Database: db}
	meta := func(name string) obj { return obj{"name": name, "namespace": o.Namespace, "labels": labels} }
	container, err := dbContainer(req, db, o, m, meta)
	if err != nil {
		return nil, err
	}
	pvc := obj{"metadata": obj{"name": "data"}, "spec": obj{"accessModes": []any{"ReadWriteOnce"},
		"resources": obj{"requests": obj{"storage": o.Storage}}}}
	if o.StorageClass != "" {
		pvc["spec"].(obj)["storageClassName"] = o.StorageClass
	}
	// The loader Job reaches the nodes by the Service's name, as one
	// address.
	svcAddr := net.JoinHostPort(fmt.Sprintf("%s.%s.svc.cluster.local", m.Service, o.Namespace), strconv.Itoa(im.Port))
	reach, err := address(db, []string{svcAddr}, 1, false)
	if err != nil {
		return nil, err
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
		loaderJob(req, db, o, meta, reach),
		loaderPods(req, o, meta, labels),
	}
	return m, nil
}

// dbContainer is the database pod's container: its image, environment
// (with the password from a Secret, which it adds to m), probe,
// resources and arguments.
func dbContainer(req deploy.Request, db deploy.Database, o Options, m *Manifests, meta func(string) obj) (obj, error) {
	im := db.Image
	nodes := max(req.Nodes, 1)
	advertise := nodes > 1 && db.Cluster.AdvertiseFlag != ""

	env := []any{}
	for _, v := range dbEnv(db, o.Namespace, m.Service) {
		env = append(env, obj{"name": v.Name, "value": v.Value})
	}
	if advertise {
		env = append(env, obj{"name": "POD_NAME", "valueFrom": obj{"fieldRef": obj{"fieldPath": "metadata.name"}}})
	}
	if pw := req.Options["password"]; pw != "" {
		m.Secret = obj{"apiVersion": "v1", "kind": "Secret", "metadata": meta("db-password"), "type": "Opaque",
			"stringData": obj{"password": pw}}
		env = append(env, obj{"name": passwordVar(im), "valueFrom": obj{"secretKeyRef": obj{"name": "db-password", "key": "password"}}})
	}
	sort.Slice(env, func(i, j int) bool { return env[i].(obj)["name"].(string) < env[j].(obj)["name"].(string) })

	image, err := im.Choose(o.Image, req.Version)
	if err != nil {
		return nil, fmt.Errorf("kubernetes: %s: %w", req.Name, err)
	}
	container := obj{"name": "db", "image": image, "env": env,
		"ports":          []any{obj{"name": "client", "containerPort": im.Port}},
		"readinessProbe": obj{"exec": obj{"command": toAny(probe(im.Health))}, "periodSeconds": 5, "timeoutSeconds": 5, "failureThreshold": 60},
		"volumeMounts":   []any{obj{"name": "data", "mountPath": dataDir(im)}}}
	if res := resources(req); res != nil {
		container["resources"] = res
	}
	if args := dbArgs(req, db, nodes, o.Namespace, m.Service); args != nil {
		container["args"] = toAny(args)
	}
	if nodes > 1 && db.Cluster.InitCheck != "" {
		// A new cluster answers only once initialised: the probe
		// initialises it (idempotently) from whichever pod runs it first.
		container["readinessProbe"].(obj)["exec"] = obj{"command": toAny(probe([]string{"CMD-SHELL", db.Cluster.InitCheck}))}
	}
	return container, nil
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
// default command). Pod i of the StatefulSet is db-i.SERVICE.NS; the
// first is a cluster's seed.
func dbArgs(req deploy.Request, db deploy.Database, nodes int, ns, svc string) []string {
	im, c := db.Image, db.Cluster
	pod := func(i int) string { return fmt.Sprintf("db-%d.%s.%s.svc.cluster.local", i, svc, ns) }
	var args []string
	if im.Sized != nil {
		args = append(args, im.Sized(req.CPUs, req.MemoryBytes)...)
	}
	base := im.Args
	if nodes > 1 {
		if c.SeedFlag != "" {
			args = append(args, c.SeedFlag, pod(0))
		}
		if c.Args != nil {
			base = c.Args
		}
	}
	args = append(args, base...)
	if nodes > 1 && c.JoinFlag != "" {
		var join []string
		for i := range nodes {
			join = append(join, fmt.Sprintf("%s:%d", pod(i), im.Port))
		}
		args = append(args, c.JoinFlag+strings.Join(join, ","))
	}
	if nodes > 1 && c.AdvertiseFlag != "" {
		// Each node advertises its pod's name under the headless
		// Service, which the others resolve (its bare hostname they do
		// not); Kubernetes expands $(POD_NAME) from the environment.
		args = append(args, fmt.Sprintf("%s$(POD_NAME).%s.%s.svc.cluster.local", c.AdvertiseFlag, svc, ns))
	}
	if req.Options["password"] != "" && im.PasswordFlag != "" {
		// Kubernetes expands $(VAR) from the container's environment.
		args = append(args, im.PasswordFlag, "$("+passwordVar(im)+")")
	}
	if len(args) == 0 {
		return nil
	}
	return args
}

// probe is a Compose health check as an argument vector: Compose needs
// $$ for a literal $, a plain shell does not.
func probe(health []string) []string {
	if health[0] == "CMD-SHELL" {
		return []string{"sh", "-c", strings.ReplaceAll(health[1], "$$", "$")}
	}
	return health[1:]
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

// dataDir is where the volume claim is mounted: the image's data
// directory, or /data for an image that keeps none.
func dataDir(im *deploy.Image) string {
	if im.DataDir == "" {
		return "/data"
	}
	return im.DataDir
}

// passwordVar is the container's variable for its password. A password
// given by flag comes from DB_PASSWORD, which the flag names.
func passwordVar(im *deploy.Image) string {
	if im.PasswordEnv == "" || im.PasswordFlag != "" {
		return "DB_PASSWORD"
	}
	return im.PasswordEnv
}

// dbEnv is the database container's environment: the catalogue's, with
// the first pod as a cluster's seed, and the data in a subdirectory of
// the claim where the image needs one.
func dbEnv(db deploy.Database, ns, svc string) []deploy.EnvVar {
	im := db.Image
	env := append(append(append([]deploy.EnvVar(nil), im.Env...), im.OpenEnv...), im.SharedEnv...)
	if c := db.Cluster; c != nil && c.SeedEnv != "" {
		env = append(env, deploy.EnvVar{Name: c.SeedEnv, Value: fmt.Sprintf("db-0.%s.%s.svc.cluster.local", svc, ns)})
	}
	if im.Subdir.Name != "" {
		env = append(env, im.Subdir)
	}
	return env
}

// loaderJob is the Indexed Job of loaders: pod i runs dbarena ycsb run
// --loader i/N against the headless Service and writes its interval log
// to standard output, where `kubectl logs` gathers it for dbarena merge.
func loaderJob(req deploy.Request, db deploy.Database, o Options, meta func(string) obj, reach []driver.Prop) obj {
	args := []any{"ycsb", "run", db.Driver, "-P", "/workloads/" + o.Workload, "-q",
		"--" + results.FlagLoader, fmt.Sprintf("$(JOB_COMPLETION_INDEX)/%d", o.Loaders), "--" + results.FlagRunID, req.Name,
		"--" + results.FlagHdrLog, "/dev/stdout", "--" + results.FlagExport, "/dev/stderr"}
	for _, p := range reach {
		args = append(args, "-p", p.Key+"="+p.Value)
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

// address is the driver's properties that reach the servers at addrs
// (a Service's name that stands for every node, or the pods' IPs: all
// on the database's port), with the catalogue's login; nodes is how
// many serve, private that the addresses are not the ones the nodes
// advertise (a port-forward).
func address(db deploy.Database, addrs []string, nodes int, private bool) ([]driver.Prop, error) {
	r := db.Reach(addrs, "")
	r.SamePort, r.Nodes, r.Private = true, max(nodes, len(addrs)), private
	props, err := drivers.Address(db.Driver, r)
	if err != nil {
		return nil, fmt.Errorf("kubernetes: %s: %w", db.Name, err)
	}
	return props, nil
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
