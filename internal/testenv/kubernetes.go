package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// Kubernetes points the test at the real cluster that scripts/kubernetes
// started: KUBECONFIG names its admin kubeconfig and its kubectl comes
// first on PATH, for the test and the programs it starts. It returns that
// kubectl, or ends the test through Missing when
// DBARENA_TEST_KUBECONFIG is unset. The test command runs these tests in
// a step of their own, with the cluster up only for them.
func Kubernetes(t testing.TB) (kubectl string) {
	t.Helper()
	config := os.Getenv("DBARENA_TEST_KUBECONFIG")
	kubectl = os.Getenv("DBARENA_TEST_KUBECTL")
	if config == "" || kubectl == "" {
		Missing(t, "DBARENA_TEST_KUBECONFIG or DBARENA_TEST_KUBECTL is not set: start a cluster with scripts/kubernetes (or run scripts/test)")
		return ""
	}
	t.Setenv("KUBECONFIG", config)
	t.Setenv("PATH", filepath.Dir(kubectl)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return kubectl
}
