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
// private engine: PostgreSQL in a container standing in for a VM, and a
// three-node Cassandra cluster (replication factor 3, every write at
// ALL: the three nodes form one ring, not three clusters), each with
// two loader containers the load and the run are driven on over a real
// ssh (every record inserted, the run without errors), node_exporter
// scraped on every host Terraform made into sysmetrics.csv, the report
// written, and nothing of either left on the engine after the
// teardown's destroy.
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
  - name: tfcass
    database: cassandra
    properties: {cql.replication.factor: 3, cql.consistency.read: QUORUM, cql.consistency.write: ALL}
    deploy:
      provider: terraform
      nodes: 3
      options: {cloud: docker, image: dbarena.local/cassandra:5.0, loaders: 2, ssh_public_key: "${file:%s.pub}", ssh_identity: "%s"}
workloads: [c]
run:
  duration: 4s
  threads: 2
`, key, key, key, key)), 0o644))
	d, rows := runOK(t, file, "--loader-binary", bin, "--work-dir", dir)
	for target, hosts := range map[string][]string{
		"tfrun":  {"tfrun", "tfrun-loader-1", "tfrun-loader-2"},
		"tfcass": {"tfcass-1", "tfcass-2", "tfcass-3", "tfcass-loader-1", "tfcass-loader-2"},
	} {
		load, ok := rows[target+".load.1"]
		require.True(t, ok, "trials: %v", d.Trials)
		require.EqualValues(t, 2000, load.Operations, "%s: the loader containers inserted every record", target)
		c, ok := rows[target+".c"]
		require.True(t, ok)
		require.Zero(t, c.Errors, target)
		require.Positive(t, c.Operations, target)
		for _, host := range hosts {
			n := 0
			for _, r := range d.Sys {
				if r.Host == host && r.Trial == target+".c" && r.CPUPercent >= 0 {
					n++
				}
			}
			require.GreaterOrEqual(t, n, 2, "node_exporter rows of %s during %s.c", host, target)
		}
		filter := "label=dbarena.terraform=" + target
		for _, what := range [][]string{{"ps", "-aq"}, {"network", "ls", "-q"}, {"volume", "ls", "-q"}} {
			require.Empty(t, deploytest.Docker(t, append(what, "--filter", filter)...), "%s: %s left", target, strings.Join(what, " "))
		}
	}
	_, err := os.Stat(filepath.Join(d.Dir, "report.html"))
	require.NoError(t, err)
}
