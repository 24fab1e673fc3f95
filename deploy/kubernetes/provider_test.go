package kubernetes_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/kubernetes"
)

// fakeKubectl stands in for kubectl, as no cluster exists here: it logs
// each call with its standard input's first line, port-forward prints
// the line kubectl prints, then waits to be killed, get pods names two
// loader pods, and exec runs its command here.
func fakeKubectl(t *testing.T, failRollout bool) (bin, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls")
	fail := "0"
	if failRollout {
		fail = "1"
	}
	script := `#!/bin/sh
case "$*" in
  *"-f -"*) echo "$* <$(grep -c s3cret -)>" >> ` + log + ` ;;
  *) echo "$*" >> ` + log + ` ;;
esac
case "$*" in
  *"rollout status"*) [ ` + fail + ` = 1 ] && { echo "timed out waiting for the condition" >&2; exit 1; } ;;
  *port-forward*) echo "Forwarding from 127.0.0.1:41234 -> 5432"; exec sleep 60 ;;
  *"get pods"*) printf 'loaders-7c9-a loaders-7c9-b' ;;
  *" exec "*) while [ "$1" != "--" ]; do shift; done; shift; exec "$@" ;;
esac
exit 0
`
	bin = filepath.Join(dir, "kubectl")
	require.NoError(t, os.WriteFile(bin, []byte(script), 0o755))
	return bin, log
}

func TestUpAndDown(t *testing.T) {
	bin, log := fakeKubectl(t, false)
	d, err := kubernetes.Provider{Kubectl: bin}.Up(context.Background(), deploy.Request{Name: "pg", Database: "postgres",
		WorkDir: t.TempDir(), Options: map[string]string{"password": "s3cret", "context": "bench", "loaders": "2"}})
	require.NoError(t, err)
	require.Equal(t, "postgres://postgres@127.0.0.1:41234/ycsb?sslmode=disable", d.Properties()["postgres.url"])
	lm, ok := d.(deploy.LoadMachines)
	require.True(t, ok)
	require.Equal(t, "postgres://postgres@db.dbarena-pg.svc.cluster.local:5432/ycsb?sslmode=disable", lm.LoaderProperties()["postgres.url"],
		"the loader pods reach the database by its Service")
	cmds := lm.LoaderCommands()
	require.Len(t, cmds, 2)
	require.Equal(t, []string{bin, "--context", "bench", "-n", "dbarena-pg", "exec", "-i", "loaders-7c9-b", "-c", "loader", "--"}, cmds[1])
	// The prefix really runs a command, standard input attached.
	cmd := exec.Command(cmds[0][0], append(cmds[0][1:], "cat")...)
	cmd.Stdin = strings.NewReader("through the pod")
	out, err := cmd.Output()
	require.NoError(t, err)
	require.Equal(t, "through the pod", string(out))
	require.NoError(t, d.Down(context.Background()))
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	calls := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, calls, 9)
	require.Regexp(t, `^--context bench apply -f \S+/manifests.yaml --selector app.kubernetes.io/name=postgres$`, calls[0], "the database only, not the loader Job")
	require.Equal(t, "--context bench apply -f - <1>", calls[1], "the Secret from standard input")
	require.Regexp(t, `rollout status statefulset/db --timeout 300s$`, calls[2])
	require.Regexp(t, `port-forward svc/db :5432$`, calls[3])
	require.Regexp(t, `apply -f \S+/manifests.yaml --selector app.kubernetes.io/name=dbarena-loader-pod$`, calls[4], "then the loader pods")
	require.Regexp(t, `rollout status deployment/loaders --timeout 300s$`, calls[5])
	require.Regexp(t, `get pods -l app.kubernetes.io/name=dbarena-loader-pod --field-selector status.phase=Running`, calls[6])
	require.Regexp(t, `exec -i loaders-7c9-a -c loader -- cat$`, calls[7])
	require.Equal(t, "--context bench delete namespace dbarena-pg --wait=false --ignore-not-found", calls[8])
}

func TestClusterThroughOneNode(t *testing.T) {
	bin, _ := fakeKubectl(t, false)
	d, err := kubernetes.Provider{Kubectl: bin}.Up(context.Background(), deploy.Request{Name: "c", Database: "cassandra", Nodes: 3,
		WorkDir: t.TempDir(), Options: map[string]string{"loaders": "2"}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Down(context.Background()) })
	require.Equal(t, map[string]string{"cql.hosts": "127.0.0.1", "cql.port": "41234", "cql.discovery": "false", "cql.replication.factor": "3"},
		d.Properties(), "through the forwarded port the driver must not look for the pods")
	require.Equal(t, map[string]string{"cql.hosts": "db.dbarena-c.svc.cluster.local", "cql.port": "9042", "cql.replication.factor": "3"},
		d.(deploy.LoadMachines).LoaderProperties())

	d, err = kubernetes.Provider{Kubectl: bin}.Up(context.Background(), deploy.Request{Name: "crdb", Database: "cockroachdb", Nodes: 3,
		WorkDir: t.TempDir(), Options: map[string]string{"loaders": "2"}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Down(context.Background()) })
	require.Equal(t, "db-0.db.dbarena-crdb.svc.cluster.local:26257,db-1.db.dbarena-crdb.svc.cluster.local:26257,db-2.db.dbarena-crdb.svc.cluster.local:26257",
		d.(deploy.LoadMachines).LoaderProperties()["postgres.hosts"], "the loaders' workers spread over the pods")
}

func TestFailedRolloutDeletes(t *testing.T) {
	bin, log := fakeKubectl(t, true)
	_, err := kubernetes.Provider{Kubectl: bin}.Up(context.Background(), deploy.Request{Name: "r", Database: "redis", WorkDir: t.TempDir()})
	require.ErrorContains(t, err, "timed out waiting")
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	require.Contains(t, string(b), "delete namespace dbarena-r", "what was applied is deleted")
}
