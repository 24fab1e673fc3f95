package cli

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestVersionNamesTheCommitWithoutVCS builds the binary as go run and
// the Docker build do, with no VCS record, and checks that the stamp
// scripts/stamp prints names the commit; without it the commit is
// "unknown", never a wrong one.
func TestVersionNamesTheCommitWithoutVCS(t *testing.T) {
	dir := t.TempDir()
	build := func(name string, ldflags string) string {
		bin := filepath.Join(dir, name)
		out, err := exec.Command("go", "build", "-buildvcs=false", "-ldflags", ldflags, "-o", bin, "../../../cmd/dbarena").CombinedOutput()
		require.NoError(t, err, string(out))
		v, err := exec.Command(bin, "version").Output()
		require.NoError(t, err)
		return string(v)
	}
	require.Contains(t, build("plain", ""), "commit unknown")
	pkg := "github.com/dbarena/dbarena/cmd/dbarena/cli"
	require.Contains(t, build("stamped", "-X "+pkg+".stampedCommit=abc123 -X "+pkg+".stampedModified=true"), "commit abc123 (modified)")

	// The script's own stamp, where this is a git checkout.
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Log("not a git checkout: scripts/stamp prints nothing here")
		return
	}
	stamp, err := exec.Command("bash", "../../../scripts/stamp").Output()
	require.NoError(t, err)
	require.Contains(t, build("script", strings.TrimSpace(string(stamp))), "commit "+strings.TrimSpace(string(head)))
}
