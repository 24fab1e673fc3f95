package terraform_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/deploytest"
	"github.com/dbarena/dbarena/deploy/terraform"
)

// These tests apply the docker cloud's module for real: Terraform (the
// machine's, or tofu) with the Docker provider from the mirror that
// scripts/terraform-provider-docker built, on the private engine of
// scripts/docker, whose images stand in for the VMs. Every name starts
// with TestDockerEngine, which the test command runs in its Docker step.

// dockerCloud points the test at the engine and the provider mirror
// (deploytest.TerraformDocker), and returns the options of a
// docker-cloud target with a fresh ssh key.
func dockerCloud(t *testing.T, more map[string]string) map[string]string {
	t.Helper()
	pub, key := deploytest.TerraformDocker(t)
	o := map[string]string{"cloud": "docker", "image": deploy.LocalImage, "ssh_public_key": pub, "ssh_identity": key}
	for k, v := range more {
		o[k] = v
	}
	return o
}

// requireNothingLeft checks that the engine holds no container, network
// or volume of the target name.
func requireNothingLeft(t *testing.T, name string) {
	t.Helper()
	filter := "label=dbarena.terraform=" + name
	require.Empty(t, deploytest.Docker(t, "ps", "-aq", "--filter", filter), "containers left")
	require.Empty(t, deploytest.Docker(t, "network", "ls", "-q", "--filter", filter), "networks left")
	require.Empty(t, deploytest.Docker(t, "volume", "ls", "-q", "--filter", filter), "volumes left")
}

// TestDockerEngineTerraformUpAndDown applies the docker module for real:
// init from the provider mirror (no registry), apply, the outputs as the
// real tool prints them, PostgreSQL answering at its address, two loader
// containers reached over a real ssh with the key given, node_exporter
// answering on every host Terraform made, and destroy leaving nothing.
func TestDockerEngineTerraformUpAndDown(t *testing.T) {
	opts := dockerCloud(t, map[string]string{"loaders": "2"})
	ctx := context.Background()
	start := time.Now()
	d, err := terraform.Provider{ReadyTimeout: 2 * time.Minute}.Up(ctx, deploy.Request{Name: "tfd", Database: "postgres", Options: opts, WorkDir: t.TempDir()})
	require.NoError(t, err)
	t.Logf("applied and ready in %s", time.Since(start).Round(time.Second))
	down := false
	t.Cleanup(func() {
		if !down {
			_ = d.Down(context.Background())
		}
	})

	conn, err := pgx.Connect(ctx, d.Properties()["postgres.url"])
	require.NoError(t, err, d.Properties())
	var one int
	require.NoError(t, conn.QueryRow(ctx, "SELECT 1").Scan(&one))
	require.NoError(t, conn.Close(ctx))

	lm := d.(deploy.LoadMachines)
	cmds := lm.LoaderCommands()
	require.Len(t, cmds, 2)
	var names []string
	for _, cmd := range cmds {
		out, err := exec.Command(cmd[0], append(cmd[1:], "hostname")...).CombinedOutput()
		require.NoError(t, err, string(out))
		names = append(names, strings.TrimSpace(string(out)))
	}
	require.ElementsMatch(t, []string{"loader-1", "loader-2"}, names, "each loader container over ssh")
	require.NotEqual(t, d.Properties()["postgres.url"], "", "the loaders' address")

	hosts := d.Hosts()
	require.Len(t, hosts, 3, "the database and two loaders")
	for _, h := range hosts {
		resp, err := http.Get(h.MetricsURL)
		require.NoError(t, err, h.Name)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Contains(t, string(body), "node_cpu_seconds_total", "node_exporter on %s", h.Name)
	}

	require.NoError(t, d.Down(ctx))
	down = true
	requireNothingLeft(t, "tfd")
}

// TestDockerEngineTerraformFailedApplyDestroys: an apply that fails
// half-way (the database's image is not on the engine, after the
// deployment's network was created, seen on the engine while apply ran)
// is destroyed: the engine holds nothing of it after.
func TestDockerEngineTerraformFailedApplyDestroys(t *testing.T) {
	opts := dockerCloud(t, map[string]string{"image": "dbarena.local/no-such-image:1", "loaders": "1"})
	seen := make(chan bool, 1)
	done := make(chan struct{})
	go func() {
		for {
			out, _ := exec.Command("docker", "network", "ls", "-q", "--filter", "label=dbarena.terraform=tffail").Output()
			if len(strings.TrimSpace(string(out))) > 0 {
				seen <- true
				return
			}
			select {
			case <-done:
				seen <- false
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	_, err := terraform.Provider{ReadyTimeout: time.Minute}.Up(context.Background(), deploy.Request{Name: "tffail", Database: "postgres", Options: opts, WorkDir: t.TempDir()})
	close(done)
	require.Error(t, err)
	require.ErrorContains(t, err, "terraform: tffail: apply:")
	t.Logf("%v", err)
	require.True(t, <-seen, "the network existed before the apply failed: it failed half-way")
	requireNothingLeft(t, "tffail")
}

// TestDockerEngineTerraformNeverAnswersDestroys: a database that never
// answers on its port (Redis's image run as PostgreSQL's target: it
// listens on 6379, never on 5432) ends the wait at the ready timeout,
// and the deployment is destroyed.
func TestDockerEngineTerraformNeverAnswersDestroys(t *testing.T) {
	opts := dockerCloud(t, map[string]string{"image": "dbarena.local/redis:7.0", "loaders": "0"})
	start := time.Now()
	_, err := terraform.Provider{ReadyTimeout: 10 * time.Second}.Up(context.Background(), deploy.Request{Name: "tfmute", Database: "postgres", Options: opts, WorkDir: t.TempDir()})
	require.Error(t, err)
	t.Logf("after %s: %v", time.Since(start).Round(time.Second), err)
	require.ErrorContains(t, err, "did not answer within 10s")
	requireNothingLeft(t, "tfmute")
}

// TestDockerEngineTerraformInterruptedApplyDestroys: Ctrl-C while apply
// runs (once its network exists) interrupts the tool, which records
// what it made, and the destroy that follows leaves nothing.
func TestDockerEngineTerraformInterruptedApplyDestroys(t *testing.T) {
	opts := dockerCloud(t, map[string]string{"loaders": "2"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			out, _ := exec.Command("docker", "network", "ls", "-q", "--filter", "label=dbarena.terraform=tfint").Output()
			if len(strings.TrimSpace(string(out))) > 0 {
				break
			}
		}
		cancel()
	}()
	_, err := terraform.Provider{ReadyTimeout: time.Minute}.Up(ctx, deploy.Request{Name: "tfint", Database: "postgres", Options: opts, WorkDir: t.TempDir()})
	require.Error(t, err)
	t.Logf("%v", err)
	requireNothingLeft(t, "tfint")
}

// TestDockerEngineTerraformDeployDown: a state kept (the run could not
// tear down) is destroyed by hand as `dbarena deploy down DIR` does
// (Provider.Destroy), leaving nothing and removing the directory.
func TestDockerEngineTerraformDeployDown(t *testing.T) {
	opts := dockerCloud(t, map[string]string{"loaders": "1"})
	work := t.TempDir()
	d, err := terraform.Provider{ReadyTimeout: 2 * time.Minute}.Up(context.Background(), deploy.Request{Name: "tfkeep", Database: "redis", Options: opts, WorkDir: work})
	require.NoError(t, err)
	require.NotEmpty(t, deploytest.Docker(t, "ps", "-q", "--filter", "label=dbarena.terraform=tfkeep"))
	require.Equal(t, "save", deploytest.Docker(t, "exec", "dbarena-tfkeep-db-1", "redis-cli", "config", "get", "save"),
		`--save "" reached Redis as no snapshots (an empty value after "save")`)
	dirs, err := filepath.Glob(filepath.Join(work, "dbarena-terraform-tfkeep-*"))
	require.NoError(t, err)
	require.Len(t, dirs, 1)
	require.Contains(t, d.(deploy.Teardown).LeftBehind(), dirs[0])
	require.NoError(t, terraform.Provider{}.Destroy(context.Background(), dirs[0], ""))
	requireNothingLeft(t, "tfkeep")
	_, err = os.Stat(dirs[0])
	require.True(t, os.IsNotExist(err), "the state directory is removed")
}
