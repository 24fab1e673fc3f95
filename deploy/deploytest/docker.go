package deploytest

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Docker runs the docker client and returns its trimmed output, failing
// the test on error.
func Docker(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command("docker", args...).CombinedOutput()
	require.NoError(t, err, "docker %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

// RequireProjectGone waits, up to a minute, until the Compose project
// has no container, network or volume left on the engine.
func RequireProjectGone(t testing.TB, project string) {
	t.Helper()
	label := "label=com.docker.compose.project=" + project
	var left string
	require.Eventually(t, func() bool {
		left = ""
		for _, what := range [][]string{{"ps", "-a"}, {"network", "ls"}, {"volume", "ls"}} {
			out, err := exec.Command("docker", append(what, "-q", "--filter", label)...).CombinedOutput()
			if err != nil {
				left = err.Error()
				return false
			}
			if s := strings.TrimSpace(string(out)); s != "" {
				left += what[0] + ": " + s + " "
			}
		}
		return left == ""
	}, time.Minute, 500*time.Millisecond, "project %s left behind: %s", project, left)
}
