package local

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/internal/cgroup"
	"github.com/dbarena/dbarena/internal/testenv"
)

// requireProgram skips when a server program is missing on a laptop, and
// fails under CI=true, where the test command installs it.
func requireProgram(t *testing.T, program string) {
	t.Helper()
	testenv.Program(t, program)
}

func up(t *testing.T, req deploy.Request) deploy.Deployment {
	t.Helper()
	req.WorkDir = workDir(t)
	d, err := New().Up(context.Background(), req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Down(context.Background()) })
	return d
}

// workDir is a temporary directory that servers running as another user
// can reach (t.TempDir's directories are private to root).
func workDir(t *testing.T) string {
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		require.NoError(t, os.Chmod(d, 0o755))
	}
	return dir
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestPostgresUpDown(t *testing.T) {
	if _, err := pgBin(); err != nil {
		requireProgram(t, "initdb")
	}
	d := up(t, deploy.Request{Name: "pg", Database: "postgres"})
	url := d.Properties()["postgres.url"]
	require.Regexp(t, `^postgres://postgres@127\.0\.0\.1:\d+/ycsb\?sslmode=disable$`, url)
	require.Contains(t, d.Version(), "PostgreSQL")
	hosts := d.Hosts()
	require.Len(t, hosts, 1)
	require.Equal(t, "pg", hosts[0].Name)
	require.True(t, alive(hosts[0].PID))
	require.DirExists(t, hosts[0].DataDir)
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "postgres://postgres@"), "/ycsb?sslmode=disable")
	c, err := net.DialTimeout("tcp", addr, time.Second)
	require.NoError(t, err)
	c.Close()

	require.NoError(t, d.Down(context.Background()))
	require.NoError(t, d.Down(context.Background()), "Down twice is safe")
	require.Eventually(t, func() bool { return !alive(hosts[0].PID) }, 10*time.Second, 50*time.Millisecond)
	require.NoDirExists(t, hosts[0].DataDir, "data removed at teardown")
	_, err = net.DialTimeout("tcp", addr, time.Second)
	require.Error(t, err, "nothing listens after teardown")
}

func TestRedisKeep(t *testing.T) {
	requireProgram(t, "redis-server")
	d := up(t, deploy.Request{Name: "r", Database: "redis", Keep: true})
	addr := d.Properties()["redis.addr"]
	c, err := net.DialTimeout("tcp", addr, time.Second)
	require.NoError(t, err)
	_, err = c.Write([]byte("PING\r\n"))
	require.NoError(t, err)
	buf := make([]byte, 16)
	n, err := c.Read(buf)
	require.NoError(t, err)
	require.Equal(t, "+PONG\r\n", string(buf[:n]))
	c.Close()
	dir := d.Hosts()[0].DataDir
	require.NoError(t, d.Down(context.Background()))
	require.DirExists(t, dir, "Keep leaves the data")
}

// TestFrozenServerStopsPromptly: a server frozen with SIGSTOP stops on
// its stop signal within seconds, not after the 30 s grace and a kill.
func TestFrozenServerStopsPromptly(t *testing.T) {
	requireProgram(t, "redis-server")
	d := up(t, deploy.Request{Name: "r", Database: "redis"})
	pid := d.Hosts()[0].PID
	require.NoError(t, syscall.Kill(pid, syscall.SIGSTOP))
	start := time.Now()
	require.NoError(t, d.Down(context.Background()), "stopped by its signal, not killed")
	took := time.Since(start)
	t.Logf("a frozen Redis stopped in %s", took)
	require.Less(t, took, 5*time.Second)
	require.Eventually(t, func() bool { return !alive(pid) }, 5*time.Second, 50*time.Millisecond)
}

func TestMariaDBUp(t *testing.T) {
	requireProgram(t, "mariadb-install-db")
	d := up(t, deploy.Request{Name: "m", Database: "mariadb"})
	require.Regexp(t, `^root@tcp\(127\.0\.0\.1:\d+\)/ycsb$`, d.Properties()["mysql.url"])
	require.Contains(t, strings.ToLower(d.Version()), "mariadb")
}

func TestBadRequests(t *testing.T) {
	p := New()
	_, err := p.Up(context.Background(), deploy.Request{Name: "x", Database: "aerospike", WorkDir: t.TempDir()})
	require.ErrorContains(t, err, `aerospike cannot be started on this machine`)
	require.ErrorContains(t, err, `provider "existing"`)
	_, err = p.Up(context.Background(), deploy.Request{Name: "x", Database: "redis", Nodes: 3, WorkDir: t.TempDir()})
	require.ErrorContains(t, err, "only cassandra and scylladb run as local clusters")
}

func TestMissingProgramSaysHowToInstall(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := New().Up(context.Background(), deploy.Request{Name: "s", Database: "scylladb", WorkDir: t.TempDir()})
	require.ErrorContains(t, err, "scylla not found in PATH")
	require.ErrorContains(t, err, "install ScyllaDB")
	_, err = New().Up(context.Background(), deploy.Request{Name: "r", Database: "redis", WorkDir: t.TempDir()})
	require.ErrorContains(t, err, "apt-get install redis-server")
}

func TestServerThatDiesShowsItsLog(t *testing.T) {
	requireProgram(t, "redis-server")
	// An option redis-server rejects makes it exit at once.
	_, err := New().Up(context.Background(), deploy.Request{Name: "bad", Database: "redis", WorkDir: t.TempDir(),
		Options: map[string]string{"no-such-option": "1"}})
	require.ErrorContains(t, err, "exited while starting")
	require.ErrorContains(t, err, "no-such-option", "the log tail is quoted")
}

func TestFreePortsDiffer(t *testing.T) {
	taken := map[int]bool{}
	a, err := freePort(taken, "127.0.0.1")
	require.NoError(t, err)
	b, err := freePort(taken, "127.0.0.1")
	require.NoError(t, err)
	require.NotEqual(t, a, b)
	require.GreaterOrEqual(t, a, 10000)
}

func TestPrivateWorkDirIsNamed(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root drops privileges for postgres")
	}
	if _, err := pgBin(); err != nil {
		requireProgram(t, "initdb")
	}
	_, err := New().Up(context.Background(), deploy.Request{Name: "pg", Database: "postgres", WorkDir: t.TempDir()})
	require.ErrorContains(t, err, "cannot reach its data")
	require.ErrorContains(t, err, "not searchable by other users")
}

func TestLimitsApplyToTheServer(t *testing.T) {
	requireProgram(t, "redis-server")
	testenv.Root(t, "cgroups")
	d := up(t, deploy.Request{Name: "lim", Database: "redis", CPUs: 0.5, MemoryBytes: 256 << 20})
	require.NotEmpty(t, d.Limits())
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(d.Hosts()[0].PID), "cgroup"))
	require.NoError(t, err)
	require.Contains(t, string(b), "dbarena-lim-", "the server runs inside its own cgroup")
}

// TestServerCountsItsDiskIO: a server without limits runs in a cgroup
// of its own all the same, which counts its block I/O and limits
// nothing, and which teardown removes.
func TestServerCountsItsDiskIO(t *testing.T) {
	requireProgram(t, "redis-server")
	testenv.Root(t, "cgroups")
	d := up(t, deploy.Request{Name: "io", Database: "redis"})
	require.Empty(t, d.Limits(), "counting is not a limit")
	pid := d.Hosts()[0].PID
	b, ok, err := cgroup.FindBlockIO(pid)
	require.NoError(t, err)
	require.True(t, ok, "the server's I/O is counted")
	require.Contains(t, b.String(), "dbarena-io-")
	pids, err := b.Procs()
	require.NoError(t, err)
	require.Equal(t, []int{pid}, pids, "the server alone")
	require.NoError(t, d.Down(context.Background()))
	_, err = b.Procs()
	require.ErrorIs(t, err, os.ErrNotExist, "teardown removes the cgroup")
}

func TestCheck(t *testing.T) {
	p := New()
	err := p.Check(deploy.Request{Name: "x", Database: "aerospike"})
	require.ErrorContains(t, err, "cannot be started on this machine")
	err = p.Check(deploy.Request{Name: "x", Database: "redis", Nodes: 2, CPUs: 1000})
	require.ErrorContains(t, err, "only cassandra and scylladb run as local clusters")
	require.ErrorContains(t, err, "CPUs", "an impossible limit is named before anything starts")
	t.Setenv("PATH", t.TempDir())
	t.Setenv("DBARENA_CACHE", t.TempDir())
	err = p.Check(deploy.Request{Name: "c", Database: "cassandra"})
	require.ErrorContains(t, err, "java not found")
	require.ErrorContains(t, err, "apt-get install maven")
}

func TestDynamoDBLocalUp(t *testing.T) {
	requireProgram(t, "java")
	if !cached("dynamodb-local", DynamoDBLocalVersion) {
		requireProgram(t, "mvn")
	}
	d := up(t, deploy.Request{Name: "ddb", Database: "dynamodb"})
	endpoint := d.Properties()["dynamodb.endpoint"]
	require.Regexp(t, `^http://127\.0\.0\.1:\d+$`, endpoint)
	require.Contains(t, d.Version(), DynamoDBLocalVersion)
	c, err := net.DialTimeout("tcp", strings.TrimPrefix(endpoint, "http://"), time.Second)
	require.NoError(t, err)
	c.Close()
}
