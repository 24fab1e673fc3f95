package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/measure/hlog"
	"github.com/dbarena/dbarena/results"
)

// poll calls found every 50 ms until it says yes or timeout passes, and
// says whether it did. Unlike require.Eventually it never fails the test,
// so the goroutines that act on a run while it goes can use it: only the
// test's own goroutine may end a test.
func poll(timeout time.Duration, found func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if found() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// process is one running process: its PID and command line.
type process struct {
	pid  int
	args []string
}

// processes are the running processes whose command line match accepts.
func processes(match func(args []string) bool) []process {
	var out []process
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(b) == 0 {
			continue
		}
		if args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00"); match(args) {
			out = append(out, process{pid, args})
		}
	}
	return out
}

// runLoader accepts the command line of the run step's loader index (as
// "1/3") that holds mark: a path only the test uses, or the kubectl
// words that name its namespace.
func runLoader(index, mark string) func(args []string) bool {
	return func(args []string) bool {
		line := strings.Join(args, " ")
		return strings.Contains(line, "--loader "+index) && strings.Contains(line, mark) && strings.Contains(line, " ycsb run ")
	}
}

// waitLoader waits up to timeout for the run step's loader index that
// holds mark (see runLoader), or says it never came.
func waitLoader(timeout time.Duration, index, mark string) (process, error) {
	var found []process
	if poll(timeout, func() bool { found = processes(runLoader(index, mark)); return len(found) > 0 }) {
		return found[0], nil
	}
	return process{}, fmt.Errorf("the run step's loader %s (%s) not found in %s", index, mark, timeout)
}

// findLoader waits up to 20 s for the run step's loader process whose
// command line holds "--loader" index and mark (a path only this test
// uses) and returns its PID, or an error that says it never came.
func findLoader(index, mark string) (int, error) {
	p, err := waitLoader(20*time.Second, index, mark)
	return p.pid, err
}

// noLoaderLeft checks that no process of the test's loaders runs.
func noLoaderLeft(t *testing.T, mark string) {
	t.Helper()
	for _, p := range processes(func(args []string) bool {
		line := strings.Join(args, " ")
		return strings.Contains(line, mark) && strings.Contains(line, "ycsb")
	}) {
		t.Errorf("loader left running: pid %d: %s", p.pid, strings.Join(p.args, " "))
	}
}

// intoTheWindow is how long after a loader process appears a test acts
// on it: the loaders start together about 3 s after they are launched,
// so this is about 3 s into the measured window.
const intoTheWindow = 6 * time.Second

// cutLinkInTheWindow takes a network interface down once the loader
// numbered slot ("1/2") has run for intoTheWindow; the channel says
// whether it did.
func cutLinkInTheWindow(veth, slot, work string) chan error {
	acted := make(chan error, 1)
	go func() {
		_, err := findLoader(slot, work)
		if err == nil {
			time.Sleep(intoTheWindow)
			err = exec.Command("ip", "link", "set", veth, "down").Run()
		}
		acted <- err
	}()
	return acted
}

// failedRun is what a run whose trial r.c failed through its loaders
// left: its results, r.c's row and the standard output.
type failedRun struct {
	data *results.Data
	row  results.Trial
	out  string
}

// runLoadersToFailure runs the experiment in file (results beside it,
// in r) with its loaders in work and requires that it exits 1 with
// trial r.c's row written, failed.
func runLoadersToFailure(t *testing.T, file, bin, work string) failedRun {
	t.Helper()
	res := filepath.Join(filepath.Dir(file), "r")
	code, out, errs := run(t, context.Background(), "run", file, "--results", res, "--loader-binary", bin, "--work-dir", work)
	require.Equal(t, ExitFailure, code, errs)
	d, err := results.Read(res)
	require.NoError(t, err)
	row, ok := rowsByID(d)["r.c"]
	require.True(t, ok, "the trial's row is written")
	require.Equal(t, results.StatusFailed, row.Status)
	return failedRun{data: d, row: row, out: out}
}

// TestLoaderLossKeepsWhatTheOthersMeasured kills one of three loaders
// (kill -9) or freezes it (SIGSTOP) in the measured window: the trial
// keeps every interval the loaders sent, carries a flag naming the lost
// loader, when and why, fails by the error policy (exit 1 at the end),
// and no loader is left running.
func TestLoaderLossKeepsWhatTheOthersMeasured(t *testing.T) {
	bin := buildDbarena(t)
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		why  string
	}{
		{"kill -9", syscall.SIGKILL, "killed by signal 9"},
		{"SIGSTOP", syscall.SIGSTOP, "no data for 5s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startOwnRedis(t)
			dir := t.TempDir()
			work := filepath.Join(dir, "work-"+strings.ReplaceAll(tc.name, " ", ""))
			file := redisExperiment(t, dir, "lose", srv.addr, "{duration: 10s, threads: 2, loaders: 3}")
			acted := make(chan error, 1)
			go func() {
				pid, err := findLoader("1/3", work)
				if err == nil {
					time.Sleep(intoTheWindow)
					err = syscall.Kill(pid, tc.sig)
				}
				acted <- err
			}()
			start := time.Now()
			f := runLoadersToFailure(t, file, bin, work)
			require.NoError(t, <-acted)
			require.Less(t, time.Since(start), 30*time.Second, "a frozen loader does not hold the experiment")
			d, row, out := f.data, f.row, f.out
			require.True(t, results.HasFlag(row.Flags, results.FlagLoaderLost), "flags: %q", row.Flags)
			require.Contains(t, row.StatusReason, "loader 1 of 3 lost")
			require.Contains(t, row.StatusReason, tc.why)
			require.Contains(t, row.StatusReason, "of its planned loader time")
			require.Positive(t, row.Operations, "the healthy loaders' operations are kept")
			var seconds int
			for _, p := range d.Points {
				if p.Trial == "r.c" && p.Op == results.AllOps && !p.Warmup {
					seconds++
				}
			}
			require.GreaterOrEqual(t, seconds, 8, "the healthy loaders' intervals reach the time series")
			require.Contains(t, out, "r.c: loader lost: loader 1 of 3 lost", "the verdict says the loss")
			require.Contains(t, out, "r.c: failed: its error is above (and in trials.csv)", "and names the failure, said once in the log")
			require.NoDirExists(t, filepath.Join(dir, "r", results.HdrDir, "r.c"+results.LoaderLogs), "merged into hdr/r.c.hlog: each fact once")
			noLoaderLeft(t, work)
		})
	}
}

// redisExperiment writes an experiment named name of workload C on the
// Redis at addr (200 records, target r, provider existing) with the
// given run section, and returns its path.
func redisExperiment(t *testing.T, dir, name, addr, runSection string) string {
	t.Helper()
	return redisExperimentWith(t, dir, name, fmt.Sprintf("redis.addr: %q", addr), runSection)
}

// redisExperimentWith is redisExperiment with the target's properties
// written out (YAML flow mapping entries).
func redisExperimentWith(t *testing.T, dir, name, props, runSection string) string {
	t.Helper()
	file := filepath.Join(dir, name+".yaml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`name: %s
properties: {recordcount: 200}
targets:
  - name: r
    database: redis
    deploy: {provider: existing}
    properties: {%s}
workloads: [c]
run: %s
`, name, props, runSection)), 0o644))
	return file
}

// sshLoader is an experiment whose loader 0 of 2 runs on a "VM" (a
// network namespace with a real OpenSSH server) and loader 1 here, on
// the Redis that listens on the host's side of the VM's wire.
type sshLoader struct {
	vm                        netHost
	key, bin, file, work, dir string
}

// sshLoaderExperiment sets up an sshLoader on subnet 10.SUBNET.1.0/30: the
// VM, its sshd, a dbarena binary to copy there, Redis, and experiment
// name running workload C for duration.
func sshLoaderExperiment(t *testing.T, subnet int, name, duration string) sshLoader {
	t.Helper()
	requireLocalServers(t, "redis-server", "ssh", "ssh-keygen", "/usr/sbin/sshd")
	vm := newNetHosts(t, subnet, 1)[0]
	key, _ := startSSHD(t, vm)
	bin := buildDbarena(t)
	port := startRedis(t, vm.HostIP)
	dir := t.TempDir()
	ssh := fmt.Sprintf("ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -i %s root@%s", key, vm.IP)
	file := redisExperiment(t, dir, name, fmt.Sprintf("%s:%d", vm.HostIP, port),
		fmt.Sprintf(`{duration: %s, threads: 2, loaders: 2, loader_commands: ["%s", ""]}`, duration, ssh))
	return sshLoader{vm: vm, key: key, bin: bin, file: file, work: filepath.Join(dir, "work"), dir: dir}
}

// TestLoaderOverSSHLosesItsLink runs one of two loaders on a "VM" (a
// network namespace with a real OpenSSH server) and cuts its wire in
// the measured window: its stream over ssh stops, it is declared lost
// after 5 s without data, and the trial keeps what both loaders sent.
func TestLoaderOverSSHLosesItsLink(t *testing.T) {
	x := sshLoaderExperiment(t, 215, "cut", "10s")
	// The local loader starts with the remote one.
	acted := cutLinkInTheWindow(x.vm.Veth, "1/2", x.work)
	row := runLoadersToFailure(t, x.file, x.bin, x.work).row
	require.NoError(t, <-acted)
	require.Contains(t, row.StatusReason, "loader 0 of 2 lost")
	require.Contains(t, row.StatusReason, "no data for 5s")
	require.Positive(t, row.Operations)
	noLoaderLeft(t, x.work)
}

// remoteLoaderPID returns the PID of the dbarena process that runs loader
// index (as "0/2") from a copied binary (a remote loader's, under
// /tmp/dbarena-loader-*), or 0 when none runs. Network namespaces share
// this machine's process table, so a "VM"'s processes are seen here.
func remoteLoaderPID(index string) int {
	found := processes(func(args []string) bool {
		return strings.HasPrefix(args[0], "/tmp/dbarena-loader-") && strings.HasSuffix(args[0], "/dbarena") &&
			strings.Contains(strings.Join(args, " "), "--loader "+index)
	})
	if len(found) == 0 {
		return 0
	}
	return found[0].pid
}

// TestLoaderOverSSHLosesItsClient kills the ssh client that carries one
// of two loaders to its "VM" in the measured window: the stream ends, the
// loader is lost with the client's fate as the reason, the trial keeps
// what both sent, and the remote loader, its standard input closed by
// sshd, stops by itself long before its trial would have ended.
func TestLoaderOverSSHLosesItsClient(t *testing.T) {
	x := sshLoaderExperiment(t, 216, "client", "12s")
	key, work := x.key, x.work
	type outcome struct {
		remote  int
		stopped time.Duration
		err     error
	}
	acted := make(chan outcome, 1)
	go func() {
		// The ssh client's command line holds the key's path, which only
		// this test uses.
		client, err := findLoader("0/2", key)
		if err != nil {
			acted <- outcome{err: err}
			return
		}
		time.Sleep(intoTheWindow)
		remote := remoteLoaderPID("0/2")
		err = syscall.Kill(client, syscall.SIGKILL)
		killed := time.Now()
		poll(20*time.Second, func() bool { return remote == 0 || syscall.Kill(remote, 0) != nil })
		acted <- outcome{remote: remote, stopped: time.Since(killed), err: err}
	}()
	row := runLoadersToFailure(t, x.file, x.bin, work).row
	require.True(t, results.HasFlag(row.Flags, results.FlagLoaderLost), "flags: %q", row.Flags)
	require.Contains(t, row.StatusReason, "loader 0 of 2 lost")
	require.Contains(t, row.StatusReason, "killed by signal 9")
	require.Positive(t, row.Operations)
	o := <-acted
	require.NoError(t, o.err)
	require.Positive(t, o.remote, "the remote loader was running when its client was killed")
	require.Less(t, o.stopped, 5*time.Second, "the remote loader stops when its link closes, not when its trial would end")
	noLoaderLeft(t, work)
}

// TestLoaderInANamespaceLosesTheDatabase runs one of two loaders in a
// network namespace (loader_commands: ip netns exec) and takes its veth
// down in the measured window: the loader lives on but cannot reach the
// database and its operations fail (at once or after the driver's
// timeout, as the kernel decides), until its share ends or its own
// stop-on-error-rate stops it. It is not lost: it sent every interval
// and wrote its summary; the trial keeps both loaders' intervals, counts
// the failures and fails by the error policy, saying why, and nothing is
// left running.
func TestLoaderInANamespaceLosesTheDatabase(t *testing.T) {
	requireLocalServers(t, "redis-server")
	ns := newNetHosts(t, 217, 1)[0]
	bin := buildDbarena(t)
	port := startRedis(t, ns.HostIP)
	dir := t.TempDir()
	// A second's timeouts: the link's loss shows as replies that do not
	// come, which the driver waits redis.timeout for before it gives the
	// connection up; its redials fail at once or, as the kernel decides,
	// after redis.connect.timeout. Four workers in the namespace's loader
	// then fail together, at least three in one interval, which is what
	// its stop-on-error-rate needs; with one worker and the default 5 s
	// dial, a CI run saw 7 failures in 4 s and the trial passed.
	file := redisExperimentWith(t, dir, "netns",
		fmt.Sprintf(`redis.addr: "%s:%d", redis.timeout: 1s, redis.connect.timeout: 1s`, ns.HostIP, port),
		fmt.Sprintf(`{duration: 10s, threads: 8, loaders: 2, loader_commands: ["ip netns exec %s", ""]}`, ns.Name))
	work := filepath.Join(dir, "work")
	acted := cutLinkInTheWindow(ns.Veth, "1/2", work)
	row := runLoadersToFailure(t, file, bin, work).row
	require.NoError(t, <-acted)
	require.False(t, results.HasFlag(row.Flags, results.FlagLoaderLost), "flags: %q", row.Flags)
	require.Regexp(t, `^(stopped early: loader 0 of 2: error rate [\d.]+% in one interval|\d+ of \d+ operations failed \([\d.]+%\), above max-error-rate=0.01)`, row.StatusReason)
	require.True(t, results.HasFlag(row.Flags, results.FlagErrors), "flags: %q", row.Flags)
	require.Positive(t, row.Errors)
	require.Greater(t, row.Operations, row.Errors, "the other loader's operations are kept")
	noLoaderLeft(t, work)
	require.Zero(t, remoteLoaderPID("0/2"), "the namespace's loader is left running")
}

// TestKilledParentKeepsItsLoadersTrial kills `dbarena run` outright
// (kill -9) in the measured window of a trial that three loaders run:
// the loaders stop as their standard input closes, and the logs they
// streamed into the results directory give the trial back, rebuilt and
// flagged, to Read and to the report, with every second the loaders
// measured (before, hdr/ held an empty log and the report said the run
// ended before the trial measured anything).
func TestKilledParentKeepsItsLoadersTrial(t *testing.T) {
	bin := buildDbarena(t)
	srv := startOwnRedis(t)
	dir := t.TempDir()
	work := filepath.Join(dir, "work-killed-parent")
	file := redisExperiment(t, dir, "killed", srv.addr, "{duration: 30s, threads: 2, loaders: 3}")
	res := filepath.Join(dir, "r")
	cmd := exec.Command(bin, "run", file, "--results", res, "--loader-binary", bin, "--work-dir", work)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	_, err := findLoader("2/3", work)
	require.NoError(t, err)
	// Into the measured window: the loaders start together about 3 s
	// after they are launched, and measure from then.
	time.Sleep(9 * time.Second)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	require.True(t, poll(15*time.Second, func() bool { return len(processes(runLoader("", work))) == 0 }),
		"the loaders stop when their parent is gone")
	noLoaderLeft(t, work)

	logs, err := filepath.Glob(filepath.Join(res, results.HdrDir, "r.c"+results.LoaderLogs, "loader-*.hlog"))
	require.NoError(t, err)
	require.Len(t, logs, 3, "each loader's log streamed into the results directory")
	d, err := results.Read(res)
	require.NoError(t, err)
	require.Equal(t, results.StatusInterrupted, d.Manifest.Status)
	row, ok := rowsByID(d)["r.c"]
	require.True(t, ok, "the cut trial is rebuilt from its loaders' logs: warnings %q", d.Warnings)
	require.True(t, row.Reconstructed)
	require.Contains(t, row.Flags[0], "latency merged from its loaders' logs in hdr/r.c.loaders")
	require.Positive(t, row.Latency.P99)
	require.GreaterOrEqual(t, row.Duration.Seconds(), 4.0, "the seconds all three loaders measured: %v", row.Duration)
	// The rebuilt count is every loader's: the sum of their own logs'.
	var want int64
	for _, path := range logs {
		f, err := os.Open(path)
		require.NoError(t, err)
		rd := hlog.NewReader(f)
		for {
			iv, err := rd.Next()
			if err != nil {
				break
			}
			if tag := hlog.ParseTag(iv.Tag); !tag.Warmup && tag.Kind == hlog.Service {
				want += iv.Histogram.TotalCount()
			}
		}
		f.Close()
	}
	require.Positive(t, want)
	require.Equal(t, want, row.Operations, "every operation the three loaders logged")
	t.Logf("rebuilt from 3 loaders' logs: %d operations over %v, p99 %.0f µs", row.Operations, row.Duration, row.Latency.P99)

	code, out, errs := run(t, context.Background(), "report", res)
	require.Equal(t, ExitOK, code, errs)
	require.NotContains(t, out, "measured anything")
	require.Contains(t, out, "warning: r.c: reconstructed")
	require.Regexp(t, `c: r [\d,]+ ops/s \(p99 `, out)
}
