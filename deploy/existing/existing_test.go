package existing

import (
	"context"
	"net"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy"
)

// TestLocalEndpointIsSampled: an endpoint on this machine is found by
// the port it listens on (here this test's own listener) and becomes
// the target's host; one elsewhere (TEST-NET-1), one with no listener
// and one named by a metrics option get no local host.
func TestLocalEndpointIsSampled(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	up := func(req deploy.Request) []deploy.Host {
		t.Helper()
		req.Name = "db"
		d, err := Provider{}.Up(context.Background(), req)
		require.NoError(t, err)
		return d.Hosts()
	}
	for _, host := range []string{"127.0.0.1", "localhost"} {
		hosts := up(deploy.Request{Endpoints: []string{net.JoinHostPort(host, port), "192.0.2.1:5432"}})
		require.Equal(t, []deploy.Host{{Name: "db", PID: os.Getpid()}}, hosts, host)
	}
	require.Empty(t, up(deploy.Request{Endpoints: []string{"192.0.2.1:" + port}}), "no address of this machine")
	free, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := free.Addr().String()
	require.NoError(t, free.Close())
	require.Empty(t, up(deploy.Request{Endpoints: []string{closed}}), "nothing listens there")
	hosts := up(deploy.Request{Endpoints: []string{"127.0.0.1:" + port}, Options: map[string]string{"metrics": "http://10.0.0.5:9100"}})
	require.Equal(t, []deploy.Host{{Name: "db", MetricsURL: "http://10.0.0.5:9100/metrics"}}, hosts, "the hosts the user named")
}
