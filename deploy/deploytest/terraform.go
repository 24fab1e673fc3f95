package deploytest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
)

// TerraformDocker points the test at the private Docker Engine and at
// the Terraform CLI configuration whose provider mirror holds the Docker
// provider (DBARENA_TEST_TF_CLI_CONFIG, which scripts/docker start
// prints), and makes an ssh key for the loader containers: it returns
// the public key's text and the private key's file. It ends the test
// through testenv.Missing when either is not there.
func TerraformDocker(t testing.TB) (publicKey, identity string) {
	t.Helper()
	testenv.Docker(t)
	config := os.Getenv("DBARENA_TEST_TF_CLI_CONFIG")
	if config == "" {
		testenv.Missing(t, "DBARENA_TEST_TF_CLI_CONFIG is not set: scripts/docker start prints it (scripts/terraform-provider-docker)")
		return "", ""
	}
	t.Setenv("TF_CLI_CONFIG_FILE", config)
	testenv.Program(t, "ssh")
	identity = filepath.Join(t.TempDir(), "id_ed25519")
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", identity).CombinedOutput()
	require.NoError(t, err, string(out))
	pub, err := os.ReadFile(identity + ".pub")
	require.NoError(t, err)
	return strings.TrimSpace(string(pub)), identity
}
