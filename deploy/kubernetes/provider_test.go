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

// fakeKubectl stands in for kubectl, as no cluster exists here: it logs
// each call with its standard input's first line, and port-forward
// prints the line kubectl prints, then waits to be killed.
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
		WorkDir: t.TempDir(), Options: map[string]string{"password": "s3cret", "context": "bench"}})
	require.NoError(t, err)
	require.Equal(t, "postgres://postgres@127.0.0.1:41234/ycsb?sslmode=disable", d.Properties()["postgres.url"])
	require.NoError(t, d.Down(context.Background()))
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	calls := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, calls, 5)
	require.Regexp(t, `^--context bench apply -f \S+/manifests.yaml --selector app.kubernetes.io/name=postgres$`, calls[0], "the database only, not the loader Job")
	require.Equal(t, "--context bench apply -f - <1>", calls[1], "the Secret from standard input")
	require.Regexp(t, `rollout status statefulset/db --timeout 300s$`, calls[2])
	require.Regexp(t, `port-forward svc/db :5432$`, calls[3])
	require.Equal(t, "--context bench delete namespace dbarena-pg --wait=false --ignore-not-found", calls[4])
}

func TestFailedRolloutDeletes(t *testing.T) {
	bin, log := fakeKubectl(t, true)
	_, err := kubernetes.Provider{Kubectl: bin}.Up(context.Background(), deploy.Request{Name: "r", Database: "redis", WorkDir: t.TempDir()})
	require.ErrorContains(t, err, "timed out waiting")
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	require.Contains(t, string(b), "delete namespace dbarena-r", "what was applied is deleted")

	_, err = kubernetes.Provider{Kubectl: bin}.Up(context.Background(), deploy.Request{Name: "c", Database: "cassandra", Nodes: 3})
	require.ErrorContains(t, err, "only one node is reachable")
}
