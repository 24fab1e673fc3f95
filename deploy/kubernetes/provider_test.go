package kubernetes_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/kubernetes"
)

// fakeKubectl stands in for kubectl for what the real cluster of the
// TestKubernetesCluster tests cannot run (three-node clusters of
// databases that have no image here): it logs each call with its
// standard input's first line, port-forward and proxy print the lines
// kubectl prints, then wait to be killed, get pods names two loader pods
// or three database pods, and exec runs its command here.
func fakeKubectl(t *testing.T) (bin, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls")
	script := `#!/bin/sh
case "$*" in
  *"-f -"*) echo "$* <$(grep -c s3cret -)>" >> ` + log + ` ;;
  *) echo "$*" >> ` + log + ` ;;
esac
case "$*" in
  *port-forward*) echo "Forwarding from 127.0.0.1:41234 -> 5432"; exec sleep 60 ;;
  proxy*|*" proxy "*) echo "Starting to serve on 127.0.0.1:41235"; exec sleep 60 ;;
  *"get statefulset/db"*) printf 3 ;;
  *"get deployment/loaders"*) printf 2 ;;
  *"get pods"*dbarena-loader-pod*) printf 'loaders-7c9-a loaders-7c9-b' ;;
  *"get pods"*) printf 'db-0 10.244.0.5 n1\ndb-1 10.244.0.6 n2\ndb-2 10.244.0.7 n3\n' ;;
  *" exec "*) while [ "$1" != "--" ]; do shift; done; shift; exec "$@" ;;
esac
exit 0
`
	bin = filepath.Join(dir, "kubectl")
	require.NoError(t, os.WriteFile(bin, []byte(script), 0o755))
	return bin, log
}

func TestClusterThroughOneNode(t *testing.T) {
	bin, _ := fakeKubectl(t)
	d, err := kubernetes.Provider{Kubectl: bin}.Up(context.Background(), deploy.Request{Name: "c", Database: "cassandra", Nodes: 3,
		WorkDir: t.TempDir(), Options: map[string]string{"loaders": "2"}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Down(context.Background()) })
	require.Equal(t, map[string]string{"cql.hosts": "127.0.0.1", "cql.port": "41234", "cql.discovery": "false", "cql.replication.factor": "3"},
		d.Properties(), "through the forwarded port the driver must not look for the pods")
	require.Equal(t, map[string]string{"cql.hosts": "10.244.0.5,10.244.0.6,10.244.0.7", "cql.port": "9042", "cql.replication.factor": "3"},
		d.(deploy.LoadMachines).LoaderProperties(), "the loaders reach every pod by its address, as the Terraform provider's reach every VM")
	require.Len(t, d.Hosts(), 3)
	require.Equal(t, deploy.Host{Name: "c-2", Pod: "dbarena-c/db-2", PodMetricsURL: "http://127.0.0.1:41235/api/v1/nodes/n3/proxy/metrics/resource"}, d.Hosts()[2])

	bin, log := fakeKubectl(t)
	work := t.TempDir()
	d, err = kubernetes.Provider{Kubectl: bin}.Up(context.Background(), deploy.Request{Name: "crdb", Database: "cockroachdb", Nodes: 3,
		WorkDir: work, Options: map[string]string{"loaders": "2", "password": "s3cret"}})
	require.NoError(t, err)
	require.Equal(t, "10.244.0.5:26257,10.244.0.6:26257,10.244.0.7:26257",
		d.(deploy.LoadMachines).LoaderProperties()["postgres.hosts"], "the loaders' workers spread over the pods")
	files := 0
	require.NoError(t, filepath.WalkDir(work, func(path string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			files++
			b, rerr := os.ReadFile(path)
			require.NoError(t, rerr)
			require.NotContains(t, string(b), "s3cret", "no file holds the password: %s", path)
		}
		return err
	}))
	require.Positive(t, files, "the manifests are written")
	require.NoError(t, d.Down(context.Background()))
	require.NoError(t, d.Down(context.Background()), "safe twice")
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	calls := string(b)
	require.Contains(t, calls, "apply -f - <1>", "the Secret from standard input")
	require.Equal(t, 1, strings.Count(calls, "delete namespace dbarena-crdb"), "deleted once")
}
