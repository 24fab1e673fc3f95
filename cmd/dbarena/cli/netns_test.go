package cli

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
)

// netHost is a network namespace joined to this host by a veth pair:
// a separate host on the wire, reaching this one at HostIP.
type netHost struct {
	Name, HostIP, IP string
	// Veth is this host's end of the link: set it down to cut the wire.
	// Peer is the namespace's end.
	Veth, Peer string
}

// newNetHosts makes n namespaces, host i on 10.SUBNET.i.2 and this host
// on 10.SUBNET.i.1 (each test its own subnet), or skips when the machine
// does not let this test make them (and CI is not "true": the CI
// machine does).
func newNetHosts(t *testing.T, subnet, n int) []netHost {
	t.Helper()
	ipBin, err := exec.LookPath("ip")
	if err == nil && os.Geteuid() != 0 {
		err = fmt.Errorf("not root")
	}
	if err == nil {
		err = exec.Command(ipBin, "netns", "add", fmt.Sprintf("dbarena-probe-%d", os.Getpid())).Run()
		_ = exec.Command(ipBin, "netns", "del", fmt.Sprintf("dbarena-probe-%d", os.Getpid())).Run()
	}
	if err != nil {
		testenv.Missing(t, fmt.Sprintf("network namespaces unavailable (ip netns needs root and iproute2): %v", err))
	}
	ipCmd := func(args ...string) {
		t.Helper()
		out, err := exec.Command(ipBin, args...).CombinedOutput()
		require.NoError(t, err, "ip %s: %s", strings.Join(args, " "), out)
	}
	var hosts []netHost
	for i := 1; i <= n; i++ {
		ns := fmt.Sprintf("dbl%d-%d-%d", os.Getpid()%10000, subnet, i)
		veth, peer := fmt.Sprintf("dbh%d-%d-%d", os.Getpid()%10000, subnet%100, i), fmt.Sprintf("dbn%d-%d-%d", os.Getpid()%10000, subnet%100, i)
		hostIP, nsIP := fmt.Sprintf("10.%d.%d.1", subnet, i), fmt.Sprintf("10.%d.%d.2", subnet, i)
		ipCmd("netns", "add", ns)
		t.Cleanup(func() {
			_ = exec.Command(ipBin, "netns", "del", ns).Run()
			_ = exec.Command(ipBin, "link", "del", veth).Run()
		})
		ipCmd("link", "add", veth, "type", "veth", "peer", "name", peer)
		ipCmd("link", "set", peer, "netns", ns)
		ipCmd("addr", "add", hostIP+"/30", "dev", veth)
		ipCmd("link", "set", veth, "up")
		ipCmd("-n", ns, "addr", "add", nsIP+"/30", "dev", peer)
		ipCmd("-n", ns, "link", "set", peer, "up")
		ipCmd("-n", ns, "link", "set", "lo", "up")
		ipCmd("-n", ns, "route", "add", "default", "via", hostIP)
		hosts = append(hosts, netHost{Name: ns, HostIP: hostIP, IP: nsIP, Veth: veth, Peer: peer})
	}
	return hosts
}

// TestLoadersInNetworkNamespaces runs an experiment's trial as two
// loaders, each in a network namespace of its own (two hosts on the
// wire), against a Redis on this host, and merges them.
func TestLoadersInNetworkNamespaces(t *testing.T) {
	requireLocalServers(t, "redis-server")
	hosts := newNetHosts(t, 213, 2)
	bin := buildDbarena(t)
	// A Redis listening on the first veth address, which both namespaces
	// reach (the second through its default route to this host).
	port := startRedis(t, hosts[0].HostIP)
	addr := net.JoinHostPort(hosts[0].HostIP, fmt.Sprint(port))

	dir := t.TempDir()
	file := filepath.Join(dir, "netns.yaml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`name: netns
properties: {recordcount: 200}
targets:
  - database: redis
    deploy: {provider: existing}
    properties: {redis.addr: "%s"}
workloads: [c]
run:
  duration: 2s
  threads: 2
  target: 400
  loader_commands: ["ip netns exec %s", "ip netns exec %s"]
`, addr, hosts[0].Name, hosts[1].Name)), 0o644))
	_, rows := runOK(t, file, "--loader-binary", bin)
	row, ok := rows["redis.c"]
	require.True(t, ok)
	require.Equal(t, 4, row.Threads, "two loaders of two threads")
	// The loaders ran from directories of their own, staged and fetched
	// through the prefix as over ssh, and removed afterwards.
	left, err := filepath.Glob(fmt.Sprintf("/tmp/dbarena-loader-%d-*", os.Getpid()))
	require.NoError(t, err)
	require.Empty(t, left)
	require.InEpsilon(t, 400, row.Throughput, 0.3, "two hosts sharing 400 ops/s")
	require.Zero(t, row.Errors)
}
