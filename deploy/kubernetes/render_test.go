package kubernetes_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	sigyaml "sigs.k8s.io/yaml"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/deploytest"
	"github.com/dbarena/dbarena/deploy/kubernetes"
)

// objects splits a manifest stream and decodes each document strictly
// into its Kubernetes API type: an unknown or misspelt field, or a value
// of the wrong type, fails, as the API server's validation would.
func objects(t *testing.T, stream []byte) (ns *corev1.Namespace, svc *corev1.Service, sts *appsv1.StatefulSet, job *batchv1.Job, pods *appsv1.Deployment) {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(stream))
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return
		}
		require.NoError(t, err)
		b, err := yaml.Marshal(doc)
		require.NoError(t, err)
		var target any
		switch doc["kind"] {
		case "Namespace":
			ns = &corev1.Namespace{}
			target = ns
		case "Service":
			svc = &corev1.Service{}
			target = svc
		case "StatefulSet":
			sts = &appsv1.StatefulSet{}
			target = sts
		case "Job":
			job = &batchv1.Job{}
			target = job
		case "Deployment":
			pods = &appsv1.Deployment{}
			target = pods
		default:
			t.Fatalf("unexpected kind %v", doc["kind"])
		}
		require.NoError(t, sigyaml.UnmarshalStrict(b, target), "%v:\n%s", doc["kind"], b)
	}
}

func TestEveryDatabaseRendersValidManifests(t *testing.T) {
	for _, sh := range deploytest.Shapes(deploy.Kubernetes) {
		d, err := deploy.LookupDatabase(sh.Database)
		require.NoError(t, err)
		nodes := sh.Nodes
		req := deploy.Request{Name: "t-" + d.Name, Database: d.Name, Nodes: nodes, CPUs: 2, MemoryBytes: 4 << 30,
			Options: map[string]string{"loaders": "4", "storage_class": "local-nvme"}}
		m, err := kubernetes.Render(req)
		require.NoError(t, err, d.Name)
		y, err := m.YAML()
		require.NoError(t, err)
		ns, svc, sts, job, pods := objects(t, y)
		require.NotNil(t, ns, d.Name)
		require.Equal(t, "dbarena-t-"+d.Name, ns.Name)
		require.Equal(t, "None", svc.Spec.ClusterIP, "headless, for stable pod names")
		require.Equal(t, int32(nodes), *sts.Spec.Replicas)
		require.Equal(t, sts.Spec.Selector.MatchLabels, sts.Spec.Template.Labels, "%s: the selector matches the pods", d.Name)
		require.Equal(t, sts.Spec.Selector.MatchLabels, svc.Spec.Selector, "%s: the Service selects the pods", d.Name)
		c := sts.Spec.Template.Spec.Containers[0]
		require.NotNil(t, c.ReadinessProbe, d.Name)
		require.NotEmpty(t, c.ReadinessProbe.Exec.Command, d.Name)
		require.Equal(t, "2", c.Resources.Limits.Cpu().String(), d.Name)
		require.Equal(t, int64(4<<30), c.Resources.Limits.Memory().Value(), d.Name)
		require.Equal(t, c.Resources.Limits, c.Resources.Requests, d.Name)
		require.NotNil(t, sts.Spec.Template.Spec.Affinity.PodAntiAffinity, "%s: pods spread over nodes", d.Name)
		require.Equal(t, "local-nvme", *sts.Spec.VolumeClaimTemplates[0].Spec.StorageClassName)

		require.Equal(t, batchv1.IndexedCompletion, *job.Spec.CompletionMode, "%s: loaders take their share by index", d.Name)
		require.Equal(t, int32(4), *job.Spec.Completions)
		require.Equal(t, int32(4), *job.Spec.Parallelism)
		args := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " ")
		require.Contains(t, args, "--loader $(JOB_COMPLETION_INDEX)/4", d.Name)
		require.Contains(t, args, "svc.cluster.local", "%s: the loaders reach the Service by name", d.Name)

		require.NotNil(t, pods, "%s: loader pods for experiments", d.Name)
		require.Equal(t, int32(4), *pods.Spec.Replicas)
		require.Equal(t, pods.Spec.Selector.MatchLabels, pods.Spec.Template.Labels)
		require.Equal(t, kubernetes.LoaderPodLabel, pods.Spec.Template.Labels["app.kubernetes.io/name"])
		require.Equal(t, sts.Spec.Selector.MatchLabels, pods.Spec.Template.Spec.Affinity.PodAntiAffinity.
			PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm.LabelSelector.MatchLabels, "%s: loaders kept off the database's nodes", d.Name)
		lc := pods.Spec.Template.Spec.Containers[0]
		require.Equal(t, "2", lc.Resources.Limits.Cpu().String(), "%s: a CPU limit the loader's GOMAXPROCS follows", d.Name)
		require.Equal(t, lc.Resources.Limits, lc.Resources.Requests)
		require.Equal(t, nodes > 1, svc.Spec.PublishNotReadyAddresses, "%s: a cluster's pods find each other while starting", d.Name)
		if nodes > 1 && d.Name == "cockroachdb" {
			require.Contains(t, c.Args, "--advertise-addr=$(POD_NAME).db.dbarena-t-cockroachdb.svc.cluster.local", "a name the other pods resolve")
			var podName bool
			for _, e := range c.Env {
				podName = podName || (e.Name == "POD_NAME" && e.ValueFrom != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.name")
			}
			require.True(t, podName, "POD_NAME from the pod's metadata")
		}
		if nodes > 1 {
			words := append([]string(nil), c.Args...)
			for _, e := range c.Env {
				words = append(words, e.Value)
			}
			require.Contains(t, strings.Join(words, " "), "db-0.db.dbarena-t-"+d.Name+".svc.cluster.local", "%s: the nodes know the first pod", d.Name)
		}
	}
	_, err := kubernetes.Render(deploy.Request{Name: "pg", Database: "postgres", Nodes: 3})
	require.ErrorContains(t, err, "runs postgres as one pod")
}

func TestSecretNeverInManifests(t *testing.T) {
	req := deploy.Request{Name: "pg", Database: "postgres", Options: map[string]string{"password": "s3cret-pw"}}
	dir := t.TempDir()
	m, err := kubernetes.Write(req, dir)
	require.NoError(t, err)
	y, err := os.ReadFile(filepath.Join(dir, "manifests.yaml"))
	require.NoError(t, err)
	require.NotContains(t, string(y), "s3cret-pw", "the written manifests hold no secret")
	_, _, sts, _, _ := objects(t, y)
	var ref *corev1.SecretKeySelector
	for _, e := range sts.Spec.Template.Spec.Containers[0].Env {
		if e.Name == "POSTGRES_PASSWORD" {
			ref = e.ValueFrom.SecretKeyRef
		}
	}
	require.NotNil(t, ref, "the password reaches the pod by secretKeyRef")
	b, err := yaml.Marshal(m.Secret)
	require.NoError(t, err)
	var secret corev1.Secret
	require.NoError(t, sigyaml.UnmarshalStrict(b, &secret))
	require.Equal(t, ref.Name, secret.Name)
	require.Equal(t, "s3cret-pw", secret.StringData[ref.Key])
}

func TestRenderErrors(t *testing.T) {
	_, err := kubernetes.Render(deploy.Request{Name: "x", Database: "postgres", Options: map[string]string{"replicas": "3"}})
	require.ErrorContains(t, err, `unknown option "replicas"`)
	_, err = kubernetes.Render(deploy.Request{Name: "x", Database: "postgres", Options: map[string]string{"loaders": "0"}})
	require.ErrorContains(t, err, "option loaders: want a positive whole number")
}

func TestStrictDecodingRefusesTypos(t *testing.T) {
	var sts appsv1.StatefulSet
	err := sigyaml.UnmarshalStrict([]byte("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: x}\nspec: {replicaz: 1}\n"), &sts)
	require.ErrorContains(t, err, `unknown field "replicaz"`, "the check above is worth something only if it refuses a typo")
}
