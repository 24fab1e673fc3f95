package kubernetes

// Whether the pods a target asks for can ever be scheduled: each on a
// node whose allocatable CPU and memory hold its requests, all of them
// within the cluster's allocatable in all. A request no node can hold
// would wait for the ready timeout (5 minutes) as Pending; it is refused
// before anything deploys. A cluster autoscaler may add nodes (bigger
// ones too), so where one runs nothing is refused.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/internal/plural"
)

// podAsk is what each of count pods asks of a node: CPU in cores,
// memory in bytes (0: nothing asked).
type podAsk struct {
	// what names the pods for people: "database pod", "loader pod";
	// how says which setting sets the request.
	what, how   string
	count       int
	cpu, memory float64
}

// asks lists what the target's pods request: one database pod a node,
// and the loader pods (their requests as loaderPods renders them).
func asks(req deploy.Request, o Options) []podAsk {
	loaderCPU, _ := strconv.ParseFloat(o.LoaderCPUs, 64) // checked by options
	return []podAsk{
		{what: "database pod", how: "deploy.cpus and deploy.memory", count: max(req.Nodes, 1), cpu: req.CPUs, memory: float64(req.MemoryBytes)},
		{what: "loader pod", how: "the option loader_cpus (1 GiB of memory each)", count: o.Loaders, cpu: loaderCPU, memory: loaderMemory},
	}
}

// loaderMemory is each loader pod's memory request, loaderPods's "1Gi".
const loaderMemory = 1 << 30

// node is one schedulable node's allocatable resources.
type node struct {
	name        string
	cpu, memory float64
}

// nodeList is the part of `kubectl get nodes -o json` that nodes reads.
type nodeList struct {
	Items []struct {
		Metadata struct{ Name string }
		Spec     struct{ Unschedulable bool }
		Status   struct {
			Allocatable map[string]string
		}
	}
}

// parseNodes reads the schedulable nodes (not cordoned) whose
// allocatable CPU and memory parse.
func parseNodes(out []byte) ([]node, error) {
	var l nodeList
	if err := json.Unmarshal(out, &l); err != nil {
		return nil, fmt.Errorf("read the nodes: %w", err)
	}
	var nodes []node
	for _, it := range l.Items {
		if it.Spec.Unschedulable {
			continue
		}
		cpu, err1 := parseQuantity(it.Status.Allocatable["cpu"])
		mem, err2 := parseQuantity(it.Status.Allocatable["memory"])
		if err1 != nil || err2 != nil {
			continue
		}
		nodes = append(nodes, node{name: it.Metadata.Name, cpu: cpu, memory: mem})
	}
	return nodes, nil
}

// fit says why the pods asked can never all be scheduled on nodes, or
// returns nil: a pod no node holds, or more asked in all than the nodes
// have. With no node read there is nothing to judge by.
func fit(name string, pods []podAsk, nodes []node) error {
	if len(nodes) == 0 {
		return nil
	}
	largest := nodes[0]
	var total node
	for _, n := range nodes {
		if n.cpu > largest.cpu || (n.cpu == largest.cpu && n.memory > largest.memory) {
			largest = n
		}
		total.cpu += n.cpu
		total.memory += n.memory
	}
	var all node
	for _, p := range pods {
		if p.count <= 0 {
			continue
		}
		held := false
		for _, n := range nodes {
			held = held || (p.cpu <= n.cpu && p.memory <= n.memory)
		}
		if !held {
			return fmt.Errorf("kubernetes: %s: each %s requests %s, which no node can hold: the largest, %s, has %s allocatable; lower %s, or deploy on bigger nodes",
				name, p.what, cpuMemory(p.cpu, p.memory), largest.name, cpuMemory(largest.cpu, largest.memory), p.how)
		}
		all.cpu += float64(p.count) * p.cpu
		all.memory += float64(p.count) * p.memory
	}
	if all.cpu > total.cpu || all.memory > total.memory {
		return fmt.Errorf("kubernetes: %s: its pods request %s in all (%s), more than the cluster's %s allocatable (%s): lower the requests or the counts, or add nodes",
			name, cpuMemory(all.cpu, all.memory), podCounts(pods), plural.Count(len(nodes), "node"), cpuMemory(total.cpu, total.memory))
	}
	return nil
}

// cpuMemory says "2 CPUs and 1.0 GiB" (a part not asked is left out).
func cpuMemory(cpu, memory float64) string {
	var parts []string
	if cpu > 0 {
		parts = append(parts, strconv.FormatFloat(cpu, 'f', -1, 64)+" CPUs")
	}
	if memory > 0 {
		parts = append(parts, fmt.Sprintf("%.1f GiB", memory/(1<<30)))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, " and ")
}

// podCounts says "3 database pods, 1 loader pod".
func podCounts(pods []podAsk) string {
	var parts []string
	for _, p := range pods {
		if p.count > 0 {
			parts = append(parts, plural.Count(p.count, p.what))
		}
	}
	return strings.Join(parts, ", ")
}

// parseQuantity reads a Kubernetes resource quantity as a number: "2",
// "1500m", "0.5", "7901408Ki", "2Gi", "1G", "1e3".
func parseQuantity(s string) (float64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		factor float64
	}{
		{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}, {"Pi", 1 << 50}, {"Ei", 1 << 60},
		{"m", 1e-3}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18},
	}
	factor := 1.0
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, factor = strings.TrimSuffix(s, u.suffix), u.factor
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%q: not a resource quantity", s)
	}
	return v * factor, nil
}

// autoscaled says whether a cluster autoscaler runs (it publishes its
// status in kube-system): it may add nodes for pods that fit none.
func (d *deployment) autoscaled(ctx context.Context) bool {
	out, err := d.kubectl(ctx, nil, "-n", "kube-system", "get", "configmap", "cluster-autoscaler-status", "--ignore-not-found", "-o", "name")
	return err == nil && strings.TrimSpace(out) != ""
}
