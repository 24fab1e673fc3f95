package redis_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/redis"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/internal/testkit"
	"github.com/dbarena/dbarena/record"
)

// startTLSRedis starts a redis-server that speaks TLS only, with the
// test authority's certificate, and returns its address.
func startTLSRedis(t *testing.T, files testkit.TLSFiles) string {
	t.Helper()
	bin := testenv.Program(t, "redis-server")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	dir := t.TempDir()
	cmd := exec.Command(bin, "--port", "0", "--tls-port", fmt.Sprint(port), "--bind", "127.0.0.1",
		"--tls-cert-file", files.Cert, "--tls-key-file", files.Key, "--tls-ca-cert-file", files.CA,
		"--tls-auth-clients", "no", "--save", "", "--appendonly", "no", "--dir", dir,
		"--logfile", filepath.Join(dir, "log"))
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "log"))
			t.Fatalf("redis-server with TLS did not listen on %s: %v\n%s", addr, err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestTLS(t *testing.T) {
	files := testkit.NewTLSFiles(t)
	addr := startTLSRedis(t, files)
	ctx := context.Background()
	db, err := redis.Open(ctx, driver.Params{Props: map[string]string{"redis.addr": addr, "redis.tls.ca": files.CA}, Workers: 1})
	require.NoError(t, err)
	defer db.Close()
	s, err := db.Session(ctx, 0)
	require.NoError(t, err)
	require.NoError(t, s.Insert(ctx, "usertable", "user1", record.Record{{Name: "field0", Value: []byte("over tls")}}))
	got, err := s.Read(ctx, "usertable", "user1", nil, nil)
	require.NoError(t, err)
	require.Equal(t, "over tls", string(got[0].Value))

	// Without the authority the server's certificate is refused; without
	// TLS the server does not answer.
	_, err = redis.Open(ctx, driver.Params{Props: map[string]string{"redis.addr": addr, "redis.tls": "true", "redis.connect.timeout": "2s"}, Workers: 1})
	require.ErrorContains(t, err, "certificate signed by unknown authority")
	_, err = redis.Open(ctx, driver.Params{Props: map[string]string{"redis.addr": addr, "redis.connect.timeout": "1s", "redis.timeout": "1s"}, Workers: 1})
	require.Error(t, err)
}
