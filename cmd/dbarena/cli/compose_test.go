package cli

import (
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy/deploytest"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/results"
)

// These tests run `dbarena run` against the real Docker Engine and
// Compose v2 of scripts/docker, with the images scripts/images/build
// made; their names start with TestDockerEngine, which the test command
// runs in a step of its own.

// composeTarget is an experiment target in a container of the image
// built here for database (image: local), half a core and 512 MiB.
func composeTarget(name, database string) string {
	return fmt.Sprintf(`  - name: %s
    database: %s
    deploy: {provider: compose, cpus: 0.5, memory: 512MiB, options: {image: local}}
`, name, database)
}

// targetsExperiment writes an experiment of workload C on 1000 records
// over the targets (YAML list items) with the given run section, and
// returns its path.
func targetsExperiment(t *testing.T, name, runSection string, targets ...string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), name+".yaml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf("name: %s\nproperties: {recordcount: 1000}\ntargets:\n%sworkloads: [c]\nrun: %s\n",
		name, strings.Join(targets, ""), runSection)), 0o644))
	return file
}

// waitForContainer waits up to 2 minutes until the Compose project has a
// running container, or says it never had one.
func waitForContainer(project string) error {
	if poll(2*time.Minute, func() bool {
		out, _ := exec.Command("docker", "ps", "-q", "--filter", "label=com.docker.compose.project="+project).Output()
		return strings.TrimSpace(string(out)) != ""
	}) {
		return nil
	}
	return fmt.Errorf("no container of %s in 2 minutes", project)
}

// TestDockerEngineRun compares PostgreSQL and Redis in containers of the
// local images: both trials measure, each container's CPU and memory
// reach sysmetrics.csv, and teardown leaves no container, network or
// volume.
func TestDockerEngineRun(t *testing.T) {
	testenv.Docker(t)
	file := targetsExperiment(t, "dock", "{duration: 5s, threads: 4}", composeTarget("dpg", "postgres"), composeTarget("drd", "redis"))
	res := filepath.Join(t.TempDir(), "r")
	code, out, errs := run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	d, err := results.Read(res)
	require.NoError(t, err)
	rows := rowsByID(d)
	for _, id := range []string{"dpg.c", "drd.c"} {
		require.Positive(t, measuredRow(t, rows, id).Operations, id)
	}
	for _, host := range []string{"dbarena-dpg-postgres-1", "dbarena-drd-redis-1"} {
		var memory, cpu int
		for _, s := range d.Sys {
			if s.Host != host {
				continue
			}
			if !math.IsNaN(s.MemoryBytes) && s.MemoryBytes > 1<<20 {
				memory++
			}
			if !math.IsNaN(s.CPUPercent) && s.CPUPercent > 0 {
				cpu++
			}
		}
		require.Positive(t, memory, "the container %s's memory in sysmetrics.csv", host)
		require.Positive(t, cpu, "the container %s's CPU in sysmetrics.csv", host)
	}
	deploytest.RequireProjectGone(t, "dbarena-dpg")
	deploytest.RequireProjectGone(t, "dbarena-drd")
}

// TestDockerEngineInterruptedRun interrupts a run in its measured trial,
// as Ctrl-C does: dbarena exits as interrupted, keeps what it measured
// and takes the project down.
func TestDockerEngineInterruptedRun(t *testing.T) {
	testenv.Docker(t)
	file := targetsExperiment(t, "dockint", "{duration: 60s, threads: 2}", composeTarget("dint", "redis"))
	res := filepath.Join(t.TempDir(), "r")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	acted := make(chan error, 1)
	go func() {
		err := waitForContainer("dbarena-dint")
		if err == nil {
			// The container is up; the load and the first seconds of
			// the trial follow within a few seconds.
			time.Sleep(12 * time.Second)
		}
		cancel()
		acted <- err
	}()
	code, out, errs := run(t, ctx, "run", file, "--results", res)
	require.NoError(t, <-acted)
	require.Equal(t, ExitInterrupted, code, "%s\n%s", out, errs)
	d, err := results.Read(res)
	require.NoError(t, err, "what was measured is kept")
	require.NotEmpty(t, d.Trials)
	deploytest.RequireProjectGone(t, "dbarena-dint")
}

// TestDockerEngineStoppedMidTrial stops a Docker Engine of its own (the
// other tests share scripts/docker's) in the measured window: its
// containers stop with it, the trial fails on the database's errors and
// keeps what it measured, and teardown, unable to reach the engine, says
// what it left behind.
func TestDockerEngineStoppedMidTrial(t *testing.T) {
	testenv.Docker(t)
	dir := t.TempDir()
	script := filepath.Join("..", "..", "..", "scripts", "docker")
	t.Cleanup(func() { _ = exec.Command(script, "stop", dir).Run() })
	start := exec.Command(script, "start", dir)
	start.Env = append(os.Environ(), "DBARENA_DOCKER_POOL=10.213.0.0/16")
	out, err := start.Output()
	require.NoError(t, err, string(out))
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(dir, "docker.sock"))
	file := targetsExperiment(t, "dockstop", "{duration: 20s, threads: 2}", composeTarget("dstop", "redis"))
	res := filepath.Join(t.TempDir(), "r")
	acted := make(chan error, 1)
	go func() {
		err := waitForContainer("dbarena-dstop")
		if err == nil {
			time.Sleep(12 * time.Second)
			err = exec.Command(script, "stop", dir).Run()
		}
		acted <- err
	}()
	code, stdout, errs := run(t, context.Background(), "run", file, "--results", res)
	require.NoError(t, <-acted)
	require.NotEqual(t, ExitOK, code, "%s\n%s", stdout, errs)
	d, err := results.Read(res)
	require.NoError(t, err, "what was measured is kept")
	row, ok := rowsByID(d)["dstop.c"]
	require.True(t, ok, "the trial's row is written: %s", errs)
	require.Equal(t, results.StatusFailed, row.Status)
	require.Positive(t, row.Operations)
	t.Logf("status: %s", row.StatusReason)
	require.Contains(t, errs, "dbarena-dstop", "teardown names what it could not remove")
}

// TestDockerEngineMonitoring adds a Prometheus container (the local
// image of Debian's package) to a Redis project with option prometheus:
// while the experiment runs, it scrapes dbarena's live endpoint, and its
// query API has the trial's operations and Redis' own metrics; the
// teardown removes it with the rest.
func TestDockerEngineMonitoring(t *testing.T) {
	testenv.Docker(t)
	live, ui := freePort(t), freePort(t)
	file := targetsExperiment(t, "mon", "{duration: 20s, threads: 2}", fmt.Sprintf(`  - name: mrd
    database: redis
    deploy: {provider: compose, cpus: 0.5, memory: 512MiB, options: {image: local, prometheus: "%d", prometheus_image: local, prometheus_port: "%d"}}
`, live, ui))
	res := filepath.Join(t.TempDir(), "r")
	type outcome struct {
		code      int
		out, errs string
	}
	done := make(chan outcome, 1)
	go func() {
		code, out, errs := run(t, context.Background(), "run", file, "--results", res, "--metrics-addr", fmt.Sprint(live))
		done <- outcome{code, out, errs}
	}()
	prom := fmt.Sprintf("127.0.0.1:%d", ui)
	var ops, cmds []float64
	scraped := poll(3*time.Minute, func() bool {
		if _, err := net.DialTimeout("tcp", prom, time.Second); err != nil {
			return false
		}
		now := time.Now()
		ops = promQueryMaybe(prom, `dbarena_operations_total{trial="mrd.c",class="OK"}`, now)
		cmds = promQueryMaybe(prom, `dbarena_db_redis_commands_total{target="mrd"}`, now)
		return len(ops) > 0 && len(cmds) > 0
	})
	o := <-done
	require.Equal(t, ExitOK, o.code, "%s\n%s", o.out, o.errs)
	require.True(t, scraped, "the Prometheus container scraped the trial's operations (%v) and Redis' metrics (%v)", ops, cmds)
	require.Contains(t, o.errs, fmt.Sprintf("Prometheus at http://127.0.0.1:%d", ui))
	out, err := exec.Command("docker", "ps", "-aq", "--filter", "label=com.docker.compose.project=dbarena-mrd").Output()
	require.NoError(t, err)
	require.Empty(t, strings.TrimSpace(string(out)), "the teardown removed every container, Prometheus' too")
}
