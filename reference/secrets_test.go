package reference_test

import (
	"bytes"
	"context"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/reference"
)

// watchCommandLines reads every process's command line, as ps does, until
// stop is called: it returns the command lines that held secret, and
// whether one of tool's was seen at all (so that a clean result means
// something).
func watchCommandLines(t *testing.T, tool, secret string) (stop func() (leaks []string, sawTool bool)) {
	t.Helper()
	done := make(chan struct{})
	var mu sync.Mutex
	var leaks []string
	saw := false
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
			for _, p := range paths {
				b, err := os.ReadFile(p)
				if err != nil || len(b) == 0 {
					continue
				}
				line := string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
				mu.Lock()
				if strings.Contains(line, tool) {
					saw = true
				}
				if strings.Contains(line, secret) {
					leaks = append(leaks, line)
				}
				mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() ([]string, bool) {
		close(done)
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return leaks, saw
	}
}

// TestPgbenchPasswordOffTheCommandLine: pgbench gets the URL's password
// by PGPASSWORD; on its command line every local user read it in ps
// ("pgbench ... postgres://bench:PASSWORD@...") for the whole reference.
func TestPgbenchPasswordOffTheCommandLine(t *testing.T) {
	u, err := url.Parse(pgURL(t))
	require.NoError(t, err)
	const secret = "Pgbench-Secret-7d1e"
	user := "postgres"
	if u.User != nil && u.User.Username() != "" {
		user = u.User.Username()
	}
	u.User = url.UserPassword(user, secret)
	props := map[string]string{"postgres.url": u.String()}
	cfg := config(t, "postgres", "table", "ref_secret")
	load(t, "postgres", props, cfg)
	stop := watchCommandLines(t, "pgbench", secret)
	res, err := reference.Run(context.Background(), withDriver(t, reference.Request{Database: "postgres", Driver: "postgres",
		Props: props, Workload: cfg, Threads: 2, Duration: 2 * time.Second, WorkDir: t.TempDir()}))
	leaks, saw := stop()
	require.NoError(t, err)
	require.Greater(t, res.Throughput, 100.0)
	require.True(t, saw, "pgbench ran while the command lines were read")
	require.Empty(t, leaks, "the password on a command line")
	require.NotContains(t, res.Command, secret)
}

// TestRedisBenchmarkIsHandedNoSecret: redis-benchmark reads a password
// only from its command line (it ignores REDISCLI_AUTH), where every
// local user reads it. It used to run as a one-time ACL user with `~*
// +hgetall +config|get`: user nobody logged in with what ps showed, read
// the real password by CONFIG GET and any hash; after a kill -9 of
// dbarena the user stayed. Against a Redis with a password it is not
// run now, said so; no user is made, no password is on any command
// line; without a password it runs.
func TestRedisBenchmarkIsHandedNoSecret(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		testenv.Missing(t, "redis-server is not installed (scripts/servers install redis)")
	}
	const secret = "Redis-Secret-52ab"
	start := func(extra ...string) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := l.Addr().String()
		require.NoError(t, l.Close())
		_, port, _ := net.SplitHostPort(addr)
		srv := exec.Command("redis-server", append([]string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--dir", t.TempDir()}, extra...)...)
		require.NoError(t, srv.Start())
		t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
		return addr
	}
	addr := start("--requirepass", secret)
	c := goredis.NewClient(&goredis.Options{Addr: addr, Password: secret})
	defer c.Close()
	require.Eventually(t, func() bool { return c.Ping(context.Background()).Err() == nil }, 10*time.Second, 50*time.Millisecond)

	props := map[string]string{"redis.addr": addr, "redis.password": secret}
	cfg := config(t, "redis", "insertorder", "ordered", "zeropadding", "12")
	load(t, "redis", props, cfg)
	stop := watchCommandLines(t, "redis-benchmark", secret)
	stopNobody := watchAsNobody(t, "redis-benchmark", secret)
	_, err := reference.Run(context.Background(), withDriver(t, reference.Request{Database: "redis", Driver: "redis",
		Props: props, Workload: cfg, Threads: 2, Duration: 2 * time.Second, Rate: 1000}))
	leaks, saw := stop()
	nobodyRead, _ := stopNobody()
	require.False(t, nobodyRead, "a second local user (nobody) read the password")
	require.ErrorContains(t, err, "redis-benchmark takes a password only on its command line (-a), where every local user can read it")
	require.False(t, saw, "redis-benchmark did not run")
	require.Empty(t, leaks, "the password on a command line")
	users, err := c.Do(context.Background(), "ACL", "USERS").StringSlice()
	require.NoError(t, err)
	require.Equal(t, []string{"default"}, users, "no user was made for it")

	// The other side: a Redis without a password has its reference.
	open := start()
	oc := goredis.NewClient(&goredis.Options{Addr: open})
	defer oc.Close()
	require.Eventually(t, func() bool { return oc.Ping(context.Background()).Err() == nil }, 10*time.Second, 50*time.Millisecond)
	props = map[string]string{"redis.addr": open}
	load(t, "redis", props, cfg)
	res, err := reference.Run(context.Background(), withDriver(t, reference.Request{Database: "redis", Driver: "redis",
		Props: props, Workload: cfg, Threads: 2, Duration: 2 * time.Second, Rate: 1000}))
	require.NoError(t, err)
	require.Greater(t, res.Throughput, 100.0)
}

// watchAsNobody is a second local user on the machine (nobody, uid
// 65534) reading, until stop is called, what it can of every process:
// its command line and, where the kernel lets it, its environment. It
// returns whether the secret was ever readable, and whether the tool's
// command line was seen (so that a clean result means something).
func watchAsNobody(t *testing.T, tool, secret string) (stop func() (leaked, sawTool bool)) {
	t.Helper()
	testenv.Root(t, "reading /proc as another user (nobody)")
	done := make(chan struct{})
	var mu sync.Mutex
	leaked, saw := false, false
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			cmd := exec.Command("sh", "-c", `for f in /proc/[0-9]*/cmdline /proc/[0-9]*/environ; do cat "$f" 2>/dev/null; echo; done`)
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			out, _ := cmd.Output()
			mu.Lock()
			leaked = leaked || bytes.Contains(out, []byte(secret))
			saw = saw || bytes.Contains(out, []byte(tool))
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return func() (bool, bool) {
		close(done)
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return leaked, saw
	}
}

// TestAnotherUserSeesNoPassword: while pgbench runs the reference with
// the URL's password, a second, unprivileged local user reads every
// command line and every environment it is allowed to: the password is
// in none (PGPASSWORD is in pgbench's environment, which only its own
// user and root may read). A Redis with a password gets no reference,
// so nothing of it is there to read either.
func TestAnotherUserSeesNoPassword(t *testing.T) {
	u, err := url.Parse(pgURL(t))
	require.NoError(t, err)
	const secret = "Nobody-Reads-This-91c4"
	user := "postgres"
	if u.User != nil && u.User.Username() != "" {
		user = u.User.Username()
	}
	u.User = url.UserPassword(user, secret)
	props := map[string]string{"postgres.url": u.String()}
	cfg := config(t, "postgres", "table", "ref_nobody")
	load(t, "postgres", props, cfg)
	stop := watchAsNobody(t, "pgbench", secret)
	_, err = reference.Run(context.Background(), withDriver(t, reference.Request{Database: "postgres", Driver: "postgres",
		Props: props, Workload: cfg, Threads: 2, Duration: 2 * time.Second, WorkDir: t.TempDir()}))
	leaked, saw := stop()
	require.NoError(t, err)
	require.True(t, saw, "nobody saw pgbench's command line: it was looking")
	require.False(t, leaked, "nobody read the password")
}
