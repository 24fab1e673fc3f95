package kubernetes

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestParseQuantity reads the quantities nodes and pods carry.
func TestParseQuantity(t *testing.T) {
	for in, want := range map[string]float64{
		"2": 2, "1500m": 1.5, "0.5": 0.5, "7901408Ki": 7901408 * 1024, "2Gi": 2 << 30,
		"1G": 1e9, "512Mi": 512 << 20, "1e3": 1000, "100k": 1e5,
	} {
		got, err := parseQuantity(in)
		require.NoError(t, err, in)
		require.InDelta(t, want, got, 1e-9*want, in)
	}
	for _, in := range []string{"", "two", "-1", "1Xi", "NaN"} {
		_, err := parseQuantity(in)
		require.Error(t, err, in)
	}
}

// TestParseNodes keeps the schedulable nodes whose allocatable parses.
func TestParseNodes(t *testing.T) {
	nodes, err := parseNodes([]byte(`{"items": [
		{"metadata": {"name": "a"}, "status": {"allocatable": {"cpu": "2", "memory": "8010124Ki", "pods": "110"}}},
		{"metadata": {"name": "cordoned"}, "spec": {"unschedulable": true}, "status": {"allocatable": {"cpu": "64", "memory": "256Gi"}}},
		{"metadata": {"name": "odd"}, "status": {"allocatable": {"cpu": "lots", "memory": "1Gi"}}}]}`))
	require.NoError(t, err)
	require.Equal(t, []node{{name: "a", cpu: 2, memory: 8010124 * 1024}}, nodes)
	_, err = parseNodes([]byte("not json"))
	require.Error(t, err)
}

// TestFit: a pod that exactly fits the largest node passes and one a
// thousandth of a core (or a byte) more is refused, naming the request,
// the largest node and the setting; pods that each fit but not all
// together are refused with the totals; no nodes, no judgement.
func TestFit(t *testing.T) {
	const gib = 1 << 30
	nodes := []node{{name: "small", cpu: 1, memory: 4 * gib}, {name: "big", cpu: 2, memory: 8 * gib}}
	db := func(n int, cpu, mem float64) podAsk {
		return podAsk{what: "database pod", how: "deploy.cpus and deploy.memory", count: n, cpu: cpu, memory: mem}
	}
	loader := podAsk{what: "loader pod", how: "the option loader_cpus (1 GiB of memory each)", count: 1, cpu: 2, memory: gib}

	require.NoError(t, fit("pg", []podAsk{db(1, 2, 8*gib)}, nodes), "exactly the largest node")
	err := fit("pg", []podAsk{db(1, 2.001, 1*gib)}, nodes)
	require.EqualError(t, err, "kubernetes: pg: each database pod requests 2.001 CPUs and 1.0 GiB, which no node can hold: the largest, big, has 2 CPUs and 8.0 GiB allocatable; lower deploy.cpus and deploy.memory, or deploy on bigger nodes")
	err = fit("pg", []podAsk{db(1, 0.5, 8*gib+1)}, nodes)
	require.ErrorContains(t, err, "which no node can hold")
	// A pod that fits the CPU of one node and the memory of another
	// fits neither.
	err = fit("pg", []podAsk{db(1, 1.5, 6*gib)}, []node{{name: "cpu", cpu: 2, memory: 4 * gib}, {name: "mem", cpu: 1, memory: 8 * gib}})
	require.ErrorContains(t, err, "which no node can hold")
	// The default loader on a 2-CPU node beside a database of 1: each
	// fits, not both.
	single := []node{{name: "node-1", cpu: 2, memory: 8 * gib}}
	require.NoError(t, fit("pg", []podAsk{db(1, 0, 0), loader}, single), "a database without requests")
	err = fit("pg", []podAsk{db(1, 1, 2*gib), loader}, single)
	require.EqualError(t, err, "kubernetes: pg: its pods request 3 CPUs and 3.0 GiB in all (1 database pod, 1 loader pod), more than the cluster's 1 node allocatable (2 CPUs and 8.0 GiB): lower the requests or the counts, or add nodes")
	require.NoError(t, fit("pg", []podAsk{db(3, 1, 2*gib)}, nodes), "3 CPUs of 3")
	require.ErrorContains(t, fit("pg", []podAsk{db(4, 1, 2*gib)}, nodes), "4 database pods")
	require.NoError(t, fit("pg", []podAsk{db(1, 64, 0)}, nil), "no nodes read: nothing to judge by")
}

// TestUnschedulable: a pod the scheduler found no room for gives up
// after unschedulableFor, not before, and only for want of CPU or
// memory.
func TestUnschedulable(t *testing.T) {
	now := time.Date(2026, 12, 7, 22, 0, 0, 0, time.UTC)
	msg := "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
	cond := func(reason, message string, ago time.Duration) []condition {
		return []condition{{Type: "PodScheduled", Status: "False", Reason: reason, Message: message, LastTransitionTime: now.Add(-ago)}}
	}
	require.Equal(t, msg, unschedulable(cond("Unschedulable", msg, unschedulableFor), now))
	require.Empty(t, unschedulable(cond("Unschedulable", msg, unschedulableFor-time.Second), now), "not yet")
	require.Empty(t, unschedulable(cond("Unschedulable", "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims.", time.Hour), now), "a claim may yet bind")
	require.Empty(t, unschedulable([]condition{{Type: "PodScheduled", Status: "True", LastTransitionTime: now.Add(-time.Hour)}}, now))
	require.Empty(t, unschedulable(nil, now))
}
