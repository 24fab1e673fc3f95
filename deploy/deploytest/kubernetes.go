package deploytest

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Kubectl runs kubectl (the one on PATH: testenv.Kubernetes puts the
// test cluster's first) and returns its trimmed output, failing the test
// on error.
func Kubectl(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command("kubectl", args...).CombinedOutput()
	require.NoError(t, err, "kubectl %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

// RequireNamespaceGone waits, up to two minutes, until the namespace ns
// and every persistent volume that was bound to a claim in it are
// deleted: a teardown deletes the namespace without waiting, and the
// cluster removes its pods, claims and volumes after.
func RequireNamespaceGone(t testing.TB, ns string) {
	t.Helper()
	require.Eventually(t, func() bool {
		out, err := exec.Command("kubectl", "get", "namespace", ns, "--ignore-not-found", "-o", "name").CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "" {
			return false
		}
		pvs, err := exec.Command("kubectl", "get", "pv", "-o", "jsonpath={.items[*].spec.claimRef.namespace}").CombinedOutput()
		return err == nil && !strings.Contains(" "+string(pvs)+" ", " "+ns+" ")
	}, 2*time.Minute, time.Second, "namespace %s, or a volume of its claims, left behind", ns)
}
