package cli

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy/deploytest"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/results"
)

// These tests run `dbarena run` against the real single-node cluster of
// scripts/kubernetes, with the images it built; their names start with
// TestKubernetesCluster, which the test command runs in a step of its
// own.

// kubeTarget is an experiment target on the test cluster: the image
// built here for database (image: local), two loader pods, small enough
// that two targets fit the 2-CPU node at once. Its namespace is
// dbarena-NAME.
func kubeTarget(name, database string) string {
	return fmt.Sprintf(`  - name: %s
    database: %s
    deploy:
      provider: kubernetes
      cpus: 0.5
      memory: 512MiB
      options: {image: local, loader_pod_image: "dbarena.local/debian:12", loader_cpus: "0.2", loaders: 2, storage: 1Gi}
`, name, database)
}

// kubeLoader waits up to 4 minutes for the kubectl exec that runs the
// run step's loader index (as "1/2") in namespace ns, and returns the pod
// it runs in, or an error that says it never came.
func kubeLoader(ns, index string) (string, error) {
	p, err := waitLoader(4*time.Minute, index, "-n "+ns+" exec -i ")
	if err != nil {
		return "", err
	}
	for i, a := range p.args {
		if a == "-i" && i+1 < len(p.args) {
			return p.args[i+1], nil
		}
	}
	return "", fmt.Errorf("no pod in %q", strings.Join(p.args, " "))
}

// TestKubernetesClusterRun compares PostgreSQL and Redis deployed by the
// Kubernetes provider, two loader pods each driven through kubectl exec:
// both trials measure, the database pods' CPU and memory reach
// sysmetrics.csv, and teardown leaves neither namespace nor volume.
func TestKubernetesClusterRun(t *testing.T) {
	testenv.Kubernetes(t)
	bin := buildDbarena(t)
	file := targetsExperiment(t, "kube", "{duration: 6s, threads: 4}", kubeTarget("kpg", "postgres"), kubeTarget("krd", "redis"))
	res := filepath.Join(t.TempDir(), "r")
	code, out, errs := run(t, context.Background(), "run", file, "--results", res, "--loader-binary", bin)
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	d, err := results.Read(res)
	require.NoError(t, err)
	rows := rowsByID(d)
	for _, id := range []string{"kpg.c", "krd.c"} {
		require.Positive(t, measuredRow(t, rows, id).Operations, id)
	}
	for _, host := range []string{"kpg", "krd"} {
		var memory, cpu int
		for _, s := range d.Sys {
			if s.Host != host {
				continue
			}
			require.Equal(t, "database", s.Role)
			if !math.IsNaN(s.MemoryBytes) && s.MemoryBytes > 1<<20 {
				memory++
			}
			if !math.IsNaN(s.CPUPercent) {
				cpu++
			}
		}
		require.Positive(t, memory, "the pod %s's memory in sysmetrics.csv", host)
		require.Positive(t, cpu, "the pod %s's CPU in sysmetrics.csv", host)
	}
	deploytest.RequireNamespaceGone(t, "dbarena-kpg")
	deploytest.RequireNamespaceGone(t, "dbarena-krd")
}

// TestKubernetesClusterLoaderPodDeleted deletes one of two loader pods in
// the measured window: the trial keeps what both loaders sent, carries
// the loader-lost flag and fails by the error policy; nothing is left.
func TestKubernetesClusterLoaderPodDeleted(t *testing.T) {
	testenv.Kubernetes(t)
	bin := buildDbarena(t)
	file := targetsExperiment(t, "kubelose", "{duration: 12s, threads: 2}", kubeTarget("klose", "redis"))
	res := filepath.Join(t.TempDir(), "r")
	acted := make(chan error, 1)
	go func() {
		pod, err := kubeLoader("dbarena-klose", "1/2")
		if err == nil {
			// Into the measured window: the loaders start together a
			// few seconds after they are launched.
			time.Sleep(7 * time.Second)
			err = exec.Command("kubectl", "-n", "dbarena-klose", "delete", "pod", pod, "--grace-period=0", "--force", "--wait=false").Run()
		}
		acted <- err
	}()
	code, out, errs := run(t, context.Background(), "run", file, "--results", res, "--loader-binary", bin)
	require.NoError(t, <-acted)
	require.Equal(t, ExitFailure, code, "%s\n%s", out, errs)
	d, err := results.Read(res)
	require.NoError(t, err)
	row, ok := rowsByID(d)["klose.c"]
	require.True(t, ok, "the trial's row is written")
	require.Equal(t, results.StatusFailed, row.Status)
	require.True(t, results.HasFlag(row.Flags, results.FlagLoaderLost), "flags: %q", row.Flags)
	require.Contains(t, row.StatusReason, "loader 1 of 2 lost")
	t.Logf("status: %s", row.StatusReason)
	require.Positive(t, row.Operations, "the healthy loader's operations are kept")
	var seconds int
	for _, p := range d.Points {
		if p.Trial == "klose.c" && p.Op == results.AllOps && !p.Warmup {
			seconds++
		}
	}
	require.GreaterOrEqual(t, seconds, 10, "the healthy loader's intervals reach the time series")
	deploytest.RequireNamespaceGone(t, "dbarena-klose")
}

// TestKubernetesClusterInterruptedRun interrupts a run in its measured
// trial, as Ctrl-C does: dbarena exits as interrupted and deletes the
// namespace.
func TestKubernetesClusterInterruptedRun(t *testing.T) {
	testenv.Kubernetes(t)
	bin := buildDbarena(t)
	file := targetsExperiment(t, "kubeint", "{duration: 60s, threads: 2}", kubeTarget("kint", "redis"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	acted := make(chan error, 1)
	go func() {
		_, err := kubeLoader("dbarena-kint", "1/2")
		if err == nil {
			time.Sleep(5 * time.Second)
		}
		cancel()
		acted <- err
	}()
	start := time.Now()
	code, out, errs := run(t, ctx, "run", file, "--results", filepath.Join(t.TempDir(), "r"), "--loader-binary", bin)
	require.NoError(t, <-acted)
	require.Equal(t, ExitInterrupted, code, "%s\n%s", out, errs)
	require.Less(t, time.Since(start), 3*time.Minute)
	deploytest.RequireNamespaceGone(t, "dbarena-kint")
}

// TestKubernetesClusterDefaultLoaderRefused: a new user's target on a
// node of this machine's size, with the loader's default request (2
// CPUs) beside a database of half a core, cannot fit: `dbarena run`
// refuses it at the preflight, before anything deploys, in seconds,
// naming the requests and the node (it waited 5 minutes for a pod
// that would never be scheduled).
func TestKubernetesClusterDefaultLoaderRefused(t *testing.T) {
	testenv.Kubernetes(t)
	alloc := deploytest.Kubectl(t, "get", "nodes", "-o", "jsonpath={.items[0].status.allocatable.cpu}")
	if alloc != "2" && alloc != "2000m" {
		testenv.Missing(t, "this test's request fits a node of 2 CPUs only; the node has "+alloc)
	}
	file := targetsExperiment(t, "kubefit", "{duration: 6s, threads: 4}", `  - name: kfit
    database: redis
    deploy:
      provider: kubernetes
      cpus: 0.5
      options: {image: local, loader_pod_image: "dbarena.local/debian:12", storage: 1Gi}
`)
	start := time.Now()
	code, out, errs := run(t, context.Background(), "run", file, "--results", filepath.Join(t.TempDir(), "r"))
	require.Equal(t, ExitFailure, code, "%s\n%s", out, errs)
	require.Less(t, time.Since(start), 10*time.Second)
	require.Contains(t, errs, "dbarena: preflight (nothing was started): kubernetes: kfit: its pods request 2.5 CPUs and 1.0 GiB in all (1 database pod, 1 loader pod), more than the cluster's 1 node allocatable (2 CPUs and ")
	require.NotContains(t, errs, "deploying")
	require.Empty(t, deploytest.Kubectl(t, "get", "namespace", "dbarena-kfit", "--ignore-not-found", "-o", "name"), "nothing applied")
}
