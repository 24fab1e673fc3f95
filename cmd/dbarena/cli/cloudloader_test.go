package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testkit"
	"github.com/dbarena/dbarena/results"
)

// startSSHD runs a real OpenSSH server inside a network namespace, on
// port 22 of its own address, admitting root with a key made here; it
// returns the private key's path and the server's log.
func startSSHD(t *testing.T, h netHost) (key string, log *testkit.Buffer) {
	t.Helper()
	dir := t.TempDir()
	keygen := func(path string) {
		out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path).CombinedOutput()
		require.NoError(t, err, "ssh-keygen: %s", out)
	}
	keygen(filepath.Join(dir, "host"))
	key = filepath.Join(dir, "client")
	keygen(key)
	pub, err := os.ReadFile(key + ".pub")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600))
	cfg := fmt.Sprintf(`Port 22
ListenAddress %s
HostKey %s/host
AuthorizedKeysFile %s/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile %s/sshd.pid
LogLevel VERBOSE
`, h.IP, dir, dir, dir)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(cfg), 0o600))
	// The privilege-separation directory sshd insists on.
	require.NoError(t, os.MkdirAll("/run/sshd", 0o755))
	log = &testkit.Buffer{}
	cmd := exec.Command("ip", "netns", "exec", h.Name, "/usr/sbin/sshd", "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	cmd.Stdout, cmd.Stderr = log, log
	// A session whose client is gone (its wire cut) would hold the
	// output pipes open: Wait gives up on them after a while.
	cmd.WaitDelay = 2 * time.Second
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		// Every process left in the namespace: sessions sshd forked,
		// what they run.
		if out, err := exec.Command("ip", "netns", "pids", h.Name).Output(); err == nil {
			for _, f := range strings.Fields(string(out)) {
				var pid int
				if _, err := fmt.Sscan(f, &pid); err == nil {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
		_ = cmd.Wait()
	})
	waitListening(t, net.JoinHostPort(h.IP, "22"))
	return key, log
}

// startRedis runs a Redis without persistence on a free port of the
// given addresses until the test ends, and returns the port once it
// answers on the first address.
func startRedis(t *testing.T, bind ...string) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	args := append([]string{"--port", fmt.Sprint(port), "--bind"}, bind...)
	args = append(args, "--protected-mode", "no", "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	srv := exec.Command("redis-server", args...)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	waitListening(t, net.JoinHostPort(bind[0], fmt.Sprint(port)))
	return port
}

// runOK runs `dbarena run ARGS` that must succeed and returns
// its results and their trial rows by ID.
func runOK(t *testing.T, args ...string) (*results.Data, map[string]results.Trial) {
	t.Helper()
	res := filepath.Join(t.TempDir(), "r")
	code, _, errs := run(t, context.Background(), append(append([]string{"run"}, args...), "--results", res)...)
	require.Equal(t, ExitOK, code, errs)
	d, err := results.Read(res)
	require.NoError(t, err)
	return d, rowsByID(d)
}

// rowsByID indexes a results directory's trial rows by trial ID.
func rowsByID(d *results.Data) map[string]results.Trial {
	rows := map[string]results.Trial{}
	for _, tr := range d.Trials {
		rows[tr.ID] = tr
	}
	return rows
}

// measuredRow is the completed row of run trial id: the trial's own, or,
// when it was measured again (superseded: its window moved, or other
// processes took its cores), its last retry's. Which one is the
// machine's to decide; that the trial was measured and recorded is the
// test's.
func measuredRow(t *testing.T, rows map[string]results.Trial, id string) results.Trial {
	t.Helper()
	row, ok := rows[id]
	require.True(t, ok, "row %s", id)
	for n := 1; row.Status == results.StatusSuperseded; n++ {
		require.True(t, results.HasFlag(row.Flags, results.FlagNotSteady) || results.HasFlag(row.Flags, results.FlagInterfered),
			"%s superseded only when its window moved or its cores were taken: %q", row.ID, row.Flags)
		row, ok = rows[results.AgainID(id, n)]
		require.True(t, ok, "measurement %d again of %s is recorded", n, id)
	}
	require.Equal(t, results.StatusCompleted, row.Status, "%s: %s", row.ID, row.StatusReason)
	return row
}

// waitListening waits until addr accepts TCP connections.
func waitListening(t *testing.T, addr string) {
	t.Helper()
	require.Eventually(t, func() bool {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, 10*time.Second, 50*time.Millisecond, "nothing listens on %s", addr)
}

// fakeCloud puts a stand-in tofu first on PATH: it "creates" a database
// VM whose external address is 127.0.0.1 and internal address internal,
// and one loader VM at loader, and logs each call.
func fakeCloud(t *testing.T, internal, loader string, port int) (calls string) {
	t.Helper()
	dir := t.TempDir()
	calls = filepath.Join(dir, "calls")
	out := fmt.Sprintf(`{"db_external_ips":{"value":["127.0.0.1"]},"db_internal_ips":{"value":["%s"]},"loader_external_ips":{"value":["%s"]},"db_port":{"value":%d}}`,
		internal, loader, port)
	script := "#!/bin/sh\necho \"$1\" >> " + calls + "\n[ \"$1\" = output ] && echo '" + out + "'\nexit 0\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tofu"), []byte(script), 0o755))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	creds := filepath.Join(dir, "gcp.json")
	require.NoError(t, os.WriteFile(creds, []byte("{}"), 0o600))
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", creds)
	return calls
}

// TestTerraformLoaderVMsOverSSH runs an experiment on a Terraform
// deployment (tofu stood in for, since there is no cloud here) whose
// loader VM is a network namespace running a real sshd: dbarena must
// reach the VM over real ssh, copy itself and the properties there, load
// and run from it against the database's internal address, fetch the
// logs back and merge them.
func TestTerraformLoaderVMsOverSSH(t *testing.T) {
	requireLocalServers(t, "redis-server", "ssh", "ssh-keygen", "/usr/sbin/sshd", "prometheus-node-exporter")
	vm := newNetHosts(t, 214, 1)[0]
	key, sshdLog := startSSHD(t, vm)
	bin := buildDbarena(t)
	// The VM's node_exporter, on port 9100 of its address as the
	// modules install it.
	ne := exec.Command("ip", "netns", "exec", vm.Name, "prometheus-node-exporter", "--web.listen-address="+vm.IP+":9100",
		"--no-collector.systemd")
	require.NoError(t, ne.Start())
	t.Cleanup(func() { _ = ne.Process.Kill(); _ = ne.Wait() })

	// The database listens on this host's loopback (its "external"
	// address, for the operator) and on the veth (its "internal" one).
	// From inside the namespace 127.0.0.1 is the VM's own loopback, so a
	// loader given the external address would fail.
	port := startRedis(t, "127.0.0.1", vm.HostIP)
	calls := fakeCloud(t, vm.HostIP, vm.IP, port)

	dir := t.TempDir()
	file := filepath.Join(dir, "cloud.yaml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`name: cloud
properties: {recordcount: 300}
targets:
  - database: redis
    deploy:
      provider: terraform
      options: {cloud: gcp, project: bench, operator_cidr: 203.0.113.7/32, ssh_public_key: "ssh-ed25519 AAAA test",
                ssh_user: root, ssh_identity: "%s", loaders: 1}
workloads: [c]
run:
  duration: 2s
  threads: 2
  target: 300
`, key)), 0o644))
	d, rows := runOK(t, file, "--loader-binary", bin, "--work-dir", dir)
	load, ok := rows["redis.load.1"]
	require.True(t, ok, "trials: %v", d.Trials)
	require.EqualValues(t, 300, load.Operations, "the loader VM inserted every record")
	c, ok := rows["redis.c"]
	require.True(t, ok)
	require.Zero(t, c.Errors)
	require.InEpsilon(t, 300, c.Throughput, 0.3)

	// Both steps ran on the VM: two sessions per step at least (copy
	// the binary, copy the properties, clock, run, fetch, clean).
	require.GreaterOrEqual(t, strings.Count(sshdLog.String(), "Accepted publickey for root"), 6, sshdLog.String())
	left, err := filepath.Glob(fmt.Sprintf("/tmp/dbarena-loader-%d-*", os.Getpid()))
	require.NoError(t, err)
	require.Empty(t, left, "the VM's loader directories are removed")
	// The loader VM's metrics were scraped each second.
	var vmRows int
	for _, r := range d.Sys {
		if r.Host == "redis-loader-1" && r.Trial == "redis.c" {
			vmRows++
		}
	}
	require.GreaterOrEqual(t, vmRows, 2, "sysmetrics rows of the loader VM during redis.c")
	b, err := os.ReadFile(calls)
	require.NoError(t, err)
	require.Equal(t, "init\napply\noutput\ndestroy\n", string(b))
}

// TestLoaderStopsWhenStdinCloses runs a loader as an experiment does,
// with a pipe as standard input, and closes it as a killed experiment
// would: the loader stops at once as if interrupted, keeping what it
// measured, instead of loading the database for its whole minute.
func TestLoaderStopsWhenStdinCloses(t *testing.T) {
	bin := buildDbarena(t)
	out := filepath.Join(t.TempDir(), "loader.json")
	cmd := exec.Command(bin, "ycsb", "run", "memory", "--preload", "-q", "-p", "recordcount=10", "-p", "operationcount=0",
		"-p", "maxexecutiontime=60", "-p", "threadcount=1", "-p", "target=200", "--json", out, "--stop-on-stdin-close")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	time.Sleep(1500 * time.Millisecond)
	closed := time.Now()
	require.NoError(t, stdin.Close())
	err = cmd.Wait()
	require.Less(t, time.Since(closed), 10*time.Second, "stopped at the close, not after its minute")
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, ExitInterrupted, exit.ExitCode())
	b, err := os.ReadFile(out)
	require.NoError(t, err, "the summary is written")
	require.Contains(t, string(b), `"interrupted": true`)
}
