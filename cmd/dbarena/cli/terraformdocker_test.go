package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy/deploytest"
)

// TestDockerEngineTerraformRun runs a whole experiment on the Terraform
// provider's docker cloud, applied for real on the test command's
// private engine: PostgreSQL in a container standing in for a VM, two
// loader containers the load and the run are driven on over a real ssh
// (every record inserted, the run without errors), node_exporter scraped
// on all three hosts into sysmetrics.csv, the report written, and
// nothing of it left on the engine after the teardown's destroy.
func TestDockerEngineTerraformRun(t *testing.T) {
	_, key := deploytest.TerraformDocker(t)
	dir := t.TempDir()
	bin := buildDbarena(t)
	file := filepath.Join(dir, "tf.yaml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`name: tfdocker
properties: {recordcount: 2000}
targets:
  - name: tfrun
    database: postgres
    deploy:
      provider: terraform
      options: {cloud: docker, image: local, loaders: 2, ssh_public_key: "${file:%s.pub}", ssh_identity: "%s"}
workloads: [c]
run:
  duration: 4s
  threads: 2
`, key, key)), 0o644))
	d, rows := runOK(t, file, "--loader-binary", bin, "--work-dir", dir)
	load, ok := rows["tfrun.load.1"]
	require.True(t, ok, "trials: %v", d.Trials)
	require.EqualValues(t, 2000, load.Operations, "the loader containers inserted every record")
	c, ok := rows["tfrun.c"]
	require.True(t, ok)
	require.Zero(t, c.Errors)
	require.Positive(t, c.Operations)
	for _, host := range []string{"tfrun", "tfrun-loader-1", "tfrun-loader-2"} {
		n := 0
		for _, r := range d.Sys {
			if r.Host == host && r.Trial == "tfrun.c" && r.CPUPercent >= 0 {
				n++
			}
		}
		require.GreaterOrEqual(t, n, 2, "node_exporter rows of %s during tfrun.c", host)
	}
	_, err := os.Stat(filepath.Join(d.Dir, "report.html"))
	require.NoError(t, err)
	filter := "label=dbarena.terraform=tfrun"
	for _, what := range [][]string{{"ps", "-aq"}, {"network", "ls", "-q"}, {"volume", "ls", "-q"}} {
		require.Empty(t, deploytest.Docker(t, append(what, "--filter", filter)...), "%s left", strings.Join(what, " "))
	}
}
