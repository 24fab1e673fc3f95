package sysmetrics

import (
	"net"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestListenerPID finds this process by a port it listens on, on IPv4
// and IPv6, and finds nobody on a port no one listens on.
func TestListenerPID(t *testing.T) {
	for _, network := range []string{"tcp4", "tcp6"} {
		addr := "127.0.0.1:0"
		if network == "tcp6" {
			addr = "[::1]:0"
		}
		l, err := net.Listen(network, addr)
		if err != nil && network == "tcp6" {
			t.Logf("no IPv6 loopback here: %v", err)
			continue
		}
		require.NoError(t, err)
		port := l.Addr().(*net.TCPAddr).Port
		pid, err := ListenerPID(port)
		require.NoError(t, err, network)
		require.Equal(t, os.Getpid(), pid, network)
		require.NoError(t, l.Close())
		_, err = ListenerPID(port)
		require.ErrorContains(t, err, "no socket on this machine listens on port")
	}
	_, err := ListenerPID(0)
	require.ErrorContains(t, err, "want 1-65535")
}
