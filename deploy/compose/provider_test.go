package compose_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/compose"
)

// fakeDocker writes a docker executable that logs its arguments and
// answers as the compose plugin would; no Docker engine runs here, and
// this injects the failures a real one could have. FAIL_UP=1 makes `up`
// fail.
func fakeDocker(t *testing.T, failUp bool) (bin, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls")
	fail := "0"
	if failUp {
		fail = "1"
	}
	script := `#!/bin/sh
echo "$*" >> ` + log + `
case "$*" in
  *" up "*) [ ` + fail + ` = 1 ] && { echo "container unhealthy" >&2; exit 1; }; exit 0 ;;
  *" port "*) echo "127.0.0.1:4$(echo "$*" | awk '{print $NF}' | cut -c1-4)" ;;
  *" ps -q"*) echo "c0ffee01" ;;
  "inspect "*) echo "/dbarena-pg-postgres-1 $$" ;;
esac
exit 0
`
	bin = filepath.Join(dir, "docker")
	require.NoError(t, os.WriteFile(bin, []byte(script), 0o755))
	return bin, log
}

func calls(t *testing.T, log string) []string {
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func TestUpAndDown(t *testing.T) {
	bin, log := fakeDocker(t, false)
	p := compose.Provider{Docker: bin}
	work := t.TempDir()
	d, err := p.Up(context.Background(), deploy.Request{Name: "pg", Database: "postgres", WorkDir: work})
	require.NoError(t, err)
	require.Equal(t, "postgres://postgres@127.0.0.1:45432/ycsb?sslmode=disable", d.Properties()["postgres.url"])
	require.Len(t, d.Hosts(), 1, "the container's main process, for its CPU and memory")
	require.Equal(t, "dbarena-pg-postgres-1", d.Hosts()[0].Name)
	require.Positive(t, d.Hosts()[0].PID)
	require.NoError(t, d.Down(context.Background()))
	require.NoError(t, d.Down(context.Background()), "safe twice")
	c := calls(t, log)
	require.Len(t, c, 5)
	require.Regexp(t, `^compose -p dbarena-pg -f \S+/compose.yml up -d --wait --wait-timeout 300$`, c[0])
	require.Regexp(t, `port postgres 5432$`, c[1])
	require.Regexp(t, `ps -q$`, c[2])
	require.Equal(t, "inspect --format {{.Name}} {{.State.Pid}} c0ffee01", c[3])
	require.Regexp(t, `down --remove-orphans -v$`, c[4])
	left, err := os.ReadDir(work)
	require.NoError(t, err)
	require.Empty(t, left, "the project's files go with it")
}

func TestFailedUpTearsDown(t *testing.T) {
	bin, log := fakeDocker(t, true)
	_, err := compose.Provider{Docker: bin}.Up(context.Background(), deploy.Request{Name: "c", Database: "cassandra", Nodes: 3, WorkDir: t.TempDir()})
	require.ErrorContains(t, err, "container unhealthy")
	c := calls(t, log)
	require.Len(t, c, 2)
	require.Regexp(t, `down --remove-orphans -v$`, c[1], "what up started is taken down")
}

func TestCheckWithoutDocker(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := compose.Provider{}.Check(deploy.Request{Name: "r", Database: "redis"})
	require.ErrorContains(t, err, "neither `docker compose`")
	require.ErrorContains(t, err, "dbarena deploy render")
}

// TestCheckComposeVersion refuses Compose v1 (no up --wait) and accepts
// the plugin of v2.
func TestCheckComposeVersion(t *testing.T) {
	dir := t.TempDir()
	v1 := filepath.Join(dir, "docker-compose")
	require.NoError(t, os.WriteFile(v1, []byte("#!/bin/sh\necho 'docker-compose version 1.29.2, build 5becea4c'\n"), 0o755))
	err := compose.Provider{Docker: v1}.Check(deploy.Request{Name: "r", Database: "redis"})
	require.ErrorContains(t, err, "is version 1.29: dbarena needs Compose 2.1 or later")

	v2 := filepath.Join(dir, "docker")
	require.NoError(t, os.WriteFile(v2, []byte("#!/bin/sh\necho 'Docker Compose version v2.29.1'\n"), 0o755))
	require.NoError(t, compose.Provider{Docker: v2}.Check(deploy.Request{Name: "r", Database: "redis"}))
}
