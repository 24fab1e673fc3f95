package compose_test

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/compose"
	"github.com/dbarena/dbarena/deploy/deploytest"
	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/internal/testenv"
)

// These tests run against the real Docker Engine and Compose v2 of
// scripts/docker, with the images scripts/images/build made (no registry
// is reached); every name starts with TestDockerEngine, which the test
// command runs in a step of its own.

// localImage is the option that uses the image built here for the
// database (image: local), with more options.
func localImage(more map[string]string) map[string]string {
	o := map[string]string{"image": deploy.LocalImage}
	for k, v := range more {
		o[k] = v
	}
	return o
}

// TestDockerEngineUpLimitsDown starts PostgreSQL from the local image
// with CPU and memory limits: it answers on its published port, the
// limits are in the container's cgroup, the container is a host to
// watch, and teardown leaves no container, network or volume.
func TestDockerEngineUpLimitsDown(t *testing.T) {
	testenv.Docker(t)
	ctx := context.Background()
	d, err := compose.Provider{}.Up(ctx, deploy.Request{Name: "ce-limits", Database: "postgres", CPUs: 0.5, MemoryBytes: 256 << 20,
		WorkDir: t.TempDir(), Options: localImage(nil)})
	require.NoError(t, err)
	down := false
	t.Cleanup(func() {
		if !down {
			_ = d.Down(context.Background())
		}
	})
	url := d.Properties()["postgres.url"]
	require.Contains(t, url, "@127.0.0.1:")
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	var one int
	require.NoError(t, conn.QueryRow(ctx, "SELECT 1").Scan(&one))
	require.NoError(t, conn.Close(ctx))

	id := deploytest.Docker(t, "ps", "-q", "--filter", "label=com.docker.compose.project=dbarena-ce-limits", "--filter", "label=com.docker.compose.service=postgres")
	cat := func(v1, v2 string) string {
		out, err := execOut("docker", "exec", id, "cat", "/sys/fs/cgroup/"+v1)
		if err != nil {
			out, err = execOut("docker", "exec", id, "cat", "/sys/fs/cgroup/"+v2)
		}
		require.NoError(t, err, out)
		return out
	}
	quota := cat("cpu/cpu.cfs_quota_us", "cpu.max")
	require.True(t, quota == "50000" || strings.HasPrefix(quota, "50000 "), "CPU quota of half a core, got %q", quota)
	require.Equal(t, fmt.Sprint(256<<20), cat("memory/memory.limit_in_bytes", "memory.max"))
	hosts := d.Hosts()
	require.Len(t, hosts, 1)
	require.Positive(t, hosts[0].PID, "the container's main process, watched like a local server")

	require.NoError(t, d.Down(ctx))
	down = true
	deploytest.RequireProjectGone(t, "dbarena-ce-limits")
}

// TestDockerEngineMariaDB starts MariaDB, and MySQL (which runs the same
// local image: Debian's MySQL is MariaDB), from the local image with a
// password, as the catalogue renders each: the health check passes, root
// logs in from outside the container with the password and the database
// exists; a wrong password is refused.
func TestDockerEngineMariaDB(t *testing.T) {
	testenv.Docker(t)
	for _, database := range []string{"mariadb", "mysql"} {
		t.Run(database, func(t *testing.T) {
			ctx := context.Background()
			name := "ce-" + database
			d, err := compose.Provider{}.Up(ctx, deploy.Request{Name: name, Database: database, WorkDir: t.TempDir(),
				Options: localImage(map[string]string{"password": "it's s3cret"})})
			require.NoError(t, err)
			t.Cleanup(func() { _ = d.Down(context.Background()) })
			url := d.Properties()["mysql.url"]
			require.Contains(t, url, "@tcp(127.0.0.1:")
			db, err := sql.Open("mysql", url)
			require.NoError(t, err)
			defer db.Close()
			var schema string
			require.NoError(t, db.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&schema))
			require.Equal(t, "ycsb", schema)
			bad, err := sql.Open("mysql", strings.Replace(url, "s3cret", "wrong", 1))
			require.NoError(t, err)
			defer bad.Close()
			require.ErrorContains(t, bad.PingContext(ctx), "Access denied")
			require.NoError(t, d.Down(ctx))
			deploytest.RequireProjectGone(t, "dbarena-"+name)
		})
	}
}

// TestDockerEngineNoPassword starts every database the local images
// serve without a password, as a user who sets none does, and opens
// dbarena's own driver on the properties the deployment gives: a
// deployment that says ready must be reachable by the driver within its
// connect timeout. MariaDB, healthy, was not: its server looked up the
// name of every client, which behind Docker's port mapping took 10 s.
func TestDockerEngineNoPassword(t *testing.T) {
	testenv.Docker(t)
	for _, c := range []struct{ database, driver string }{
		{"postgres", "postgres"}, {"redis", "redis"}, {"mariadb", "mysql"}, {"mysql", "mysql"},
	} {
		t.Run(c.database, func(t *testing.T) {
			ctx := context.Background()
			name := "ce-open-" + c.database
			d, err := compose.Provider{}.Up(ctx, deploy.Request{Name: name, Database: c.database, CPUs: 1, WorkDir: t.TempDir(), Options: localImage(nil)})
			require.NoError(t, err)
			t.Cleanup(func() { _ = d.Down(context.Background()) })
			info, err := drivers.Lookup(c.driver)
			require.NoError(t, err)
			start := time.Now()
			db, err := info.Open(ctx, driver.Params{Props: d.Properties(), Workers: 1})
			require.NoError(t, err, "the driver reaches a deployment that says it is ready")
			t.Logf("%s: the driver connected in %v", c.database, time.Since(start).Round(time.Millisecond))
			require.NoError(t, db.Close())
			require.NoError(t, d.Down(ctx))
			deploytest.RequireProjectGone(t, "dbarena-"+name)
		})
	}
}

// TestDockerEngineNeverHealthy runs PostgreSQL's target from the Redis
// image: the container runs but its health check (pg_isready) never
// passes; up fails within ready_timeout, the error names the service
// with the tail of its log, and nothing is left.
func TestDockerEngineNeverHealthy(t *testing.T) {
	testenv.Docker(t)
	start := time.Now()
	_, err := compose.Provider{}.Up(context.Background(), deploy.Request{Name: "ce-unhealthy", Database: "postgres", WorkDir: t.TempDir(),
		Options: localImage(map[string]string{"image": "dbarena.local/redis:7.0", "ready_timeout": "15s"})})
	require.Error(t, err)
	t.Log(err)
	require.Less(t, time.Since(start), 90*time.Second)
	require.ErrorContains(t, err, "service postgres is running")
	require.ErrorContains(t, err, "log tail:")
	require.ErrorContains(t, err, "Ready to accept connections", "Redis's own log")
	deploytest.RequireProjectGone(t, "dbarena-ce-unhealthy")
}

// TestDockerEnginePortTaken fixes the published port on one that a
// listener here holds: the deployment is refused before anything starts,
// naming the service, the address and the way out.
func TestDockerEnginePortTaken(t *testing.T) {
	testenv.Docker(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	_, err = compose.Provider{}.Up(context.Background(), deploy.Request{Name: "ce-port", Database: "redis", WorkDir: t.TempDir(),
		Options: localImage(map[string]string{"port": fmt.Sprint(port)})})
	require.ErrorContains(t, err, fmt.Sprintf("option port: redis cannot publish on 127.0.0.1:%d, already in use", port))
	deploytest.RequireProjectGone(t, "dbarena-ce-port")

	// A free fixed port is used as given.
	require.NoError(t, l.Close())
	d, err := compose.Provider{}.Up(context.Background(), deploy.Request{Name: "ce-port", Database: "redis", WorkDir: t.TempDir(),
		Options: localImage(map[string]string{"port": fmt.Sprint(port)})})
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("127.0.0.1:%d", port), d.Properties()["redis.addr"])
	require.NoError(t, d.Down(context.Background()))
	deploytest.RequireProjectGone(t, "dbarena-ce-port")
}

// TestDockerEngineInterruptedUp cancels the deployment while compose
// waits for the container to be healthy, as Ctrl-C does: Up returns at
// once and takes down what it started.
func TestDockerEngineInterruptedUp(t *testing.T) {
	testenv.Docker(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for ctx.Err() == nil {
			if out, _ := execOut("docker", "ps", "-q", "--filter", "label=com.docker.compose.project=dbarena-ce-cancel"); out != "" {
				cancel()
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	start := time.Now()
	// The Redis image behind PostgreSQL's health check: never healthy,
	// so up is still waiting when the cancel comes.
	_, err := compose.Provider{}.Up(ctx, deploy.Request{Name: "ce-cancel", Database: "postgres", WorkDir: t.TempDir(),
		Options: localImage(map[string]string{"image": "dbarena.local/redis:7.0"})})
	cancel()
	require.ErrorIs(t, err, context.Canceled, "up ends for the interrupt, not for a failure")
	require.Less(t, time.Since(start), time.Minute)
	deploytest.RequireProjectGone(t, "dbarena-ce-cancel")
}

// TestDockerEngineAcceptsEveryRendering renders every database of the
// catalogue, as one node and, where it clusters, as three, and has the
// real Compose check the files (docker compose config -q).
func TestDockerEngineAcceptsEveryRendering(t *testing.T) {
	testenv.Docker(t)
	for _, sh := range deploytest.Shapes(deploy.Compose) {
		t.Run(sh.Name(), func(t *testing.T) {
			dir := t.TempDir()
			_, err := compose.Write(deploy.Request{Name: "cfg", Database: sh.Database, Nodes: sh.Nodes, CPUs: 2, MemoryBytes: 4 << 30,
				Options: map[string]string{"password": "s3cret"}}, dir)
			require.NoError(t, err)
			out, err := execOut("docker", "compose", "-f", filepath.Join(dir, "compose.yml"), "config", "-q")
			require.NoError(t, err, out)
		})
	}
}

// execOut runs a command and returns its trimmed combined output.
func execOut(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// TestDockerEngineLoaderService builds the loader image from this
// checkout (scripts/images/loader: a static dbarena on an empty base)
// and runs the project's loader service inside the project's network:
// it reaches Redis by its service name, loads and runs workload C.
func TestDockerEngineLoaderService(t *testing.T) {
	testenv.Docker(t)
	out, err := execOut("../../scripts/images/loader", compose.LoaderImage)
	require.NoError(t, err, out)
	dir := t.TempDir()
	d, err := compose.Provider{}.Up(context.Background(), deploy.Request{Name: "ce-loader", Database: "redis", WorkDir: dir,
		Options: localImage(nil)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Down(context.Background()) })
	files, err := filepath.Glob(filepath.Join(dir, "dbarena-compose-ce-loader-*", "compose.yml"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	loader := func(args ...string) string {
		t.Helper()
		out, err := execOut("docker", append([]string{"compose", "-p", "dbarena-ce-loader", "-f", files[0], "--profile", "loader",
			"run", "--rm", "loader"}, args...)...)
		require.NoError(t, err, out)
		return out
	}
	common := []string{"-p", "redis.addr=redis:6379", "-p", "recordcount=200", "-P", "/workloads/workloadc"}
	require.Contains(t, loader(append([]string{"ycsb", "load", "redis"}, common...)...), "[INSERT], Operations, 200")
	out = loader(append([]string{"ycsb", "run", "redis", "-p", "operationcount=500"}, common...)...)
	require.Contains(t, out, "[READ], Operations, 500")
	require.NotContains(t, out, "READ-FAILED")
	require.NoError(t, d.Down(context.Background()))
	deploytest.RequireProjectGone(t, "dbarena-ce-loader")
}
