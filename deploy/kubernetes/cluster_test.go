package kubernetes_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/deploytest"
	"github.com/dbarena/dbarena/deploy/kubernetes"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/sysmetrics"
)

// These tests run against the real single-node cluster of
// scripts/kubernetes, with the images it built (no registry is reached):
// every name starts with TestKubernetesCluster, which the test command
// runs in a step of its own.

// localImages are the provider options that use the images built here
// (image: local), with more options.
func localImages(more map[string]string) map[string]string {
	o := map[string]string{"image": deploy.LocalImage,
		"loader_pod_image": "dbarena.local/debian:12", "loader_cpus": "0.25", "storage": "1Gi"}
	for k, v := range more {
		o[k] = v
	}
	return o
}

// cgroupFile reads a cgroup file of a container, on cgroup v1 or v2.
func cgroupFile(t *testing.T, prefix []string, v1, v2 string) string {
	t.Helper()
	out, err := exec.Command(prefix[0], append(prefix[1:], "cat", "/sys/fs/cgroup/"+v1)...).CombinedOutput()
	if err != nil {
		out, err = exec.Command(prefix[0], append(prefix[1:], "cat", "/sys/fs/cgroup/"+v2)...).CombinedOutput()
	}
	require.NoError(t, err, string(out))
	return strings.TrimSpace(string(out))
}

// TestKubernetesClusterUpLimitsDown deploys PostgreSQL from the local
// image with CPU and memory limits and one loader pod: the database
// answers through the forwarded port, the limits are in the pods'
// cgroups, a loader pod reaches the database by its pod address, the
// kubelet reports the pod's CPU and memory, and teardown leaves no
// namespace, pod, claim or volume.
func TestKubernetesClusterUpLimitsDown(t *testing.T) {
	testenv.Kubernetes(t)
	ctx := context.Background()
	ns := "dbarena-kt-limits"
	d, err := kubernetes.Provider{}.Up(ctx, deploy.Request{Name: "kt-limits", Database: "postgres", CPUs: 0.5, MemoryBytes: 256 << 20,
		WorkDir: t.TempDir(), Options: localImages(nil)})
	require.NoError(t, err)
	down := false
	t.Cleanup(func() {
		if !down {
			_ = d.Down(context.Background())
		}
	})

	conn, err := pgx.Connect(ctx, d.Properties()["postgres.url"])
	require.NoError(t, err, "through the forwarded port")
	var one int
	require.NoError(t, conn.QueryRow(ctx, "SELECT 1").Scan(&one))
	require.NoError(t, conn.Close(ctx))

	db := []string{"kubectl", "-n", ns, "exec", "db-0", "-c", "db", "--"}
	quota := cgroupFile(t, db, "cpu/cpu.cfs_quota_us", "cpu.max")
	require.True(t, quota == "50000" || strings.HasPrefix(quota, "50000 "), "CPU quota of half a core, got %q", quota)
	mem := cgroupFile(t, db, "memory/memory.limit_in_bytes", "memory.max")
	require.Equal(t, fmt.Sprint(256<<20), mem)
	require.Equal(t, "Bound", deploytest.Kubectl(t, "-n", ns, "get", "pvc", "data-db-0", "-o", "jsonpath={.status.phase}"))

	lm := d.(deploy.LoadMachines)
	require.Len(t, lm.LoaderCommands(), 1)
	loader := lm.LoaderCommands()[0]
	quota = cgroupFile(t, loader, "cpu/cpu.cfs_quota_us", "cpu.max")
	require.True(t, quota == "25000" || strings.HasPrefix(quota, "25000 "), "loader CPU quota of a quarter core, got %q", quota)
	url := lm.LoaderProperties()["postgres.url"]
	host := strings.TrimSuffix(strings.SplitN(strings.TrimPrefix(url, "postgres://postgres@"), "/", 2)[0], ":5432")
	require.NotContains(t, host, "svc.cluster.local", "the loaders need no cluster DNS")
	out, err := exec.Command(loader[0], append(loader[1:], "bash", "-c", "exec 3<>/dev/tcp/"+host+"/5432 && echo open")...).CombinedOutput()
	require.NoError(t, err, string(out))
	require.Equal(t, "open", strings.TrimSpace(string(out)), "a loader pod reaches the database pod")

	hosts := d.Hosts()
	require.Len(t, hosts, 1)
	require.Equal(t, ns+"/db-0", hosts[0].Pod)
	src := sysmetrics.NewKubeletPod(hosts[0].Name, sysmetrics.RoleDatabase, hosts[0].PodMetricsURL, ns, "db-0", nil)
	// The kubelet refreshes its figures each housekeeping interval: the
	// first scrape primes, a later one brings a newer reading.
	var got sysmetrics.Sample
	ok := false
	for deadline := time.Now().Add(time.Minute); !ok && time.Now().Before(deadline); {
		got, ok, err = src.Sample(time.Now())
		require.NoError(t, err)
		if !ok {
			time.Sleep(time.Second)
		}
	}
	require.True(t, ok, "the kubelet never reported a newer reading in a minute")
	require.Greater(t, got.MemoryBytes, float64(1<<20), "the pod's working set")
	require.GreaterOrEqual(t, got.CPUPercent, 0.0)

	require.NoError(t, d.Down(ctx))
	down = true
	deploytest.RequireNamespaceGone(t, ns)
}

// TestKubernetesClusterNeverReady asks for more CPU than the node has,
// past the preflight (Up alone): the pod is never scheduled, and with no
// cluster autoscaler to add a node the wait ends within seconds of the
// scheduler's verdict, not at the 5-minute ready timeout, naming the pod
// with its state and events; what was applied is deleted.
func TestKubernetesClusterNeverReady(t *testing.T) {
	testenv.Kubernetes(t)
	start := time.Now()
	_, err := kubernetes.Provider{}.Up(context.Background(), deploy.Request{Name: "kt-pending", Database: "redis", CPUs: 64,
		WorkDir: t.TempDir(), Options: localImages(nil)})
	require.Error(t, err)
	t.Logf("after %s: %v", time.Since(start).Round(time.Second), err)
	require.Less(t, time.Since(start), 60*time.Second, "the ready timeout is 5 minutes")
	require.ErrorContains(t, err, "statefulset/db not ready: pod db-0 cannot be scheduled, and no cluster autoscaler may add a node: 0/1 nodes are available")
	require.ErrorContains(t, err, "pod db-0 is Pending")
	require.ErrorContains(t, err, "Insufficient cpu")
	deploytest.RequireNamespaceGone(t, "dbarena-kt-pending")
}

// TestKubernetesClusterRefusesWhatCannotFit: the preflight (Check)
// reads the real node's allocatable CPU and memory and refuses, in
// under 10 s and before anything is applied, a database pod no node
// holds and loader pods that each fit but not together, naming the
// request, the node and the setting; requests that fit pass.
func TestKubernetesClusterRefusesWhatCannotFit(t *testing.T) {
	testenv.Kubernetes(t)
	alloc := deploytest.Kubectl(t, "get", "nodes", "-o", "jsonpath={.items[0].status.allocatable.cpu}")
	name := deploytest.Kubectl(t, "get", "nodes", "-o", "jsonpath={.items[0].metadata.name}")
	cores, err := strconv.ParseFloat(strings.TrimSuffix(alloc, "m"), 64)
	require.NoError(t, err, alloc)
	if strings.HasSuffix(alloc, "m") {
		cores /= 1000
	}
	p := kubernetes.Provider{}
	check := func(cpus float64, opts map[string]string) (error, time.Duration) {
		start := time.Now()
		err := p.Check(deploy.Request{Name: "kt-fit", Database: "postgres", CPUs: cpus, MemoryBytes: 256 << 20,
			WorkDir: t.TempDir(), Options: localImages(opts)})
		return err, time.Since(start)
	}
	err, took := check(cores+0.5, nil)
	require.Less(t, took, 10*time.Second)
	require.ErrorContains(t, err, fmt.Sprintf("kubernetes: kt-fit: each database pod requests %s CPUs and 0.2 GiB, which no node can hold: the largest, %s, has %s CPUs and ",
		strconv.FormatFloat(cores+0.5, 'f', -1, 64), name, strconv.FormatFloat(cores, 'f', -1, 64)))
	require.ErrorContains(t, err, "allocatable; lower deploy.cpus and deploy.memory, or deploy on bigger nodes")
	half := strconv.FormatFloat(cores/2+0.1, 'f', -1, 64)
	err, took = check(0.1, map[string]string{"loaders": "2", "loader_cpus": half})
	require.Less(t, took, 10*time.Second)
	require.ErrorContains(t, err, "(1 database pod, 2 loader pods), more than the cluster's 1 node allocatable")
	err, _ = check(0.1, nil)
	require.NoError(t, err, "half a core and a quarter fit")
	require.Empty(t, deploytest.Kubectl(t, "get", "namespace", "dbarena-kt-fit", "--ignore-not-found", "-o", "name"), "nothing applied")
}

// TestKubernetesClusterNotReadyLogTail runs PostgreSQL's target from the
// Redis image: the container runs, its readiness probe (pg_isready) never
// passes, and the error ends with the tail of the container's log.
func TestKubernetesClusterNotReadyLogTail(t *testing.T) {
	testenv.Kubernetes(t)
	_, err := kubernetes.Provider{}.Up(context.Background(), deploy.Request{Name: "kt-unready", Database: "postgres",
		WorkDir: t.TempDir(), Options: localImages(map[string]string{"image": "dbarena.local/redis:7.0", "ready_timeout": "15s"})})
	require.Error(t, err)
	require.ErrorContains(t, err, "pod db-0 is Running (Ready: ContainersNotReady")
	require.ErrorContains(t, err, "log tail:")
	require.ErrorContains(t, err, "Ready to accept connections", "Redis's own log")
	deploytest.RequireNamespaceGone(t, "dbarena-kt-unready")
}

// TestKubernetesClusterCrashLoop runs PostgreSQL's target from the plain
// Debian image, whose shell exits at once: the container is restarted
// and restarted, and the wait ends at the second restart rather than at
// the five-minute timeout.
func TestKubernetesClusterCrashLoop(t *testing.T) {
	testenv.Kubernetes(t)
	start := time.Now()
	_, err := kubernetes.Provider{}.Up(context.Background(), deploy.Request{Name: "kt-crash", Database: "postgres",
		WorkDir: t.TempDir(), Options: localImages(map[string]string{"image": "dbarena.local/debian:12"})})
	require.Error(t, err)
	require.Less(t, time.Since(start), 2*time.Minute)
	require.ErrorContains(t, err, "statefulset/db not ready: pod db-0 keeps crashing")
	require.ErrorContains(t, err, "exit code 0")
	deploytest.RequireNamespaceGone(t, "dbarena-kt-crash")
}

// TestKubernetesClusterBadImage names an image the kubelet cannot parse:
// the container can never start, and the wait ends at once, naming the
// reason, rather than at the timeout.
func TestKubernetesClusterBadImage(t *testing.T) {
	testenv.Kubernetes(t)
	start := time.Now()
	_, err := kubernetes.Provider{}.Up(context.Background(), deploy.Request{Name: "kt-badimage", Database: "redis", WorkDir: t.TempDir(),
		Options: localImages(map[string]string{"image": "dbarena.local/Not_Valid:1"})})
	require.Error(t, err)
	require.Less(t, time.Since(start), time.Minute)
	require.ErrorContains(t, err, "statefulset/db not ready: pod db-0 cannot start container db (InvalidImageName)")
	deploytest.RequireNamespaceGone(t, "dbarena-kt-badimage")
}

// TestKubernetesClusterInterruptedApply cancels the deployment while it
// waits for the rollout, as Ctrl-C does: Up returns at once and deletes
// what it applied.
func TestKubernetesClusterInterruptedApply(t *testing.T) {
	testenv.Kubernetes(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancel once the StatefulSet exists: the rollout wait is under way.
		for ctx.Err() == nil {
			if out, _ := exec.Command("kubectl", "-n", "dbarena-kt-cancel", "get", "statefulset", "db", "--ignore-not-found", "-o", "name").Output(); len(out) > 0 {
				cancel()
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	start := time.Now()
	_, err := kubernetes.Provider{}.Up(ctx, deploy.Request{Name: "kt-cancel", Database: "postgres", WorkDir: t.TempDir(),
		Options: localImages(nil)})
	cancel()
	require.ErrorIs(t, err, context.Canceled, "the wait ends for the interrupt, not for a failure")
	require.Less(t, time.Since(start), 60*time.Second)
	deploytest.RequireNamespaceGone(t, "dbarena-kt-cancel")
}

// TestKubernetesClusterAcceptsEveryRendering renders every database of
// the catalogue that the provider runs, as one pod and, where it
// clusters, as three, and has the real API server check the manifests
// (kubectl apply --dry-run=server): every field and value must pass its
// validation, not only parse.
func TestKubernetesClusterAcceptsEveryRendering(t *testing.T) {
	testenv.Kubernetes(t)
	for _, sh := range deploytest.Shapes(deploy.Kubernetes) {
		t.Run(sh.Name(), func(t *testing.T) {
			dir := t.TempDir()
			m, err := kubernetes.Write(deploy.Request{Name: "dry-" + sh.Name(), Database: sh.Database, Nodes: sh.Nodes, CPUs: 2, MemoryBytes: 4 << 30,
				Options: map[string]string{"password": "s3cret"}}, dir)
			require.NoError(t, err)
			// The namespace for real: a dry run creates nothing, and the
			// objects in it would find no namespace.
			ns := m.Options.Namespace
			deploytest.Kubectl(t, "create", "namespace", ns)
			t.Cleanup(func() { _ = exec.Command("kubectl", "delete", "namespace", ns, "--wait=false").Run() })
			deploytest.Kubectl(t, "apply", "--dry-run=server", "-f", filepath.Join(dir, "manifests.yaml"))
			secret := filepath.Join(dir, "secret.yaml")
			require.NoError(t, os.WriteFile(secret, secretYAML(t, m), 0o600))
			deploytest.Kubectl(t, "apply", "--dry-run=server", "-f", secret)
		})
	}
}

// secretYAML is the target's Secret, which the provider applies from
// memory and never writes.
func secretYAML(t *testing.T, m *kubernetes.Manifests) []byte {
	t.Helper()
	require.NotNil(t, m.Secret)
	b, err := yaml.Marshal(m.Secret)
	require.NoError(t, err)
	return b
}
